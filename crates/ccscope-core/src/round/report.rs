//! What a round-model run produces: the aggregate series, each flow's totals and the run's.

/// The aggregate state at the recorded steps (`Record::every`), one entry per recorded step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub step: Vec<u64>,
    /// Start of the step (s).
    pub time_s: Vec<f64>,
    /// Length of the step (s): the RTT, RTT0 + queue/C, over `substeps`.
    pub interval_s: Vec<f64>,
    pub capacity_bps: Vec<f64>,
    /// Packets offered by all flows in the step.
    pub load_pkts: Vec<f64>,
    /// Queue at the end of the step (packets).
    pub queue_pkts: Vec<f64>,
    /// Packets served over packets the link could serve in the step, in [0, 1].
    pub utilization: Vec<f64>,
    /// Packets lost over packets offered in the step, in [0, 1].
    pub loss_fraction: Vec<f64>,
    /// Jain's fairness index of the flows' loads in the step, in [1/n, 1].
    pub jain: Vec<f64>,
    /// Flows that saw congestion in the step.
    pub congested_flows: Vec<u64>,
}

/// One flow's totals over the measured steps (after the warm-up).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowReport {
    /// The controller's name in its paper's notation.
    pub name: String,
    /// Whether the flow is read as a rate (bits/s) rather than a window.
    pub rate_based: bool,
    pub sent_pkts: f64,
    pub lost_pkts: f64,
    /// Steps in which the flow saw congestion.
    pub congestion_events: u64,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundResult {
    pub seed: u64,
    pub steps: u64,
    pub warmup_steps: u64,
    /// Simulated time of the measured steps (s).
    pub measured_s: f64,
    /// Packets offered, lost, served, and the link could serve, over the measured steps.
    pub sent_pkts: f64,
    pub lost_pkts: f64,
    pub served_pkts: f64,
    pub service_pkts: f64,
    pub flows: Vec<FlowReport>,
    pub series: Series,
    /// Each flow's load (packets in the step) at the recorded steps, step-major: entry
    /// `r * n + i` is flow i at recorded step r. Empty unless `Record::flows`.
    pub flow_load_pkts: Vec<f64>,
}

impl RoundResult {
    /// Packets lost over packets sent (Loguinov & Radha's p), 0 when nothing was sent.
    pub fn loss_rate(&self) -> f64 {
        if self.sent_pkts > 0.0 {
            self.lost_pkts / self.sent_pkts
        } else {
            0.0
        }
    }

    /// Packets served over packets the link could serve (the papers' efficiency).
    pub fn utilization(&self) -> f64 {
        self.served_pkts / self.service_pkts
    }
}
