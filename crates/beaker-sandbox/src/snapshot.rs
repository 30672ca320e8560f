//! Pre-initialisation with wizer: a guest's `wizer.initialize` runs once in a sealed store and the memory
//! it leaves becomes the module's image.

use crate::store::{sealed_wasi, Limiter, State};

/// The export wizer runs before it snapshots a module.
pub(crate) const INIT_EXPORT: &str = "wizer.initialize";

/// The engine a snapshot's start-up code runs in: the sandbox's wasm features and stack, compiled without
/// Cranelift's optimisations and without fuel or epoch checks.
///
/// The instrumented module runs once, its trusted start-up code (importing numpy, scipy, sympy and pandas for
/// CPython) and is thrown away; only its memory is kept, and the snapshot is then compiled, optimised and
/// metered, by the sandbox's own engine. Compiling 100 MB of CPython for that one run was about half of a
/// snapshot's cost (`beaker compile`, docs/PERFORMANCE.md).
pub(crate) fn startup_engine(max_wasm_stack: usize) -> wasmtime::Result<wasmtime::Engine> {
    let mut cfg = wasmtime::Config::new();
    cfg.wasm_exceptions(true)
        .max_wasm_stack(max_wasm_stack)
        .async_stack_size(max_wasm_stack + crate::sandbox::STACK_MARGIN)
        .cranelift_opt_level(wasmtime::OptLevel::None);
    wasmtime::Engine::new(&cfg)
}

/// Runs the module's `wizer.initialize` in a sandboxed instance (no stdio, virtual clock, fixed random
/// seed) on `engine` (a [`startup_engine`]) and returns the snapshot: a module whose memory image is the
/// initialised state.
pub(crate) fn snapshot(
    engine: &wasmtime::Engine,
    max_memory_bytes: u64,
    wasm: &[u8],
) -> wasmtime::Result<Vec<u8>> {
    let mut wizer = wasmtime_wizer::Wizer::new();
    wizer.init_func(INIT_EXPORT);
    let (cx, instrumented) = wizer.instrument(wasm)?;
    let module = wasmtime::Module::new(engine, &instrumented)?;
    drop(instrumented);
    let mut store = snapshot_store(engine, max_memory_bytes, sealed_wasi(0))?;
    let mut linker = wasmtime::Linker::<State>::new(engine);
    wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |s| &mut s.wasi)?;
    crate::sleep::add_virtual_sleep(&mut linker)?;
    let instance = linker.instantiate(&mut store, &module)?;
    // As wizer's own driver does: a reactor's `_initialize` first, then the init function.
    if let Ok(init) = instance.get_typed_func::<(), ()>(&mut store, "_initialize") {
        init.call(&mut store, ())?;
    }
    instance
        .get_typed_func::<(), ()>(&mut store, INIT_EXPORT)?
        .call(&mut store, ())?;
    futures_executor::block_on(wizer.snapshot(
        &cx,
        &mut Initialised {
            store: &mut store,
            instance,
        },
    ))
}

/// An initialised instance, as wizer's snapshot reads it: its globals and memories by export name.
///
/// This is wizer's own `WasmtimeWizer` (its `wasmtime` feature), written here so that the feature, which turns
/// on wasmtime's module cache (zstd), async support and value formats (wasm-wave) that nothing here uses, stays
/// off: a cold build compiles about a minute less.
pub(crate) struct Initialised<'a> {
    pub(crate) store: &'a mut wasmtime::Store<State>,
    pub(crate) instance: wasmtime::Instance,
}

impl wasmtime_wizer::InstanceState for Initialised<'_> {
    async fn global_get(
        &mut self,
        name: &str,
        _: wasmtime_wizer::ValType,
    ) -> wasmtime_wizer::SnapshotVal {
        use wasmtime_wizer::SnapshotVal;
        // The trait's contract: the names are the exports wizer's instrumentation added, so a missing one is
        // wizer's bug, not the guest's doing, and panics (in start-up, which runs once).
        let global = self
            .instance
            .get_global(&mut *self.store, name)
            .expect("wizer exports every global it snapshots");
        match global.get(&mut *self.store) {
            wasmtime::Val::I32(x) => SnapshotVal::I32(x),
            wasmtime::Val::I64(x) => SnapshotVal::I64(x),
            wasmtime::Val::F32(x) => SnapshotVal::F32(x),
            wasmtime::Val::F64(x) => SnapshotVal::F64(x),
            wasmtime::Val::V128(x) => SnapshotVal::V128(x.as_u128()),
            other => panic!("wizer snapshots only numeric globals, not {other:?}"),
        }
    }

    async fn memory_contents(&mut self, name: &str, contents: impl FnOnce(&[u8]) + Send) {
        let memory = self
            .instance
            .get_memory(&mut *self.store, name)
            .expect("wizer exports every memory it snapshots");
        contents(memory.data(&*self.store))
    }
}

/// The store a snapshot's start-up runs in, on a [`startup_engine`]: `wasi` (sealed: no host stdio, virtual
/// clocks, seed 0) and the sandbox's memory cap; no fuel and no deadline (start-up is trusted code, run once).
pub(crate) fn snapshot_store(
    engine: &wasmtime::Engine,
    max_memory_bytes: u64,
    sealed: (wasmtime_wasi::WasiCtxBuilder, crate::clock::VirtualTime),
) -> wasmtime::Result<wasmtime::Store<State>> {
    let (mut wasi, time) = sealed;
    let mut store = wasmtime::Store::new(
        engine,
        State {
            wasi: wasi.build_p1(),
            limiter: Limiter::new(max_memory_bytes),
            output: None,
            charged_output: 0,
            time,
            virtual_deadline_ns: None,
            door: None,
        },
    );
    store.limiter(|s| &mut s.limiter);
    Ok(store)
}
