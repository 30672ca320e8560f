//! One memory budget for a whole process: every holder of memory that a client can make grow (request bodies,
//! answers waiting for a slow reader, interpreter sessions, sandboxed runs) reserves from it first.

use crate::ToolError;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The bytes a process lets its clients make it hold, shared by every holder; cloning shares it.
///
/// A holder reserves before it takes memory ([`MemoryBudget::try_reserve`]) and the [`Reservation`] gives the
/// bytes back when dropped. A reservation that does not fit is refused with `limit_exceeded` naming the budget,
/// so the caller refuses its request (or waits and retries) instead of growing past it.
///
/// Each reservation says how long it is held ([`Hold`]). What answers waiting for their clients and running
/// calls hold comes back on its own, so a call that would fit once it has waits for that
/// ([`MemoryBudget::reserve_or_wait`]) instead of being refused because a client reads slowly or another call
/// is being answered; what lasts (sessions, request bodies) is never waited for.
#[derive(Clone)]
pub struct MemoryBudget(Arc<Inner>);

struct Inner {
    limit: u64,
    used: AtomicU64,
    /// Of `used`, the bytes held as [`Hold::Answer`].
    answers: AtomicU64,
    /// Of `used`, the bytes held as [`Hold::Call`].
    calls: AtomicU64,
    peak: AtomicU64,
    refused: AtomicU64,
}

/// How long a reservation is held, which says whether others may wait for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// As long as its holder lives (a session's interpreter, a request body being read): nobody waits for it.
    Lasting,
    /// By a running call until it is answered, its deadline at the latest.
    Call,
    /// By an answer until its client reads it.
    Answer,
}

/// What a waiting reservation waits for (see [`MemoryBudget::reserve_or_wait`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitFor {
    /// Answers being read: for what a call reserves while it holds memory already, since running calls may be
    /// waiting for it in turn.
    Answers,
    /// Answers being read and running calls being answered: for a call's first reservation only (it holds
    /// nothing another call waits for, so the wait cannot be circular).
    AnswersAndCalls,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget(Arc::new(Inner {
            limit,
            used: AtomicU64::new(0),
            answers: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }))
    }

    /// A budget that never refuses (a tool run outside a server, a test).
    pub fn unlimited() -> MemoryBudget {
        MemoryBudget::new(u64::MAX)
    }

    /// Its size in bytes.
    pub fn limit(&self) -> u64 {
        self.0.limit
    }

    /// Bytes reserved now.
    pub fn used(&self) -> u64 {
        self.0.used.load(Ordering::Relaxed)
    }

    /// Bytes reserved now by answers waiting for their clients to read them.
    pub fn answers(&self) -> u64 {
        self.0.answers.load(Ordering::Relaxed)
    }

    /// The most bytes reserved at once since it was made.
    pub fn peak(&self) -> u64 {
        self.0.peak.load(Ordering::Relaxed)
    }

    /// Reservations refused since it was made.
    pub fn refused(&self) -> u64 {
        self.0.refused.load(Ordering::Relaxed)
    }

    /// Bytes still free.
    pub fn free(&self) -> u64 {
        self.0.limit.saturating_sub(self.used())
    }

    /// Reserves `bytes` for `what` (named in the refusal) as [`Hold::Lasting`], or refuses with
    /// `limit_exceeded` when they do not fit.
    pub fn try_reserve(&self, bytes: u64, what: &str) -> Result<Reservation, ToolError> {
        self.take(bytes, Hold::Lasting)
            .ok_or_else(|| self.refuse(bytes, what))
    }

    /// Reserves `bytes` for an answer waiting for its client ([`Hold::Answer`]), or refuses with
    /// `limit_exceeded`.
    pub fn try_reserve_answer(&self, bytes: u64, what: &str) -> Result<Reservation, ToolError> {
        self.take(bytes, Hold::Answer)
            .ok_or_else(|| self.refuse(bytes, what))
    }

    /// Reserves `bytes` for `what`, held as `hold`, waiting while they do not fit now but would once what
    /// `wait_for` names is given back, for as long as `keep_waiting` says (a call passes its deadline and its
    /// cancellation). Refused at once when even that would not make room: what else holds the budget may never
    /// give it back.
    pub fn reserve_or_wait(
        &self,
        bytes: u64,
        what: &str,
        hold: Hold,
        wait_for: WaitFor,
        keep_waiting: impl Fn() -> bool,
    ) -> Result<Reservation, ToolError> {
        // Polled, not signalled: waiting is rare, and a wake-up on every answer written would cost every call.
        const POLL: Duration = Duration::from_millis(1);
        let inner = &self.0;
        loop {
            if let Some(r) = self.take(bytes, hold) {
                return Ok(r);
            }
            let passing = match wait_for {
                WaitFor::Answers => self.answers(),
                WaitFor::AnswersAndCalls => self.answers() + inner.calls.load(Ordering::Relaxed),
            };
            let staying = self.used().saturating_sub(passing);
            if staying.saturating_add(bytes) > inner.limit || !keep_waiting() {
                return Err(self.refuse(bytes, what));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Takes `bytes` if they fit.
    fn take(&self, bytes: u64, hold: Hold) -> Option<Reservation> {
        let inner = &self.0;
        let mut used = inner.used.load(Ordering::Relaxed);
        loop {
            let after = used.saturating_add(bytes);
            if after > inner.limit {
                return None;
            }
            match inner
                .used
                .compare_exchange_weak(used, after, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => {
                    inner.peak.fetch_max(after, Ordering::Relaxed);
                    return Some(self.reservation(bytes, hold));
                }
                Err(now) => used = now,
            }
        }
    }

    /// Counts a refusal and words it.
    fn refuse(&self, bytes: u64, what: &str) -> ToolError {
        let inner = &self.0;
        inner.refused.fetch_add(1, Ordering::Relaxed);
        if bytes > inner.limit {
            return ToolError::limit(format!(
                "{what} needs {}, more than the server's whole memory budget ({})",
                Bytes(bytes),
                Bytes(inner.limit)
            ));
        }
        ToolError::limit(format!(
            "the server's memory budget ({}) has {} free; {what} needs {}",
            Bytes(inner.limit),
            Bytes(self.free()),
            Bytes(bytes)
        ))
    }

    /// A reservation of `bytes` already added to `used`.
    fn reservation(&self, bytes: u64, hold: Hold) -> Reservation {
        if let Some(kind) = self.kind(hold) {
            kind.fetch_add(bytes, Ordering::AcqRel);
        }
        Reservation {
            budget: self.clone(),
            bytes,
            hold,
        }
    }

    /// The counter of `hold`'s bytes, if it has one.
    fn kind(&self, hold: Hold) -> Option<&AtomicU64> {
        match hold {
            Hold::Lasting => None,
            Hold::Call => Some(&self.0.calls),
            Hold::Answer => Some(&self.0.answers),
        }
    }

    /// Accounts for `bytes` already held, even past the limit (what is held must be counted; later reservations
    /// are then refused until it is given back).
    pub fn force(&self, bytes: u64) -> Reservation {
        self.forced(bytes, Hold::Lasting)
    }

    /// Accounts for an answer's `bytes` already held, even past the limit, until its client has read it.
    pub fn force_answer(&self, bytes: u64) -> Reservation {
        self.forced(bytes, Hold::Answer)
    }

    fn forced(&self, bytes: u64, hold: Hold) -> Reservation {
        let after = self
            .0
            .used
            .fetch_add(bytes, Ordering::AcqRel)
            .saturating_add(bytes);
        self.0.peak.fetch_max(after, Ordering::Relaxed);
        self.reservation(bytes, hold)
    }
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit())
            .field("used", &self.used())
            .finish()
    }
}

