//! What the benchmarks share.

/// CPU time this process has run (s), from /proc (Linux); `wall_s` elsewhere. On a shared
/// machine it is the steadier figure.
pub fn cpu_s(wall_s: f64) -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(wall_s, |ns| ns / 1e9)
}
