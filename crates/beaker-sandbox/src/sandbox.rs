use crate::cache::ModuleCache;
use crate::error::{chain, Printed, SandboxError};
use crate::framing::unbuffer;
use crate::manifest::Grants;
use crate::pipe::{CappedPipe, Captured};
use crate::reactor::{add_door, open_dirs, snapshot_reactor, Reactor, ReadOnlyDir};
use crate::snapshot::{snapshot, startup_engine};
use crate::store::{charge_host_call, sealed_wasi, Limiter, State, MAX_TABLE_ELEMENTS};
use beaker_core::{CallContext, CancelReason, CancelToken, Limits, Usage, UsageSlot};
use std::cell::Cell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};
use wasmtime::{
    InstanceAllocationStrategy, InstancePre, Linker, PoolingAllocationConfig, Store, Trap,
    UpdateDeadline,
};
use wasmtime_wasi::p2::pipe::MemoryInputPipe;
use wasmtime_wasi::I32Exit;

/// How a [`Sandbox`] is set up. The defaults suit a server answering many short calls.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxConfig {
    /// Guest instances alive at once (the pool's size). Runs beyond it wait for a slot. Default: twice the
    /// number of cores, at least 4.
    pub pool_size: u32,
    /// Sessions (instances kept across runs, [`Session`]) open at once, on pool slots of their own so that
    /// open sessions never take the slots of ordinary runs. Default 32; 0 disables sessions.
    pub max_sessions: u32,
    /// The largest linear memory any run may be granted (`Limits::max_memory_bytes` is capped by it).
    /// Each pool slot reserves this much address space (not memory). Default 4 GiB, the wasm32 maximum.
    pub max_memory_bytes: u64,
    /// The guest's native stack. Default 8 MiB: CPython-like recursion depths in the Python guest. A
    /// thread running guests needs this much stack plus a margin; see [`declare_thread_stack`].
    pub max_wasm_stack: usize,
    /// Where compiled modules (`.cwasm`) are cached across processes. Default: `$BEAKER_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/beaker`, else `~/.cache/beaker`; `None` compiles in every process.
    pub cache_dir: Option<PathBuf>,
    /// How often the ticker thread advances the epoch, which is how often a running guest checks its
    /// deadline and cancellation. Default 1 ms.
    pub epoch_tick: Duration,
    /// Reset a pool slot after a run by finding the pages it dirtied in the kernel's page map (Linux 6.7+
    /// `PAGEMAP_SCAN`) and copying only those back (up to 16 MiB, kept resident), instead of decommitting the whole
    /// memory: faster per CPython call (docs/PERFORMANCE.md). Default off: wasmtime 48's scan skips a dirtied page
    /// that is not present when it looks (swapped out, or in the middle of a migration by compaction or THP),
    /// which would leave that page of one run for the next run in the slot. Even when set, a host with swap
    /// keeps it off.
    pub reset_from_page_map: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2) as u32;
        SandboxConfig {
            pool_size: (2 * cores).max(4),
            max_sessions: 32,
            max_memory_bytes: 4 << 30,
            max_wasm_stack: 8 << 20,
            cache_dir: beaker_core::cache_dir(),
            epoch_tick: Duration::from_millis(1),
            reset_from_page_map: false,
        }
    }
}

thread_local! {
    static STACK: Cell<usize> = const { Cell::new(0) };
}

/// Declares that the current thread has `bytes` of stack, so guests may run on it directly.
///
/// A guest's stack lives on the thread that runs it. Threads that have not declared enough (at least
/// `max_wasm_stack` plus 2 MiB) run each guest on a short-lived thread of the right size instead, which
/// is safe but costs a thread spawn per call. The engine's workers declare their stacks.
pub fn declare_thread_stack(bytes: usize) {
    STACK.with(|s| s.set(bytes));
}

/// Bytes of dirtied linear memory a pool slot resets in place (and keeps resident) after a run, when it resets
/// from the page map ([`SandboxConfig::reset_from_page_map`]).
const KEEP_RESIDENT: usize = 16 << 20;

/// Host frames below and above the guest's stack (WASI calls, the trap handler).
pub(crate) const STACK_MARGIN: usize = 2 << 20;

