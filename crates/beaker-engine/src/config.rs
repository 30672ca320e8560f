//! How an engine runs: its pools, queue bound, limits, trajectories and memory budget.

use beaker_core::Limits;

/// How an [`Engine`] runs: its worker pool, queue bound and limits.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Worker threads running native calls. Default: the number of cores.
    pub workers: usize,
    /// Worker threads running sandboxed calls (Python, operator guests), a pool of their own so that a cheap
    /// native call never waits behind untrusted code. Default: the number of cores.
    pub sandbox_workers: usize,
    /// Calls waiting for a worker beyond which new calls fail at once with a retryable `internal`
    /// ("overloaded") error. Default 65,536: a bound on memory, not a tuning knob; front ends apply
    /// backpressure well before it.
    pub max_queued: usize,
    /// Limits a call gets when it asks for nothing.
    pub defaults: Limits,
    /// Limits no call may exceed.
    pub maxima: Limits,
    /// Where images a tool returns (`image` + `format` in its result, as the plotter's) are also written,
    /// named by their content hash, with the path added to the result as `output_path`. Default: none
    /// (images only inline). Tools never write files themselves; the engine does, after the call.
    pub output_dir: Option<std::path::PathBuf>,
    /// How long a trajectory (a `tag`'s figures and budgets) with nothing in flight is kept after its last
    /// call. Default 10 minutes.
    pub trajectory_idle: std::time::Duration,
    /// The most trajectories kept at once; past it the least recently used idle one is dropped. Default 100,000.
    pub max_trajectories: usize,
    /// Bytes the process lets its clients make it hold ([`beaker_core::MemoryBudget`]): interpreter sessions and
    /// runs, and what front ends hold for requests and answers, reserve from it. Default: three quarters of the
    /// machine's memory (or of the cgroup's limit when lower), 8 GiB where neither can be read.
    pub max_memory: u64,
    /// The bounds of each trajectory's workspace (its files: `write_file`, `edit_image`, `execute_python`'s
    /// working folder) and of an untagged call's one-call workspace.
    pub workspace: beaker_core::WorkspaceLimits,
}

impl Default for Config {
    fn default() -> Self {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        Config {
            workers: cores,
            sandbox_workers: cores,
            max_queued: 65_536,
            defaults: Limits::default(),
            maxima: Limits::default_maxima(),
            output_dir: None,
            trajectory_idle: std::time::Duration::from_secs(600),
            max_trajectories: 100_000,
            max_memory: default_max_memory(),
            workspace: beaker_core::WorkspaceLimits::default(),
        }
    }
}

/// Three quarters of the memory this process may use: the machine's, or its cgroup's limit when lower.
fn default_max_memory() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    // cgroup v2 says `max` when there is no limit.
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    match (meminfo, cgroup) {
        (Some(m), Some(c)) => m.min(c) / 4 * 3,
        (Some(m), None) => m / 4 * 3,
        (None, Some(c)) => c / 4 * 3,
        (None, None) => 8 << 30,
    }
}
