//! Pre-initialisation with wizer: a guest's `wizer.initialize` runs once in a sealed store and the memory
//! it leaves becomes the module's image.

use crate::store::{sealed_wasi, Limiter, State};

/// The export wizer runs before it snapshots a module.
pub(crate) const INIT_EXPORT: &str = "wizer.initialize";

/// Runs the module's `wizer.initialize` in a sandboxed instance (no stdio, virtual clock, fixed random
/// seed) and returns the snapshot: a module whose memory image is the initialised state.
pub(crate) fn snapshot(
    engine: &wasmtime::Engine,
    max_memory_bytes: u64,
    wasm: &[u8],
) -> wasmtime::Result<Vec<u8>> {
    let mut wizer = wasmtime_wizer::Wizer::new();
    wizer.init_func(INIT_EXPORT);
    let mut store = snapshot_store(engine, max_memory_bytes, sealed_wasi(0))?;
    let mut linker = wasmtime::Linker::<State>::new(engine);
    wasmtime_wasi::p1::add_to_linker_async(&mut linker, |s| &mut s.wasi)?;
    crate::sleep::add_virtual_sleep(&mut linker)?;
    futures_executor::block_on(wizer.run(&mut store, wasm, async |store, module| {
        linker.instantiate_async(store, module).await
    }))
}

/// The store a snapshot's start-up runs in: `wasi` (sealed: no host stdio, virtual clocks, seed 0), the
/// sandbox's memory cap, unlimited fuel and no deadline (start-up is trusted code, run once).
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
    store.set_fuel(u64::MAX)?;
    store.set_epoch_deadline(u64::MAX / 2);
    Ok(store)
}
