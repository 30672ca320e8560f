//! Building an [`Engine`]: its tools in a registry, the worker pools. The engine knows nothing of the builder.

use crate::config::Config;
use crate::engine::{recv_spinning, Counters, Inner, Job, Registered};
use crate::stats::PoolCounters;
use crate::watchdog::Watchdog;
use crate::Engine;
use beaker_core::{LimitsError, Pool, Tenant, Tool};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

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

impl Engine {
    /// A builder with the default configuration and no tools (`beaker_catalog` hands it Beaker's own).
    pub fn builder() -> EngineBuilder {
        EngineBuilder::new()
    }
}

impl EngineBuilder {
    fn new() -> EngineBuilder {
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
        let (config_idle, config_max_trajectories, config_max_memory, config_workspace) = (
            config.trajectory_idle,
            config.max_trajectories,
            config.max_memory,
            config.workspace,
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
        let memory = beaker_core::MemoryBudget::new(config_max_memory);
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
                trajectories: Arc::new(
                    crate::trajectory::Trajectories::new(config_idle, config_max_trajectories)
                        .with_workspaces(config_workspace, memory.clone()),
                ),
                memory,
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
