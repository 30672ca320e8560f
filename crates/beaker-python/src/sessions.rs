//! `execute_python` sessions: one interpreter kept across the calls of one trajectory, like a notebook kernel.
//!
//! A session is opened by the first call that names it and lives until the call that ends it
//! (`end_session`), an idle expiry ([`IDLE`]), eviction when the cap of open sessions ([`Sessions::cap`]) is
//! reached (the least recently used idle one goes), or a turn that failed in a way that leaves the
//! interpreter untrustworthy (a trap, fuel, the deadline, a cancellation). A call naming an ended session
//! gets an error saying why it ended; the name is then free to open a new session.

use beaker_sandbox::Session;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a session may rest between calls.
pub const IDLE: Duration = Duration::from_secs(600);

/// The longest session name.
pub const MAX_NAME_BYTES: usize = 128;

/// Ended sessions whose reason is remembered (oldest forgotten first).
const REMEMBERED: usize = 4096;

/// One open session: its instance, when it was last used, and why it ended once it has (calls that were
/// waiting for it then answer with that reason instead of running on a dropped interpreter).
pub(crate) struct Slot {
    pub(crate) session: Option<Session>,
    pub(crate) last_used: Instant,
    pub(crate) ended: Option<String>,
}

/// The open sessions of one tool, and why recent ones ended.
pub(crate) struct Sessions {
    open: Mutex<HashMap<String, Arc<Mutex<Slot>>>>,
    ended: Mutex<(HashMap<String, String>, VecDeque<String>)>,
    cap: usize,
}

impl Sessions {
    /// Room for `cap` open sessions (each holds a pool slot).
    pub(crate) fn new(cap: usize) -> Self {
        Sessions {
            open: Mutex::default(),
            ended: Mutex::default(),
            cap: cap.max(1),
        }
    }

    /// Why `name` ended, if it did recently (and forgets it: the name may open a new session).
    pub(crate) fn take_ended(&self, name: &str) -> Option<String> {
        let mut ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        let why = ended.0.remove(name)?;
        ended.1.retain(|n| n != name);
        Some(why)
    }

    /// Records that `name` ended, and why.
    pub(crate) fn end(&self, name: &str, why: String) {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
        let mut ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        if ended.0.insert(name.to_string(), why).is_none() {
            ended.1.push_back(name.to_string());
        }
        while ended.1.len() > REMEMBERED {
            if let Some(old) = ended.1.pop_front() {
                ended.0.remove(&old);
            }
        }
    }

    /// Ends a session without a reason to report (an explicit close).
    pub(crate) fn close(&self, name: &str) -> bool {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name)
            .is_some()
    }

    /// The slot of `name` (a new, empty one if it is not open), after ending idle sessions and, when the cap
    /// is reached, the least recently used idle one.
    pub(crate) fn slot(&self, name: &str) -> Arc<Mutex<Slot>> {
        let now = Instant::now();
        let mut ended = Vec::new();
        let slot = {
            let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
            // A slot whose lock is held is running a turn: never expired or evicted under it.
            open.retain(|n, s| {
                let Ok(mut slot) = s.try_lock() else {
                    return true;
                };
                if now.duration_since(slot.last_used) <= IDLE {
                    return true;
                }
                let why = format!("it was idle for more than {} s", IDLE.as_secs());
                slot.session = None;
                slot.ended = Some(why.clone());
                ended.push((n.clone(), why));
                false
            });
            if let Some(s) = open.get(name) {
                s.clone()
            } else {
                if open.len() >= self.cap {
                    let lru = open
                        .iter()
                        .filter_map(|(n, s)| s.try_lock().ok().map(|s| (s.last_used, n.clone())))
                        .min();
                    if let Some((_, n)) = lru {
                        if let Some(s) = open.remove(&n) {
                            let why = format!(
                                "{} sessions were open (the cap) and it was the least recently used",
                                self.cap
                            );
                            let mut slot = s.lock().unwrap_or_else(|p| p.into_inner());
                            slot.session = None;
                            slot.ended = Some(why.clone());
                            ended.push((n, why));
                        }
                    }
                }
                let s = Arc::new(Mutex::new(Slot {
                    session: None,
                    last_used: now,
                    ended: None,
                }));
                open.insert(name.to_string(), s.clone());
                s
            }
        };
        for (n, why) in ended {
            self.end(&n, why);
        }
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::Sessions;

    #[test]
    fn the_cap_evicts_the_least_recently_used_and_says_so() {
        let s = Sessions::new(2);
        let a = s.slot("a");
        drop(a);
        std::thread::sleep(std::time::Duration::from_millis(2));
        let _b = s.slot("b");
        let held = s.slot("b");
        let _guard = held.lock();
        // "b" is running a turn (its lock is held): "a" is the only one that may go.
        let _c = s.slot("c");
        let why = s.take_ended("a").expect("a was evicted");
        assert!(why.contains("2 sessions were open"), "{why}");
        assert!(s.take_ended("a").is_none(), "the name is free again");
        assert!(s.take_ended("b").is_none());
    }

    #[test]
    fn an_explicit_close_leaves_no_reason_behind() {
        let s = Sessions::new(4);
        let _a = s.slot("a");
        assert!(s.close("a"));
        assert!(!s.close("a"));
        assert!(s.take_ended("a").is_none());
    }

    #[test]
    fn ended_reasons_are_remembered_for_a_bounded_number_of_sessions() {
        let s = Sessions::new(1);
        for i in 0..(super::REMEMBERED + 10) {
            s.end(&format!("s{i}"), "why".into());
        }
        assert!(s.take_ended("s0").is_none());
        assert!(s
            .take_ended(&format!("s{}", super::REMEMBERED + 9))
            .is_some());
    }
}