/// Whether the pool may reset a slot from the kernel's page map (`PAGEMAP_SCAN`), given `/proc/swaps`: only
/// when it lists no swap area. Unreadable (`None`) counts as swap: the scan is only a speed-up.
fn reset_policy(proc_swaps: Option<&str>) -> wasmtime::Enabled {
    match proc_swaps {
        // The first line is the header (`Filename Type Size Used Priority`); each further line is a swap area.
        Some(text)
            if text.starts_with("Filename")
                && text.lines().skip(1).all(|l| l.trim().is_empty()) =>
        {
            wasmtime::Enabled::Auto
        }
        _ => wasmtime::Enabled::No,
    }
}

/// A counting semaphore: runs wait for a free pool slot instead of failing.
struct Slots {
    free: Mutex<u32>,
    freed: Condvar,
}

impl Slots {
    /// Waits for a slot and takes it (to be given back with [`Slots::give`]); false when `cancel` was set.
    fn take(&self, cancel: Option<&CancelToken>) -> bool {
        self.take_many(1, cancel)
    }

    /// Waits until `n` slots are free and takes them together, so that two callers that each need two never
    /// hold one each and wait for the other forever; false when `cancel` was set.
    fn take_many(&self, n: u32, cancel: Option<&CancelToken>) -> bool {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if cancel.is_some_and(|c| c.reason().is_some()) {
                return false;
            }
            if *free >= n {
                *free -= n;
                return true;
            }
            free = self
                .freed
                .wait_timeout(free, Duration::from_millis(5))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    fn give(&self) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        *free += 1;
        // All waiters: one that needs two slots must not sleep on a wake-up a single taker ignored.
        self.freed.notify_all();
    }
}

/// A pool slot held for as long as its owner lives: a [`Session`]'s (from the session slots), or one of a
/// pair's (from the run slots, see [`Guest::open_pair`]).
struct OwnedSlot {
    inner: Arc<Inner>,
    session: bool,
}

impl Drop for OwnedSlot {
    fn drop(&mut self) {
        if self.session {
            self.inner.session_slots.give();
        } else {
            self.inner.slots.give();
        }
    }
}

/// A run slot reserved for one run beside a [`Session`] opened with [`Guest::open_pair`]: the run that
/// session answers through a [`Door`](crate::Door) ([`Guest::run_with_door`]).
pub struct Reserved(OwnedSlot);

impl std::fmt::Debug for Reserved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reserved")
    }
}

/// Why the epoch callback (or a sleep past the run's timeout, `sleep.rs`) stopped a guest.
#[derive(Debug, Clone, Copy, thiserror::Error)]
pub(crate) enum Stop {
    #[error("deadline")]
    Deadline,
    #[error("cancelled")]
    Cancelled,
}

pub(crate) struct Inner {
    pub(crate) engine: wasmtime::Engine,
    pub(crate) linker: Linker<State>,
    pub(crate) config: SandboxConfig,
    pub(crate) cache: ModuleCache,
    slots: Slots,
    session_slots: Slots,
    ticker_stop: Arc<AtomicBool>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}

/// The wasmtime host: one engine, one instance pool, one epoch ticker. Cheap to clone (an `Arc`).
#[derive(Clone)]
pub struct Sandbox {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("config", &self.inner.config)
            .finish()
    }
}

