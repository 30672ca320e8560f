//! Virtual clocks: a guest never reads the host's time.
//!
//! Both clocks start at fixed points and advance by one microsecond per read, so a loop that waits for
//! time to pass still ends (on fuel or the deadline) and the same call sees the same times. A timing attack
//! measures nothing: the clock reports how often it was read, not how long anything took.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use wasmtime_wasi::{HostMonotonicClock, HostWallClock};

/// 2000-01-01T00:00:00Z in seconds since the Unix epoch: the wall clock's start.
const WALL_START_SECS: u64 = 946_684_800;

/// The shared tick counter behind both clocks of one run.
#[derive(Clone, Default)]
pub(crate) struct VirtualTime(Arc<AtomicU64>);

impl VirtualTime {
    fn tick(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The monotonic clock's reading in nanoseconds, without advancing it.
    pub(crate) fn monotonic_ns(&self) -> u64 {
        self.0.load(Ordering::Relaxed).saturating_mul(1_000)
    }

    /// The wall clock's reading in nanoseconds since the Unix epoch, without advancing it.
    pub(crate) fn wall_ns(&self) -> u64 {
        (WALL_START_SECS * 1_000_000_000).saturating_add(self.monotonic_ns())
    }

    /// Lets `ns` nanoseconds pass (rounded up to the clocks' microsecond): what a guest's sleep does.
    pub(crate) fn advance_ns(&self, ns: u64) {
        let us = ns.div_ceil(1_000);
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
                Some(t.saturating_add(us))
            });
    }
}

/// The guest's wall clock.
pub(crate) struct WallClock(pub(crate) VirtualTime);

impl HostWallClock for WallClock {
    fn resolution(&self) -> Duration {
        Duration::from_micros(1)
    }

    fn now(&self) -> Duration {
        Duration::from_secs(WALL_START_SECS) + Duration::from_micros(self.0.tick())
    }
}

/// The guest's monotonic clock, in nanoseconds.
pub(crate) struct MonotonicClock(pub(crate) VirtualTime);

impl HostMonotonicClock for MonotonicClock {
    fn resolution(&self) -> u64 {
        1_000
    }

    fn now(&self) -> u64 {
        self.0.tick().saturating_mul(1_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_advance_one_microsecond_per_read_from_fixed_starts() {
        let t = VirtualTime::default();
        let wall = WallClock(t.clone());
        let mono = MonotonicClock(t);
        assert_eq!(wall.now(), Duration::new(WALL_START_SECS, 1_000));
        assert_eq!(mono.now(), 2_000);
        assert_eq!(wall.now(), Duration::new(WALL_START_SECS, 3_000));
    }
}
