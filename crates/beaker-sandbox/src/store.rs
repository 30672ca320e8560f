//! What every store carries: the guest's WASI context sealed off from the host, its memory limiter, and
//! the fuel charged for host calls and output.

use crate::clock::{MonotonicClock, VirtualTime, WallClock};
use crate::pipe::CappedPipe;
use rand::SeedableRng;
use wasmtime::{CallHook, ResourceLimiter, Trap};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::WasiCtxBuilder;

/// The per-run state a store carries: the guest's WASI context and its memory accounting.
pub(crate) struct State {
    pub(crate) wasi: WasiP1Ctx,
    pub(crate) limiter: Limiter,
    /// The run's stdout and stderr and how many of their bytes have been charged as fuel.
    pub(crate) output: Option<(CappedPipe, CappedPipe)>,
    pub(crate) charged_output: u64,
    /// The run's virtual time, which a guest's sleep advances (`sleep.rs`).
    pub(crate) time: VirtualTime,
    /// The virtual time (monotonic ns) at which the run's timeout is reached: a sleep past it ends the run as
    /// a timeout, as the real process's would. `None` while the trusted start-up runs.
    pub(crate) virtual_deadline_ns: Option<u64>,
    /// What answers the guest's `host::call` (the door); `None` keeps it closed.
    pub(crate) door: Option<Box<dyn crate::reactor::Door>>,
}

/// Fuel charged for each call from the guest into the host (a WASI function): host work burns no guest
/// instructions, so without it a guest looping on cheap host calls would run until the wall-clock deadline
/// instead of its deterministic fuel budget.
const HOST_CALL_FUEL: u64 = 1_000;
/// Fuel charged per byte the guest writes to stdout or stderr (kept or dropped at the cap).
const OUTPUT_BYTE_FUEL: u64 = 1;

/// Charges a host call and the output it wrote against the store's fuel; out of fuel is a trap.
pub(crate) fn charge_host_call(
    mut ctx: wasmtime::StoreContextMut<'_, State>,
    hook: CallHook,
) -> wasmtime::Result<()> {
    if !matches!(hook, CallHook::ReturningFromHost) {
        return Ok(());
    }
    let state = ctx.data_mut();
    let written = state
        .output
        .as_ref()
        .map_or(0, |(o, e)| o.total().saturating_add(e.total()));
    let new_bytes = written.saturating_sub(state.charged_output);
    state.charged_output = written;
    let cost = HOST_CALL_FUEL.saturating_add(new_bytes.saturating_mul(OUTPUT_BYTE_FUEL));
    let fuel = ctx.get_fuel()?;
    if fuel < cost {
        ctx.set_fuel(0)?;
        return Err(wasmtime::Error::new(Trap::OutOfFuel));
    }
    ctx.set_fuel(fuel - cost)
}

/// Caps linear memory and remembers the peak and whether a growth was refused.
pub(crate) struct Limiter {
    limit: usize,
    pub(crate) peak: usize,
    pub(crate) refused: bool,
}

impl Limiter {
    pub(crate) fn new(limit: u64) -> Self {
        Limiter {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            peak: 0,
            refused: false,
        }
    }

    /// A new limit for a session's next turn (memory already held stays; only growth is checked).
    pub(crate) fn set_limit(&mut self, limit: u64) {
        self.limit = usize::try_from(limit).unwrap_or(usize::MAX);
        self.refused = false;
    }
}

/// Table elements a guest may grow to (function tables of big interpreters have tens of thousands).
pub(crate) const MAX_TABLE_ELEMENTS: usize = 1 << 18;

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit {
            self.refused = true;
            return Ok(false);
        }
        self.peak = self.peak.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        1
    }

    fn tables(&self) -> usize {
        4
    }

    fn memories(&self) -> usize {
        1
    }
}

/// A WASI context that sees nothing of the host: no stdio, environment, arguments or directories, virtual
/// clocks, and random sources seeded by `seed`. Runs add their stdio and grants; snapshots use it as is.
pub(crate) fn sealed_wasi(seed: u64) -> (WasiCtxBuilder, VirtualTime) {
    let time = VirtualTime::default();
    let mut wasi = WasiCtxBuilder::new();
    wasi.wall_clock(WallClock(time.clone()))
        .monotonic_clock(MonotonicClock(time.clone()))
        .secure_random(rand_pcg::Pcg64Mcg::seed_from_u64(seed))
        .insecure_random(rand_pcg::Pcg64Mcg::seed_from_u64(seed ^ 0x5eed))
        .insecure_random_seed(u128::from(seed));
    (wasi, time)
}