impl Sandbox {
    /// A sandbox with its own engine, pool and ticker thread.
    pub fn new(config: SandboxConfig) -> Result<Sandbox, SandboxError> {
        let mut pool = PoolingAllocationConfig::new();
        let runs = config.pool_size.max(1);
        let n = runs + config.max_sessions;
        let max_memory = usize::try_from(config.max_memory_bytes.min(4 << 30))
            .map_err(|_| SandboxError::Internal("max_memory_bytes does not fit".into()))?;
        let reset = if config.reset_from_page_map {
            reset_policy(std::fs::read_to_string("/proc/swaps").ok().as_deref())
        } else {
            wasmtime::Enabled::No
        };
        // A store that uses the exception-handling proposal (the CPython guest does) also takes a GC heap,
        // which the pool backs with a linear memory of its own: two memories per slot.
        pool.total_core_instances(n)
            .total_memories(2 * n)
            .total_gc_heaps(n)
            .total_tables(n)
            // Async stacks are used only while snapshotting a module with wizer.
            .total_stacks(n)
            .max_memory_size(max_memory)
            .table_elements(MAX_TABLE_ELEMENTS)
            .max_core_instance_size(4 << 20)
            // Resetting only the pages a run dirtied (Linux 6.7+ PAGEMAP_SCAN) is opt-in and never on a host
            // with swap: wasmtime 48's scan asks for dirty pages that are present, so a dirtied page swapped out
            // or being migrated when the run ends is neither reset nor decommitted, and the next run in the slot
            // reads the last one's data (wasmtime 50 scans for written pages whether present or not; it needs
            // rustc 1.97). Without it the whole memory is decommitted, which resets every page whatever the
            // kernel is doing with it; nothing is kept resident then, because without the scan wasmtime copies
            // back the whole resident prefix after every run, dirtied or not (16 MiB cost more than the faults
            // they save).
            .pagemap_scan(reset)
            .linear_memory_keep_resident(match reset {
                wasmtime::Enabled::No => 0,
                _ => KEEP_RESIDENT,
            });
        let mut cfg = wasmtime::Config::new();
        cfg.consume_fuel(true)
            .wasm_exceptions(true)
            .epoch_interruption(true)
            .max_wasm_stack(config.max_wasm_stack)
            .async_stack_size(config.max_wasm_stack + STACK_MARGIN)
            .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = wasmtime::Engine::new(&cfg).map_err(|e| {
            SandboxError::Internal(format!("cannot create the engine: {}", chain(&e)))
        })?;
        let mut linker = Linker::<State>::new(&engine);
        wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |s| &mut s.wasi)
            .map_err(|e| SandboxError::Internal(format!("cannot link WASI: {}", chain(&e))))?;
        crate::sleep::add_virtual_sleep(&mut linker).map_err(|e| {
            SandboxError::Internal(format!("cannot link poll_oneoff: {}", chain(&e)))
        })?;
        add_door(&mut linker).map_err(|e| {
            SandboxError::Internal(format!("cannot link host::call: {}", chain(&e)))
        })?;
        let ticker_stop = Arc::new(AtomicBool::new(false));
        {
            let engine = engine.weak();
            let stop = ticker_stop.clone();
            let tick = config.epoch_tick;
            std::thread::Builder::new()
                .name("beaker-epoch".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(tick);
                        match engine.upgrade() {
                            Some(e) => e.increment_epoch(),
                            None => break,
                        }
                    }
                })
                .map_err(|e| SandboxError::Internal(format!("cannot start the ticker: {e}")))?;
        }
        Ok(Sandbox {
            inner: Arc::new(Inner {
                cache: ModuleCache::new(config.cache_dir.clone()),
                slots: Slots {
                    free: Mutex::new(runs),
                    freed: Condvar::new(),
                },
                session_slots: Slots {
                    free: Mutex::new(config.max_sessions),
                    freed: Condvar::new(),
                },
                engine,
                linker,
                config,
                ticker_stop,
            }),
        })
    }

    /// The process-wide sandbox with the default configuration, created on first use.
    pub fn shared() -> Result<Sandbox, SandboxError> {
        static SHARED: OnceLock<Result<Sandbox, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| Sandbox::new(SandboxConfig::default()).map_err(|e| e.to_string()))
            .clone()
            .map_err(SandboxError::Internal)
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &SandboxConfig {
        &self.inner.config
    }

    /// Compiles (or loads from the cache) a guest module: WebAssembly binary or text. With `initialize`,
    /// the module is first pre-initialised with wizer: its `wizer.initialize` export runs once and the
    /// resulting memory becomes the module's image, so each call starts from the initialised state.
    pub fn load(&self, name: &str, wasm: &[u8], initialize: bool) -> Result<Guest, SandboxError> {
        let engine = &self.inner.engine;
        let max_memory = self.inner.config.max_memory_bytes;
        let module = self
            .inner
            .cache
            .module(engine, name, wasm, initialize, || {
                snapshot(
                    &startup_engine(self.inner.config.max_wasm_stack)?,
                    max_memory,
                    wasm,
                )
            })?;
        let load_err = |message: String| SandboxError::Load {
            name: name.to_string(),
            message,
        };
        match module.get_export("_start") {
            Some(wasmtime::ExternType::Func(f))
                if f.params().len() == 0 && f.results().len() == 0 => {}
            Some(_) => {
                return Err(load_err(
                    "its `_start` export is not a `[] -> []` function".into(),
                ))
            }
            None => {
                return Err(load_err(
                    "it exports no `_start` function (a guest must be a WASI command)".into(),
                ))
            }
        }
        let pre = self
            .inner
            .linker
            .instantiate_pre(&module)
            .map_err(|e| load_err(format!("it cannot be linked: {}", chain(&e))))?;
        Ok(Guest {
            name: name.to_string(),
            pre,
            sandbox: self.clone(),
            entry: Entry::Command,
            dirs: Arc::from([]),
        })
    }

    /// Compiles (or loads from the cache) a reactor guest snapshotted after its start-up code: the first
    /// load runs `_initialize` and `reactor.init` once and compiles the result (minutes for a 100 MB
    /// interpreter), later loads map the cached artifact.
    pub fn load_reactor(&self, reactor: &Reactor) -> Result<Guest, SandboxError> {
        let engine = &self.inner.engine;
        let max_memory = self.inner.config.max_memory_bytes;
        let mut h = crate::cache::Fnv(0xcbf2_9ce4_8422_2325);
        {
            use std::hash::Hash;
            "reactor".hash(&mut h);
            reactor.identity.hash(&mut h);
            reactor.init.hash(&mut h);
            reactor.prepare.map(|p| p.name).hash(&mut h);
            for d in &reactor.dirs {
                d.guest.hash(&mut h);
            }
        }
        let identity = std::hash::Hasher::finish(&h);
        let module = self
            .inner
            .cache
            .module_keyed(engine, &reactor.name, identity, || {
                snapshot_reactor(
                    &startup_engine(self.inner.config.max_wasm_stack)?,
                    max_memory,
                    reactor,
                )
            })?;
        let load_err = |message: String| SandboxError::Load {
            name: reactor.name.clone(),
            message,
        };
        for export in ["host_alloc", "turn", "memory"] {
            if module.get_export(export).is_none() {
                return Err(load_err(format!(
                    "it exports no `{export}` (a reactor guest needs host_alloc, turn and memory)"
                )));
            }
        }
        let pre = self
            .inner
            .linker
            .instantiate_pre(&module)
            .map_err(|e| load_err(format!("it cannot be linked: {}", chain(&e))))?;
        Ok(Guest {
            name: reactor.name.clone(),
            pre,
            sandbox: self.clone(),
            entry: Entry::Turn(Arc::from(reactor.entry.as_bytes())),
            dirs: Arc::from(reactor.dirs.clone()),
        })
    }
}

