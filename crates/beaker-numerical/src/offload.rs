//! Long dense computations on a helper thread that a call can leave behind.
//!
//! A decomposition in nalgebra or faer cannot check for cancellation inside itself: an SVD of a 1500 × 1500
//! matrix runs for seconds whatever the call's timeout. Run on the worker, it would hold the worker, and every
//! call queued behind it, until it ends. From [`OFFLOAD_FROM`] up, the computation runs on a helper thread and
//! the worker waits for its result, the call's deadline or its cancellation, whichever comes first: a call that
//! runs out of time is answered and gives its worker back on time, and the helper finishes alone, its result
//! dropped (code inside it that polls [`CallContext::checkpoint`] stops at once). At most one helper runs per
//! core ([`helpers`]), so abandoned ones cannot pile up; a call that finds none free waits for one until its own
//! deadline.

use beaker_core::{CallContext, ErrorKind, ToolError};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// The work (the product of a matrix's dimensions, `m · n · min(m, n)`, or what an operation counts the same
/// way) from which a computation runs on a helper: 100³ is a few milliseconds of SVD, a thread costs tens of
/// microseconds.
pub(crate) const OFFLOAD_FROM: f64 = 1e6;

/// How often a waiting worker looks at its call's cancellation.
const POLL: Duration = Duration::from_millis(2);

/// Helpers running now, abandoned ones included.
static BUSY: AtomicUsize = AtomicUsize::new(0);

/// The most helpers at once: one per core.
fn helpers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Frees a helper's place when its thread ends, however it ends.
struct Release;

impl Drop for Release {
    fn drop(&mut self) {
        BUSY.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Runs `f` (given a clone of `ctx`) on a helper when `work` is at least [`OFFLOAD_FROM`], else here; either way
/// the call's deadline and cancellation answer it on time.
pub(crate) fn run<T: Send + 'static>(
    ctx: &CallContext,
    work: f64,
    f: impl FnOnce(&CallContext) -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    if work < OFFLOAD_FROM {
        return f(ctx);
    }
    let max = helpers();
    loop {
        let n = BUSY.load(Ordering::Acquire);
        if n < max {
            if BUSY
                .compare_exchange(n, n + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                break;
            }
            continue;
        }
        ctx.checkpoint()?;
        std::thread::sleep(POLL);
    }
    let release = Release;
    let (tx, rx) = mpsc::sync_channel(1);
    let inner = ctx.clone();
    let job = move || {
        let _release = release;
        let out = catch_unwind(AssertUnwindSafe(|| f(&inner)));
        // The worker may have stopped waiting: the result is dropped.
        let _ = tx.send(out);
    };
    if let Err(e) = std::thread::Builder::new()
        .name("beaker-numerical-helper".into())
        .stack_size(8 << 20)
        .spawn(job)
    {
        // The closure (and its `Release`) is dropped with the error: the place is free again.
        return Err(ToolError::new(
            ErrorKind::Internal,
            format!("no helper thread for the computation: {e}"),
        ));
    }
    loop {
        match rx.recv_timeout(POLL) {
            Ok(Ok(result)) => return result,
            // The engine turns a panic into an `internal` error, as if it had happened on the worker.
            Ok(Err(panic)) => resume_unwind(panic),
            Err(mpsc::RecvTimeoutError::Timeout) => ctx.checkpoint()?,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(ToolError::new(
                    ErrorKind::Internal,
                    "the helper thread ended without a result",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use beaker_core::{CancelReason, Limits};
    use std::time::Instant;

    #[test]
    fn small_work_runs_here_and_large_work_on_a_helper() {
        let ctx = CallContext::new(Limits::default());
        let here = std::thread::current().id();
        assert_eq!(
            run(&ctx, 10.0, move |_| Ok(std::thread::current().id())).ok(),
            Some(here)
        );
        let there = run(&ctx, OFFLOAD_FROM, |_| Ok(std::thread::current().id()));
        assert!(there.is_ok_and(|id| id != here));
    }

    #[test]
    fn a_cancelled_call_is_answered_while_its_helper_runs_on() {
        let ctx = CallContext::new(Limits::default());
        let (started_tx, started) = mpsc::channel();
        let (finish, finish_rx) = mpsc::channel::<()>();
        let canceller = ctx.cancel.clone();
        let t = Instant::now();
        std::thread::spawn(move || {
            let _ = started.recv();
            canceller.cancel(CancelReason::Timeout);
        });
        let out = run(&ctx, OFFLOAD_FROM, move |_| {
            let _ = started_tx.send(());
            // Stands for a decomposition that cannot be interrupted: it ends when the test lets it.
            let _ = finish_rx.recv();
            Ok(())
        });
        assert_eq!(out.map_err(|e| e.kind), Err(ErrorKind::Timeout));
        assert!(t.elapsed() < Duration::from_secs(10));
        drop(finish);
    }
}
