//! One memory budget for a whole process: every holder of memory that a client can make grow (request bodies,
//! answers waiting for a slow reader, interpreter sessions, sandboxed runs) reserves from it first.

use crate::ToolError;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The bytes a process lets its clients make it hold, shared by every holder; cloning shares it.
///
/// A holder reserves before it takes memory ([`MemoryBudget::try_reserve`]) and the [`Reservation`] gives the
/// bytes back when dropped. A reservation that does not fit is refused with `limit_exceeded` naming the budget,
/// so the caller refuses its request (or waits and retries) instead of growing past it.
#[derive(Clone)]
pub struct MemoryBudget(Arc<Inner>);

struct Inner {
    limit: u64,
    used: AtomicU64,
    peak: AtomicU64,
    refused: AtomicU64,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget(Arc::new(Inner {
            limit,
            used: AtomicU64::new(0),
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

    /// Reserves `bytes` for `what` (named in the refusal), or refuses with `limit_exceeded` when they do not fit.
    pub fn try_reserve(&self, bytes: u64, what: &str) -> Result<Reservation, ToolError> {
        let inner = &self.0;
        let mut used = inner.used.load(Ordering::Relaxed);
        loop {
            let after = used.saturating_add(bytes);
            if after > inner.limit {
                inner.refused.fetch_add(1, Ordering::Relaxed);
                return Err(ToolError::limit(format!(
                    "the server's memory budget ({}) has {} free; {what} needs {}",
                    Bytes(inner.limit),
                    Bytes(inner.limit.saturating_sub(used)),
                    Bytes(bytes)
                )));
            }
            match inner
                .used
                .compare_exchange_weak(used, after, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => {
                    inner.peak.fetch_max(after, Ordering::Relaxed);
                    return Ok(Reservation {
                        budget: self.clone(),
                        bytes,
                    });
                }
                Err(now) => used = now,
            }
        }
    }

    /// Accounts for `bytes` already held, even past the limit (what is held must be counted; later reservations
    /// are then refused until it is given back).
    pub fn force(&self, bytes: u64) -> Reservation {
        let after = self
            .0
            .used
            .fetch_add(bytes, Ordering::AcqRel)
            .saturating_add(bytes);
        self.0.peak.fetch_max(after, Ordering::Relaxed);
        Reservation {
            budget: self.clone(),
            bytes,
        }
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
            let more = self.budget.try_reserve(bytes - self.bytes, what)?;
            std::mem::forget(more);
        } else {
            self.budget
                .0
                .used
                .fetch_sub(self.bytes - bytes, Ordering::AcqRel);
        }
        self.bytes = bytes;
        Ok(())
    }

    /// Sets it to `bytes` already held, even past the budget's limit (see [`MemoryBudget::force`]).
    pub fn force_to(&mut self, bytes: u64) {
        if bytes > self.bytes {
            std::mem::forget(self.budget.force(bytes - self.bytes));
            self.bytes = bytes;
        } else {
            // A shrink cannot fail.
            let _ = self.resize(bytes, "");
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.0.used.fetch_sub(self.bytes, Ordering::AcqRel);
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
}