/// How a run enters a guest.
#[derive(Clone)]
enum Entry {
    /// A WASI command: `_start`.
    Command,
    /// A reactor: `turn` with this source.
    Turn(Arc<[u8]>),
}

/// One run's input and bounds.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    /// The bytes on the guest's stdin.
    pub input: &'a [u8],
    /// The call's limits: `max_fuel`, `max_memory_bytes`, `timeout_ms`, `max_output_bytes` (stdout cap),
    /// `max_input_bytes`.
    pub limits: Limits,
    /// Seeds the guest's random source.
    pub seed: u64,
    /// Stops the guest (at its next epoch check) when set.
    pub cancel: Option<CancelToken>,
    /// Directories the operator allows this guest.
    pub grants: Grants,
}

impl<'a> Run<'a> {
    /// A run of `input` under `limits` with seed 0, no cancellation and no grants.
    pub fn new(input: &'a [u8], limits: Limits) -> Self {
        Run {
            input,
            limits,
            seed: 0,
            cancel: None,
            grants: Grants::default(),
        }
    }
}

impl<'a> Run<'a> {
    /// A run for a tool call under `limits`, with the call's seed and cancel token and no grants.
    pub fn for_call(input: &'a [u8], limits: Limits, ctx: &CallContext) -> Self {
        Run {
            input,
            limits,
            seed: ctx.seed,
            cancel: Some(ctx.cancel.clone()),
            grants: Grants::default(),
        }
    }
}

/// What a run or a turn consumed, whether it succeeded or failed (`None` when it never started).
pub fn usage_of(result: &Result<Outcome, SandboxError>) -> Option<Usage> {
    result
        .as_ref()
        .map_or_else(SandboxError::usage, |o| Some(o.usage))
}

/// What a run that exited with status 0 produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Its stdout, up to the cap.
    pub stdout: Vec<u8>,
    /// Its stderr, up to the cap.
    pub stderr: Vec<u8>,
    /// Whether stdout or stderr was cut at its cap.
    pub truncated: bool,
    /// What it consumed.
    pub usage: Usage,
}

/// The least cap on a guest's stderr (also the message of a failed run).
const STDERR_CAP: usize = 64 << 10;