/// Bytes reserved from a [`MemoryBudget`], given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: MemoryBudget,
    bytes: u64,
    /// How long it is held.
    hold: Hold,
}

impl Reservation {
    /// The bytes it holds.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Grows or shrinks it to `bytes` (a shrink always succeeds; a growth that does not fit is refused and the
    /// reservation keeps what it had).
    pub fn resize(&mut self, bytes: u64, what: &str) -> Result<(), ToolError> {
        if bytes > self.bytes {
            let more = bytes - self.bytes;
            let more = (self.budget.take(more, self.hold))
                .ok_or_else(|| self.budget.refuse(more, what))?;
            self.absorb(more);
        } else {
            self.give_back(self.bytes - bytes);
            self.bytes = bytes;
        }
        Ok(())
    }

    /// Adds `other`'s bytes to it (both from the same budget, held alike).
    pub fn absorb(&mut self, mut other: Reservation) {
        debug_assert!(Arc::ptr_eq(&self.budget.0, &other.budget.0) && self.hold == other.hold);
        self.bytes += std::mem::take(&mut other.bytes);
    }

    fn give_back(&self, bytes: u64) {
        let inner = &self.budget.0;
        if let Some(kind) = self.budget.kind(self.hold) {
            kind.fetch_sub(bytes, Ordering::AcqRel);
        }
        inner.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Sets it to `bytes` already held, even past the budget's limit (see [`MemoryBudget::force`]).
    pub fn force_to(&mut self, bytes: u64) {
        if bytes > self.bytes {
            let more = self.budget.forced(bytes - self.bytes, self.hold);
            self.absorb(more);
        } else {
            // A shrink cannot fail.
            let _ = self.resize(bytes, "");
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.give_back(self.bytes);
    }
}

/// A byte count in the unit people read (`1.5 GiB`), for messages.
struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        match self.0 {
            0..1024 => write!(f, "{} bytes", self.0),
            1024..1_048_576 => write!(f, "{:.1} KiB", b / 1024.0),
            1_048_576..1_073_741_824 => write!(f, "{:.1} MiB", b / 1_048_576.0),
            _ => write!(f, "{:.2} GiB", b / 1_073_741_824.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_refused_past_the_limit_and_given_back_when_dropped() {
        let budget = MemoryBudget::new(1000);
        let a = budget.try_reserve(600, "a").expect("fits");
        let err = budget
            .try_reserve(500, "the request body")
            .expect_err("over");
        assert_eq!(err.kind, crate::ErrorKind::LimitExceeded);
        assert!(
            err.message.contains("memory budget (1000 bytes)"),
            "{}",
            err.message
        );
        assert!(
            err.message
                .contains("400 bytes free; the request body needs 500 bytes"),
            "{}",
            err.message
        );
        drop(a);
        assert_eq!(budget.used(), 0);
        let mut b = budget.try_reserve(100, "b").expect("fits");
        b.resize(900, "b").expect("grows");
        assert!(b.resize(1001, "b").is_err());
        assert_eq!(budget.used(), 900);
        b.resize(10, "b").expect("shrinks");
        b.force_to(2000);
        assert_eq!(
            (budget.used(), budget.peak(), budget.refused()),
            (2000, 2000, 2)
        );
        drop(b);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn a_reservation_waits_for_answers_to_be_read_and_only_for_them() {
        let budget = MemoryBudget::new(1000);
        let answer = budget.force_answer(700);
        let other = budget.try_reserve(200, "other").expect("fits");
        assert_eq!((budget.used(), budget.answers()), (900, 700));
        // 900 can never fit beside the 200 held otherwise: refused without asking whether to wait.
        let err = budget
            .reserve_or_wait(900, "big", Hold::Call, WaitFor::AnswersAndCalls, || {
                panic!("asked to wait")
            })
            .expect_err("never fits");
        assert!(
            err.message.contains("100 bytes free; big needs 900 bytes"),
            "{}",
            err.message
        );
        // 500 fits once the answer is read: it waits until then.
        let reader = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            drop(answer);
        });
        let r = budget
            .reserve_or_wait(
                500,
                "this call's result",
                Hold::Call,
                WaitFor::Answers,
                || true,
            )
            .expect("fits once the answer is read");
        reader.join().expect("reader");
        assert_eq!((budget.used(), budget.answers()), (700, 0));
        // Told to stop waiting (a deadline, a cancel), it is refused.
        let _held = budget.force_answer(300);
        let err = budget
            .reserve_or_wait(200, "late", Hold::Call, WaitFor::Answers, || false)
            .expect_err("stopped waiting");
        assert!(
            err.message.contains("0 bytes free; late needs 200 bytes"),
            "{}",
            err.message
        );
        drop((r, other));
        assert_eq!((budget.used(), budget.answers()), (300, 300));
    }

    #[test]
    fn a_call_s_first_reservation_waits_for_other_calls_and_later_ones_do_not() {
        let budget = MemoryBudget::new(1000);
        let other_call = budget
            .reserve_or_wait(800, "a", Hold::Call, WaitFor::AnswersAndCalls, || true)
            .expect("fits");
        // Later in a call: running calls may be waiting for this one's holder, so it does not wait for them.
        let err = budget
            .reserve_or_wait(300, "an interpreter", Hold::Call, WaitFor::Answers, || true)
            .expect_err("does not wait for calls");
        assert_eq!(err.kind, crate::ErrorKind::LimitExceeded);
        let finisher = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            drop(other_call);
        });
        let r = budget
            .reserve_or_wait(
                300,
                "a result",
                Hold::Call,
                WaitFor::AnswersAndCalls,
                || true,
            )
            .expect("waits for the other call");
        finisher.join().expect("finisher");
        assert_eq!(budget.used(), 300);
        // What lasts is never waited for.
        let _session = budget.try_reserve(600, "a session").expect("fits");
        drop(r);
        let err = budget
            .reserve_or_wait(
                500,
                "a result",
                Hold::Call,
                WaitFor::AnswersAndCalls,
                || true,
            )
            .expect_err("a session does not pass");
        assert!(err.message.contains("400 bytes free"), "{}", err.message);
    }

    #[test]
    fn more_than_the_whole_budget_is_refused_as_such() {
        let budget = MemoryBudget::new(1 << 20);
        let err = budget
            .try_reserve(3 << 20, "this call's result")
            .expect_err("over");
        assert_eq!(
            err.message,
            "this call's result needs 3.0 MiB, more than the server's whole memory budget (1.0 MiB)"
        );
    }

    #[test]
    fn answers_grow_and_shrink_as_answers() {
        let budget = MemoryBudget::new(1000);
        let mut a = budget.try_reserve_answer(100, "answer").expect("fits");
        a.resize(300, "answer").expect("grows");
        a.force_to(1200);
        assert_eq!((budget.used(), budget.answers()), (1200, 1200));
        a.resize(50, "answer").expect("shrinks");
        assert_eq!((budget.used(), budget.answers()), (50, 50));
        drop(a);
        assert_eq!((budget.used(), budget.answers()), (0, 0));
    }
}
