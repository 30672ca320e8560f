//! `poll_oneoff` on virtual time: a guest's sleep returns at once and moves its clocks forward.
//!
//! wasmtime-wasi's own `poll_oneoff` waits on the host's clock, so `time.sleep(5)` held a worker for five real
//! seconds while the guest's virtual clocks (`clock.rs`) saw four microseconds pass: the worst of both. Here a
//! clock subscription advances the run's virtual time to its deadline and fires; file-descriptor subscriptions
//! are ready at once (a guest's stdio is in-memory pipes, and it has no sockets). Sleeping is then instant,
//! deterministic, and visible to the guest's clocks; a loop of sleeps still ends on fuel (every host call is
//! charged) or the deadline. A sleep that would carry virtual time past the run's timeout ends the run as a
//! timeout at that point, as the real process would have been stopped (`time.sleep(3)` under a 1 s limit).

use crate::sandbox::Stop;
use crate::store::State;
use wasmtime::{Caller, Extern, Linker};

/// `subscription` and `event` sizes and fields in WASI preview 1.
const SUBSCRIPTION: usize = 48;
const EVENT: usize = 32;
const TAG_CLOCK: u8 = 0;
const CLOCK_REALTIME: u32 = 0;
const ABSTIME: u16 = 1;
const ERRNO_SUCCESS: i32 = 0;
const ERRNO_FAULT: i32 = 21;
const ERRNO_INVAL: i32 = 28;

/// Replaces wasmtime-wasi's `poll_oneoff` in `linker` with the virtual-time one.
pub(crate) fn add_virtual_sleep(linker: &mut Linker<State>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    linker.func_wrap(
        "wasi_snapshot_preview1",
        "poll_oneoff",
        |mut caller: Caller<'_, State>,
         subs: i32,
         events: i32,
         n: i32,
         nevents: i32|
         -> wasmtime::Result<i32> {
            poll_oneoff(
                &mut caller,
                subs as u32,
                events as u32,
                n as u32,
                nevents as u32,
            )
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// One subscription, read from guest memory.
struct Subscription {
    userdata: [u8; 8],
    tag: u8,
    /// For a clock: nanoseconds from now until it fires.
    wait_ns: u64,
}

fn field<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[at..at + N]);
    out
}

fn poll_oneoff(
    caller: &mut Caller<'_, State>,
    subs: u32,
    events: u32,
    n: u32,
    nevents: u32,
) -> wasmtime::Result<i32> {
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else {
        return Ok(ERRNO_FAULT);
    };
    if n == 0 {
        return Ok(ERRNO_INVAL);
    }
    let deadline = caller.data().virtual_deadline_ns;
    let time = caller.data().time.clone();
    let (mono, wall) = (time.monotonic_ns(), time.wall_ns());
    let data = memory.data_mut(&mut *caller);
    let n = n as usize;
    let (subs, events, nevents) = (subs as usize, events as usize, nevents as usize);
    let Some(raw) = subs
        .checked_add(n * SUBSCRIPTION)
        .and_then(|end| data.get(subs..end))
    else {
        return Ok(ERRNO_FAULT);
    };
    let mut list = Vec::with_capacity(n);
    for i in 0..n {
        let s = &raw[i * SUBSCRIPTION..(i + 1) * SUBSCRIPTION];
        let tag = s[8];
        let mut wait_ns = 0;
        if tag == TAG_CLOCK {
            let id = u32::from_le_bytes(field(s, 16));
            let timeout = u64::from_le_bytes(field(s, 24));
            let flags = u16::from_le_bytes(field(s, 40));
            wait_ns = if flags & ABSTIME != 0 {
                let now = if id == CLOCK_REALTIME { wall } else { mono };
                timeout.saturating_sub(now)
            } else {
                timeout
            };
        }
        list.push(Subscription {
            userdata: field(s, 0),
            tag,
            wait_ns,
        });
    }
    // Descriptors are always ready; otherwise the earliest clock fires, after virtual time reaches it.
    let any_fd = list.iter().any(|s| s.tag != TAG_CLOCK);
    let earliest = list
        .iter()
        .filter(|s| s.tag == TAG_CLOCK)
        .map(|s| s.wait_ns)
        .min()
        .unwrap_or(0);
    let fired: Vec<&Subscription> = list
        .iter()
        .filter(|s| {
            if s.tag == TAG_CLOCK {
                s.wait_ns == 0 || (!any_fd && s.wait_ns == earliest)
            } else {
                true
            }
        })
        .collect();
    let Some(out) = events
        .checked_add(fired.len() * EVENT)
        .and_then(|end| data.get_mut(events..end))
    else {
        return Ok(ERRNO_FAULT);
    };
    for (i, s) in fired.iter().enumerate() {
        let e = &mut out[i * EVENT..(i + 1) * EVENT];
        e.fill(0);
        e[0..8].copy_from_slice(&s.userdata);
        // error 0 (success) at 8..10; the event type is the subscription's tag.
        e[10] = s.tag;
    }
    let Some(count) = data.get_mut(nevents..nevents + 4) else {
        return Ok(ERRNO_FAULT);
    };
    count.copy_from_slice(&(fired.len() as u32).to_le_bytes());
    if !any_fd {
        if let Some(d) = deadline.filter(|&d| mono.saturating_add(earliest) > d) {
            time.advance_ns(d.saturating_sub(mono));
            return Err(wasmtime::Error::new(Stop::Deadline));
        }
        time.advance_ns(earliest);
    }
    Ok(ERRNO_SUCCESS)
}