/// A run's stderr cap: a guest that reports on stdout may pass its program's stderr through as it
/// comes (the Python guest does), so stderr may hold as much as stdout.
fn stderr_cap(limits: &Limits) -> usize {
    STDERR_CAP.max(usize::try_from(limits.max_output_bytes).unwrap_or(usize::MAX))
}

/// A compiled guest, pre-instantiated against WASI: running it only creates a store and an instance.
#[derive(Clone)]
pub struct Guest {
    name: String,
    pre: InstancePre<State>,
    sandbox: Sandbox,
    entry: Entry,
    /// A reactor's read-only directories, preopened first and in this order at every run.
    dirs: Arc<[ReadOnlyDir]>,
}

impl std::fmt::Debug for Guest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guest").field("name", &self.name).finish()
    }
}

impl Guest {
    /// The guest's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// [`Guest::run`], adding what the run consumed to `usage` whether it succeeded or failed.
    pub fn run_recorded(&self, run: &Run<'_>, usage: &UsageSlot) -> Result<Outcome, SandboxError> {
        let result = self.run(run);
        if let Some(u) = usage_of(&result) {
            usage.record(u);
        }
        result
    }

    /// Runs the guest once in a fresh instance. Waits for a pool slot first; the deadline starts when the
    /// guest does. Exit status 0 is an [`Outcome`]; anything else is a [`SandboxError`].
    pub fn run(&self, run: &Run<'_>) -> Result<Outcome, SandboxError> {
        check_input(run)?;
        on_guest_stack(&self.sandbox, 1, || self.run_here(run, None, None))
    }

    /// Runs the guest once on the slot `reserved` for it, with `door` answering its `host::call`s (a reactor
    /// guest asks with `_host.call`). Otherwise as [`Guest::run`].
    pub fn run_with_door(
        &self,
        run: &Run<'_>,
        reserved: Reserved,
        door: Box<dyn crate::reactor::Door>,
    ) -> Result<Outcome, SandboxError> {
        check_input(run)?;
        // The door runs the other instance's turns on this thread, on top of this guest's stack.
        on_guest_stack(&self.sandbox, 2, move || {
            self.run_here(run, Some(reserved), Some(door))
        })
    }

    fn run_here(
        &self,
        run: &Run<'_>,
        reserved: Option<Reserved>,
        door: Option<Box<dyn crate::reactor::Door>>,
    ) -> Result<Outcome, SandboxError> {
        let inner = &self.sandbox.inner;
        let _slot = match reserved {
            Some(r) => r.0,
            None => {
                if !inner.slots.take(run.cancel.as_ref()) {
                    return Err(SandboxError::Cancelled {
                        usage: Usage::default(),
                        printed: Box::default(),
                    });
                }
                OwnedSlot {
                    inner: inner.clone(),
                    session: false,
                }
            }
        };
        let start = Instant::now();
        let (mut store, stdout, stderr, scratch) = self.new_store(run)?;
        store.data_mut().door = door;
        arm(&mut store, run, start)?;
        let mut memory = None;
        let result = self.pre.instantiate(&mut store).and_then(|instance| {
            memory = instance.get_memory(&mut store, "memory");
            match &self.entry {
                Entry::Command => instance
                    .get_typed_func::<(), ()>(&mut store, "_start")?
                    .call(&mut store, ()),
                Entry::Turn(source) => {
                    exit_status(crate::reactor::turn(&mut store, &instance, source)?)
                }
            }
        });
        let done = self.finish(result, &store, memory, &stdout, &stderr, &run.limits, start);
        drop(store);
        drop(scratch);
        done
    }

    /// A store for one run (or a session): sealed WASI with the run's seed and stdin, capped stdout and
    /// stderr, the reactor's read-only folders then the run's grants, the memory limiter and the fuel hook.
    #[allow(clippy::type_complexity)]
    fn new_store(
        &self,
        run: &Run<'_>,
    ) -> Result<
        (
            Store<State>,
            CappedPipe,
            CappedPipe,
            Option<crate::manifest::Scratch>,
        ),
        SandboxError,
    > {
        let limits = &run.limits;
        let stdout =
            CappedPipe::new(usize::try_from(limits.max_output_bytes).unwrap_or(usize::MAX));
        let stderr = CappedPipe::new(stderr_cap(limits));
        let (mut wasi, time) = sealed_wasi(run.seed);
        wasi.stdin(MemoryInputPipe::new(run.input.to_vec()))
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .arg(&self.name);
        open_dirs(&mut wasi, &self.dirs).map_err(|e| SandboxError::Internal(chain(&e)))?;
        let scratch = run.grants.open(&mut wasi)?;
        let mut store = Store::new(
            &self.sandbox.inner.engine,
            State {
                wasi: wasi.build_p1(),
                limiter: Limiter::new(limits.max_memory_bytes),
                output: Some((stdout.clone(), stderr.clone())),
                charged_output: 0,
                time,
                virtual_deadline_ns: None,
                door: None,
            },
        );
        store.limiter(|s| &mut s.limiter);
        store.call_hook(charge_host_call);
        Ok((store, stdout, stderr, scratch))
    }

