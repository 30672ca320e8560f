//! Building an [`Engine`]: its configuration, its catalog loaded into a registry, the worker pool.

use crate::engine::{recv_spinning, Counters, Inner, Job, Registered};
use crate::stats::PoolCounters;
use crate::watchdog::Watchdog;
use crate::Engine;
use beaker_core::{Limits, LimitsError, Pool, Tenant, Tool};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

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
        }
    }
}

/// An engine that could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A configured limit is inconsistent.
    #[error(transparent)]
    Limits(#[from] LimitsError),
    /// Two tools share a name.
    #[error("two tools are named `{0}`")]
    DuplicateTool(String),
    /// A tool's params schema is not a valid JSON Schema.
    #[error("tool `{tool}` has an invalid params schema: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// The configuration makes no sense (zero workers).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A worker thread could not be started.
    #[error("cannot start worker threads: {0}")]
    Spawn(#[from] std::io::Error),
}

/// What runs first on each worker thread, given the thread's stack size in bytes (the sandbox bounds a
/// guest's recursion by it).
pub type WorkerStart = Arc<dyn Fn(usize) + Send + Sync>;

/// Builds an [`Engine`] from the tools it is handed; [`EngineBuilder::build`] validates the configuration,
/// compiles the tools' schemas and starts the workers.
pub struct EngineBuilder {
    config: Config,
    tools: Vec<Arc<dyn Tool>>,
    worker_start: Option<WorkerStart>,
}

impl EngineBuilder {
    pub(crate) fn new() -> EngineBuilder {
        EngineBuilder {
            config: Config::default(),
            tools: Vec::new(),
            worker_start: None,
        }
    }

    /// Replaces the configuration.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Adds one tool; its [`Tool::pool`] says which workers run it.
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds tools, in the order listings show them.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Runs `start` first thing on every worker thread (the catalog declares the thread's stack to the sandbox).
    pub fn on_worker_start(mut self, start: WorkerStart) -> Self {
        self.worker_start = Some(start);
        self
    }

    /// Compiles each tool's params schema, starts the worker pools and the watchdog.
    pub fn build(self) -> Result<Engine, EngineError> {
        let config = self.config;
        let (config_idle, config_max_trajectories, config_max_memory) = (
            config.trajectory_idle,
            config.max_trajectories,
            config.max_memory,
        );
        config.defaults.validate_against(&config.maxima)?;
        if config.workers == 0 || config.sandbox_workers == 0 {
            return Err(EngineError::Config(
                "workers and sandbox_workers must be at least 1".into(),
            ));
        }
        let mut tools = HashMap::new();
        let mut specs = Vec::new();
        let mut sandboxed_names = Vec::new();
        for tool in self.tools {
            let spec = tool.spec().clone();
            let sandboxed = tool.pool() == Pool::Sandboxed;
            if sandboxed {
                sandboxed_names.push(spec.name.clone());
            }
            let params =
                crate::params::ParamsSchema::compile(&spec.params_schema).map_err(|message| {
                    EngineError::InvalidSchema {
                        tool: spec.name.clone(),
                        message,
                    }
                })?;
            let registered = Arc::new(Registered {
                tool,
                params,
                sandboxed,
                stats: Arc::default(),
            });
            if tools.insert(spec.name.clone(), registered).is_some() {
                return Err(EngineError::DuplicateTool(spec.name));
            }
            specs.push(spec);
        }
        let start = self.worker_start;
        let (jobs, native_pool) = pool("beaker-worker", config.workers, start.clone())?;
        let (sandbox_jobs, sandbox_pool) =
            pool("beaker-sandbox-worker", config.sandbox_workers, start)?;
        Ok(Engine {
            inner: Arc::new(Inner {
                sandboxed: sandboxed_names,
                tools,
                specs,
                config,
                jobs,
                sandbox_jobs,
                watchdog: Watchdog::start(),
                counters: Arc::new(Counters::default()),
                unknown: Arc::default(),
                native_pool,
                sandbox_pool,
                trajectories: crate::trajectory::Trajectories::new(
                    config_idle,
                    config_max_trajectories,
                ),
                memory: beaker_core::MemoryBudget::new(config_max_memory),
                template_workers: beaker_worker::WorkerCommand::discover(
                    beaker_templates::worker::WORKER_ARG,
                )
                .map(|c| Arc::new(beaker_worker::Pool::new(c, "the chat template"))),
            }),
            tenant: Tenant::default(),
        })
    }
}

/// Starts `n` worker threads named `name-I` on one queue, each running `start` first, and returns the queue's
/// sender and the pool's counters.
fn pool(
    name: &str,
    n: usize,
    start: Option<WorkerStart>,
) -> Result<(flume::Sender<Job>, Arc<PoolCounters>), EngineError> {
    let (tx, rx) = flume::unbounded::<Job>();
    let counters = Arc::new(PoolCounters {
        size: n,
        ..PoolCounters::default()
    });
    for i in 0..n {
        let rx = rx.clone();
        let counters = counters.clone();
        let start = start.clone();
        std::thread::Builder::new()
            .name(format!("{name}-{i}"))
            .stack_size(WORKER_STACK)
            .spawn(move || {
                if let Some(start) = start {
                    start(WORKER_STACK);
                }
                while let Ok(job) = recv_spinning(&rx) {
                    counters.busy.fetch_add(1, Ordering::Relaxed);
                    job();
                    counters.busy.fetch_sub(1, Ordering::Relaxed);
                }
            })?;
    }
    Ok((tx, counters))
}

/// A worker's stack: deep native recursion and a sandboxed guest's 8 MiB stack plus host frames. Only
/// touched pages cost memory.
const WORKER_STACK: usize = 16 << 20;

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
