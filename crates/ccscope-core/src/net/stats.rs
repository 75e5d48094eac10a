//! Counters the engine keeps for every flow and link. All counts are packets unless named bytes.

use std::ops::Sub;

/// One direction of one flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Dropped by a queue (DropTail limit, RED forced or early drop).
    pub queue_drops: u64,
    /// Lost to a loss module.
    pub link_losses: u64,
    /// Delivered with a CE mark.
    pub marked: u64,
    /// Sum over delivered packets of their one-way delay (ns).
    pub delay_sum_ns: u64,
}

impl DirStats {
    pub fn dropped(&self) -> u64 {
        self.queue_drops + self.link_losses
    }
}

impl Sub for DirStats {
    type Output = DirStats;
    fn sub(self, b: DirStats) -> DirStats {
        DirStats {
            sent_pkts: self.sent_pkts - b.sent_pkts,
            sent_bytes: self.sent_bytes - b.sent_bytes,
            delivered_pkts: self.delivered_pkts - b.delivered_pkts,
            delivered_bytes: self.delivered_bytes - b.delivered_bytes,
            queue_drops: self.queue_drops - b.queue_drops,
            link_losses: self.link_losses - b.link_losses,
            marked: self.marked - b.marked,
            delay_sum_ns: self.delay_sum_ns - b.delay_sum_ns,
        }
    }
}

/// A flow's counters: index 0 data (forward), 1 feedback (reverse).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowStats {
    pub dir: [DirStats; 2],
}

impl Sub for FlowStats {
    type Output = FlowStats;
    fn sub(self, b: FlowStats) -> FlowStats {
        FlowStats {
            dir: [self.dir[0] - b.dir[0], self.dir[1] - b.dir[1]],
        }
    }
}

/// One simplex link's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets offered to the link's queue.
    pub arrivals: u64,
    /// Packets whose serialization finished.
    pub departures: u64,
    pub tx_bytes: u64,
    pub forced_drops: u64,
    pub early_drops: u64,
    pub marks: u64,
    /// Packets lost to the loss module after serialization.
    pub losses: u64,
    /// Packets that reached the far end.
    pub exits: u64,
    /// Time spent serializing (ns).
    pub busy_ns: u64,
    /// Integral of the number of waiting packets over time (packet·ns).
    pub queue_pkt_ns: u128,
    /// Integral of the waiting bytes over time (byte·ns).
    pub queue_byte_ns: u128,
    /// Most packets ever waiting.
    pub max_queue_pkts: u64,
}

impl LinkStats {
    pub fn queue_drops(&self) -> u64 {
        self.forced_drops + self.early_drops
    }
}

impl Sub for LinkStats {
    type Output = LinkStats;
    fn sub(self, b: LinkStats) -> LinkStats {
        LinkStats {
            arrivals: self.arrivals - b.arrivals,
            departures: self.departures - b.departures,
            tx_bytes: self.tx_bytes - b.tx_bytes,
            forced_drops: self.forced_drops - b.forced_drops,
            early_drops: self.early_drops - b.early_drops,
            marks: self.marks - b.marks,
            losses: self.losses - b.losses,
            exits: self.exits - b.exits,
            busy_ns: self.busy_ns - b.busy_ns,
            queue_pkt_ns: self.queue_pkt_ns - b.queue_pkt_ns,
            queue_byte_ns: self.queue_byte_ns - b.queue_byte_ns,
            // Reset when the warm-up ends (see `Simulation::run_until`): already the window's.
            max_queue_pkts: self.max_queue_pkts,
        }
    }
}