    /// What a run that ended with `result` produced, or the error it is.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        result: wasmtime::Result<()>,
        store: &Store<State>,
        memory: Option<wasmtime::Memory>,
        stdout: &CappedPipe,
        stderr: &CappedPipe,
        limits: &Limits,
        start: Instant,
    ) -> Result<Outcome, SandboxError> {
        let fuel_left = store.get_fuel().unwrap_or(0);
        let usage = Usage {
            fuel: limits.max_fuel.saturating_sub(fuel_left),
            peak_memory_bytes: store.data().limiter.peak as u64,
            wall_us: start.elapsed().as_micros() as u64,
            output_bytes: stdout.total().saturating_add(stderr.total()),
        };
        // A failed run's output still in the guest's own buffers is part of what it printed.
        let failed = match &result {
            Ok(()) => false,
            Err(e) => e.downcast_ref::<I32Exit>().is_none_or(|exit| exit.0 != 0),
        };
        let memory = memory.map(|m| m.data(store));
        let out = unbuffer(stdout.take(), memory, failed);
        let err = unbuffer(stderr.take(), memory, failed);
        let refused = store.data().limiter.refused;
        let printed = |out: Captured, err: Captured| {
            Box::new(Printed {
                stdout: out.bytes,
                stderr: err.bytes,
            })
        };
        let status = match result {
            Ok(()) => 0,
            Err(e) => match e.downcast_ref::<I32Exit>() {
                Some(exit) => exit.0,
                None => {
                    let text = stderr_text(&err.bytes);
                    let printed = printed(out, err);
                    return Err(self.classify(&e, refused, limits, &text, usage, printed));
                }
            },
        };
        if status != 0 {
            if refused {
                return Err(SandboxError::OutOfMemory {
                    limit: limits.max_memory_bytes,
                    usage,
                    printed: printed(out, err),
                });
            }
            let text = stderr_text(&err.bytes);
            let message = if text.is_empty() {
                format!("the guest `{}` exited with status {status}", self.name)
            } else {
                text
            };
            return Err(SandboxError::Guest {
                message,
                usage,
                printed: printed(out, err),
            });
        }
        Ok(Outcome {
            truncated: out.truncated() || err.truncated(),
            stdout: out.bytes,
            stderr: err.bytes,
            usage,
        })
    }

    /// Opens a [`Session`]: one instance of this reactor guest kept across turns, holding one of the
    /// `max_sessions` session slots until it is dropped (waiting for one when all are held). `run` gives the seed and the memory limit; its input is not used.
    pub fn open_session(&self, run: &Run<'_>) -> Result<Session, SandboxError> {
        self.reactor_only()?;
        let inner = &self.sandbox.inner;
        if inner.config.max_sessions == 0 {
            return Err(SandboxError::Internal(
                "sessions are disabled (max_sessions = 0)".into(),
            ));
        }
        if !inner.session_slots.take(run.cancel.as_ref()) {
            return Err(SandboxError::Cancelled {
                usage: Usage::default(),
                printed: Box::default(),
            });
        }
        let slot = OwnedSlot {
            inner: inner.clone(),
            session: true,
        };
        self.session_on(run, slot)
    }

    /// Opens a [`Session`] for the turns of one call, on a run slot (not a session slot), with a second run
    /// slot reserved for one run beside it ([`Guest::run_with_door`]): both are taken together, so calls that
    /// each need a pair cannot deadlock holding one half each. code_test's program interpreter is such a
    /// session, and the test's interpreter the run beside it.
    pub fn open_pair(&self, run: &Run<'_>) -> Result<(Session, Reserved), SandboxError> {
        self.reactor_only()?;
        let inner = &self.sandbox.inner;
        if inner.config.pool_size < 2 {
            return Err(SandboxError::Internal(
                "a pair of instances needs a pool of at least 2 (pool_size)".into(),
            ));
        }
        if !inner.slots.take_many(2, run.cancel.as_ref()) {
            return Err(SandboxError::Cancelled {
                usage: Usage::default(),
                printed: Box::default(),
            });
        }
        let slot = |session| OwnedSlot {
            inner: inner.clone(),
            session,
        };
        let reserved = Reserved(slot(false));
        let session = self.session_on(run, slot(false))?;
        Ok((session, reserved))
    }

    /// Only a reactor keeps an instance across turns.
    fn reactor_only(&self) -> Result<(), SandboxError> {
        if matches!(self.entry, Entry::Command) {
            return Err(SandboxError::Internal(format!(
                "`{}` is a WASI command: only reactor guests keep sessions",
                self.name
            )));
        }
        Ok(())
    }

    fn session_on(&self, run: &Run<'_>, slot: OwnedSlot) -> Result<Session, SandboxError> {
        let (mut store, stdout, stderr, scratch) = self.new_store(run)?;
        arm(&mut store, run, Instant::now())?;
        let instance = self.pre.instantiate(&mut store).map_err(|e| {
            self.classify(&e, false, &run.limits, "", Usage::default(), Box::default())
        })?;
        Ok(Session {
            guest: self.clone(),
            store,
            instance,
            stdout,
            stderr,
            _scratch: scratch,
            _slot: slot,
        })
    }
    /// Turns a trap or a host error into the error the caller sees.
    fn classify(
        &self,
        e: &wasmtime::Error,
        refused: bool,
        limits: &Limits,
        stderr: &str,
        usage: Usage,
        printed: Box<Printed>,
    ) -> SandboxError {
        match e.downcast_ref::<Stop>() {
            Some(Stop::Deadline) => {
                return SandboxError::Timeout {
                    timeout_ms: limits.timeout_ms,
                    usage,
                    printed,
                }
            }
            Some(Stop::Cancelled) => return SandboxError::Cancelled { usage, printed },
            None => {}
        }
        match e.downcast_ref::<Trap>() {
            Some(Trap::OutOfFuel) => {
                return SandboxError::OutOfFuel {
                    fuel: limits.max_fuel,
                    usage,
                    printed,
                }
            }
            Some(Trap::StackOverflow) => return SandboxError::StackOverflow { usage, printed },
            _ => {}
        }
        // A guest whose allocation was refused usually aborts (a trap) rather than exiting cleanly.
        if refused {
            return SandboxError::OutOfMemory {
                limit: limits.max_memory_bytes,
                usage,
                printed,
            };
        }
        let trap = e
            .downcast_ref::<Trap>()
            .map(|t| t.to_string())
            .unwrap_or_else(|| chain(e));
        let message = if stderr.is_empty() {
            format!("the guest `{}` trapped: {trap}", self.name)
        } else {
            format!(
                "the guest `{}` trapped: {trap}; stderr: {stderr}",
                self.name
            )
        };
        SandboxError::Guest {
            message,
            usage,
            printed,
        }
    }
}

