//! One thread that fires execution deadlines.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Instant;

/// Something with a deadline.
pub(crate) trait Expire: Send + Sync {
    fn expire(&self);
}

struct Entry {
    at: Instant,
    seq: u64,
    target: Weak<dyn Expire>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

#[derive(Default)]
struct State {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
    shutdown: bool,
}

/// Deadlines, kept in a heap; a dedicated thread sleeps until the earliest one.
pub(crate) struct Watchdog {
    state: Mutex<State>,
    wake: Condvar,
}

impl Watchdog {
    pub(crate) fn start() -> Arc<Watchdog> {
        let dog = Arc::new(Watchdog {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let weak = Arc::downgrade(&dog);
        let spawned = std::thread::Builder::new()
            .name("beaker-watchdog".into())
            .spawn(move || run(weak));
        if let Err(e) = spawned {
            tracing::error!("cannot start the deadline watchdog: {e}; deadlines will not fire");
        }
        dog
    }

    /// Calls `target.expire()` at `at` unless `target` has been dropped by then.
    pub(crate) fn arm(&self, at: Instant, target: Weak<dyn Expire>) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.seq += 1;
        let seq = s.seq;
        let earliest = s.heap.peek().is_none_or(|Reverse(e)| at < e.at);
        s.heap.push(Reverse(Entry { at, seq, target }));
        if earliest {
            self.wake.notify_one();
        }
    }

    pub(crate) fn shutdown(&self) {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .shutdown = true;
        self.wake.notify_one();
    }
}

fn run(dog: Weak<Watchdog>) {
    loop {
        let Some(dog) = dog.upgrade() else { return };
        let mut due = Vec::new();
        {
            let mut s = dog.state.lock().unwrap_or_else(|p| p.into_inner());
            if s.shutdown {
                return;
            }
            let now = Instant::now();
            while s.heap.peek().is_some_and(|Reverse(e)| e.at <= now) {
                if let Some(Reverse(e)) = s.heap.pop() {
                    due.push(e.target);
                }
            }
            // Finished calls leave dead entries behind; drop them so the heap stays small.
            if s.heap.len() > 1024 {
                let live: Vec<_> = s
                    .heap
                    .drain()
                    .filter(|Reverse(e)| e.target.strong_count() > 0)
                    .collect();
                s.heap.extend(live);
            }
            if due.is_empty() {
                let wait = s
                    .heap
                    .peek()
                    .map(|Reverse(e)| e.at.saturating_duration_since(now));
                // Wake at least every second so a dropped engine lets this thread go.
                let wait = wait
                    .unwrap_or(std::time::Duration::from_secs(1))
                    .min(std::time::Duration::from_secs(1));
                drop(dog.wake.wait_timeout(s, wait));
                continue;
            }
        }
        for target in due {
            if let Some(t) = target.upgrade() {
                t.expire();
            }
        }
    }
}