/// A guest's stderr as a message: lossy UTF-8, trimmed.
fn stderr_text(bytes: &[u8]) -> String {
    // The message keeps its old bound when a run's stderr cap is larger (see `stderr_cap`).
    let bytes = &bytes[..bytes.len().min(STDERR_CAP)];
    String::from_utf8_lossy(bytes).trim().to_string()
}

/// A run's input within its `max_input_bytes`.
fn check_input(run: &Run<'_>) -> Result<(), SandboxError> {
    let len = run.input.len() as u64;
    if len > run.limits.max_input_bytes {
        return Err(SandboxError::InputTooLarge {
            len,
            limit: run.limits.max_input_bytes,
        });
    }
    Ok(())
}

/// Runs `f` (which enters `guests` guests, each on top of the one before, as a run with a door does) on this
/// thread when it declared enough stack for them, else on a short-lived thread of the right size.
fn on_guest_stack<T: Send>(
    sandbox: &Sandbox,
    guests: usize,
    f: impl FnOnce() -> Result<T, SandboxError> + Send,
) -> Result<T, SandboxError> {
    let need = guests * (sandbox.inner.config.max_wasm_stack + STACK_MARGIN);
    if STACK.with(|s| s.get()) >= need {
        return f();
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("beaker-guest".into())
            .stack_size(need + STACK_MARGIN)
            .spawn_scoped(s, || {
                declare_thread_stack(need + STACK_MARGIN);
                f()
            })
            .map_err(|e| SandboxError::Internal(format!("cannot start a guest thread: {e}")))?
            .join()
            .unwrap_or_else(|_| Err(SandboxError::Internal("the guest thread panicked".into())))
    })
}

/// A reactor's `turn` status as a run result: 0 is a normal end, anything else an exit with that status.
fn exit_status(status: i32) -> wasmtime::Result<()> {
    match status {
        0 => Ok(()),
        status => Err(wasmtime::Error::new(I32Exit(status))),
    }
}

/// Sets a store's fuel and arms its deadline and cancellation for one run starting at `start`.
fn arm(store: &mut Store<State>, run: &Run<'_>, start: Instant) -> Result<(), SandboxError> {
    let limits = &run.limits;
    store
        .set_fuel(limits.max_fuel)
        .map_err(|e| SandboxError::Internal(chain(&e)))?;
    let deadline = start + Duration::from_millis(limits.timeout_ms);
    let state = store.data_mut();
    state.virtual_deadline_ns = Some(
        state
            .time
            .monotonic_ns()
            .saturating_add(limits.timeout_ms.saturating_mul(1_000_000)),
    );
    let cancel = run.cancel.clone();
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(move |_| {
        if cancel
            .as_ref()
            .is_some_and(|c| c.reason() == Some(CancelReason::Cancelled))
        {
            return Err(wasmtime::Error::new(Stop::Cancelled));
        }
        if Instant::now() >= deadline
            || cancel
                .as_ref()
                .is_some_and(|c| c.reason() == Some(CancelReason::Timeout))
        {
            return Err(wasmtime::Error::new(Stop::Deadline));
        }
        Ok(UpdateDeadline::Continue(1))
    });
    Ok(())
}

/// One instance of a reactor guest kept across turns, like a notebook kernel: what a turn defines, the next
/// sees. Each turn has its own limits (fuel, deadline, output caps, the memory limit for growth); the
/// instance holds one of the `max_sessions` slots until the session is dropped. After a turn that failed
/// for any reason but a normal exception report (a trap, a limit, a cancellation), the interpreter's state
/// is not trustworthy: callers end the session.
pub struct Session {
    guest: Guest,
    store: Store<State>,
    instance: wasmtime::Instance,
    stdout: CappedPipe,
    stderr: CappedPipe,
    _scratch: Option<crate::manifest::Scratch>,
    _slot: OwnedSlot,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("guest", &self.guest.name)
            .finish()
    }
}

impl Session {
    /// Runs `source` in the session's interpreter under `run`'s limits (its input is not used: a reactor's
    /// turn takes what it needs from `source`).
    pub fn turn(&mut self, source: &[u8], run: &Run<'_>) -> Result<Outcome, SandboxError> {
        let sandbox = self.guest.sandbox.clone();
        on_guest_stack(&sandbox, 1, || self.turn_here(source, run))
    }

    fn turn_here(&mut self, source: &[u8], run: &Run<'_>) -> Result<Outcome, SandboxError> {
        let limits = &run.limits;
        self.stdout
            .reset(usize::try_from(limits.max_output_bytes).unwrap_or(usize::MAX));
        self.stderr.reset(stderr_cap(limits));
        {
            let state = self.store.data_mut();
            state.charged_output = 0;
            state.limiter.set_limit(limits.max_memory_bytes);
        }
        let start = Instant::now();
        arm(&mut self.store, run, start)?;
        let result =
            crate::reactor::turn(&mut self.store, &self.instance, source).and_then(exit_status);
        let memory = self.instance.get_memory(&mut self.store, "memory");
        self.guest.finish(
            result,
            &self.store,
            memory,
            &self.stdout,
            &self.stderr,
            limits,
            start,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::reset_policy;
    use wasmtime::Enabled;

    #[test]
    fn slots_are_reset_from_the_page_map_only_without_swap() {
        let none = include_str!("../testdata/proc_swaps_none.txt");
        assert!(matches!(reset_policy(Some(none)), Enabled::Auto));
        for with_swap in [
            include_str!("../testdata/proc_swaps_file.txt"),
            include_str!("../testdata/proc_swaps_zram.txt"),
        ] {
            assert!(matches!(reset_policy(Some(with_swap)), Enabled::No));
        }
        // An unreadable or unrecognised /proc/swaps may hide a swap area.
        assert!(matches!(reset_policy(None), Enabled::No));
        assert!(matches!(reset_policy(Some("")), Enabled::No));
    }
}
