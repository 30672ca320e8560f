//! `execute_python` sessions: one interpreter kept across the calls of one trajectory, like a notebook kernel.
//!
//! A session is opened by the first call that names it and lives until the call that ends it
//! (`end_session`), an idle expiry ([`IDLE`]), eviction when a cap is reached, or a turn that failed in a
//! way that leaves the interpreter untrustworthy (a trap, fuel, the deadline, a cancellation). A call naming
//! an ended session gets an error saying why it ended; the name is then free to open a new session.
//!
//! Sessions belong to their call's [`Tenant`]: a name means a session only within one tenant, so no client
//! can reach, end or pre-create another's. When the server's cap ([`Sessions::new`]) is reached, the tenant
//! holding the most sessions gives up its least recently used idle one (the newcomer's own when it holds the
//! most): however many sessions one client opens, it never ends another's while that one holds fewer. A
//! tenant with a cap of its own ([`Tenant::max_sessions`]) gives up its own past it.

use beaker_core::{ErrorKind, Tenant, ToolError};
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
    /// The interpreter's memory, reserved from the process's budget (its size after its last turn).
    pub(crate) memory: Option<beaker_core::Reservation>,
}

/// A session's name within its tenant.
type Key = (Tenant, String);

/// The open sessions of one tool, and why recent ones ended.
pub(crate) struct Sessions {
    open: Mutex<HashMap<Key, Arc<Mutex<Slot>>>>,
    ended: Mutex<(HashMap<Key, String>, VecDeque<Key>)>,
    cap: usize,
}

fn key(tenant: &Tenant, name: &str) -> Key {
    (tenant.clone(), name.to_string())
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
    pub(crate) fn take_ended(&self, tenant: &Tenant, name: &str) -> Option<String> {
        let mut ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        let k = key(tenant, name);
        let why = ended.0.remove(&k)?;
        ended.1.retain(|n| *n != k);
        Some(why)
    }

    /// Records that `name` ended, and why.
    pub(crate) fn end(&self, tenant: &Tenant, name: &str, why: String) {
        let k = key(tenant, name);
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&k);
        self.remember(k, why);
    }

    fn remember(&self, k: Key, why: String) {
        let mut ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        if ended.0.insert(k.clone(), why).is_none() {
            ended.1.push_back(k);
        }
        while ended.1.len() > REMEMBERED {
            if let Some(old) = ended.1.pop_front() {
                ended.0.remove(&old);
            }
        }
    }

    /// Ends a session without a reason to report (an explicit close).
    pub(crate) fn close(&self, tenant: &Tenant, name: &str) -> bool {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&key(tenant, name))
            .is_some()
    }

    /// The slot of `name` (a new, empty one if it is not open), after ending idle sessions and making room
    /// under the caps (see the module docs). Refused when `tenant` is at its own cap and every one of its
    /// sessions is running a call.
    pub(crate) fn slot(&self, tenant: &Tenant, name: &str) -> Result<Arc<Mutex<Slot>>, ToolError> {
        let now = Instant::now();
        let mut ended = Vec::new();
        let k = key(tenant, name);
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
                slot.memory = None;
                slot.ended = Some(why.clone());
                ended.push((n.clone(), why));
                false
            });
            if let Some(s) = open.get(&k) {
                s.clone()
            } else {
                if let Some((victim, why)) = self.victim(&open, tenant)? {
                    if let Some(s) = open.remove(&victim) {
                        let mut slot = s.lock().unwrap_or_else(|p| p.into_inner());
                        slot.session = None;
                        slot.memory = None;
                        slot.ended = Some(why.clone());
                        ended.push((victim, why));
                    }
                }
                let s = Arc::new(Mutex::new(Slot {
                    session: None,
                    last_used: now,
                    ended: None,
                    memory: None,
                }));
                open.insert(k, s.clone());
                s
            }
        };
        for (k, why) in ended {
            self.remember(k, why);
        }
        Ok(slot)
    }

    /// Which session makes room for a new one of `tenant`, and why, if one must.
    fn victim(
        &self,
        open: &HashMap<Key, Arc<Mutex<Slot>>>,
        tenant: &Tenant,
    ) -> Result<Option<(Key, String)>, ToolError> {
        let mut held: HashMap<&Tenant, usize> = HashMap::new();
        for (t, _) in open.keys() {
            *held.entry(t).or_default() += 1;
        }
        let own = held.get(tenant).copied().unwrap_or(0);
        // The least recently used idle session of `of`, if any (a locked one is running a turn).
        let lru = |of: &Tenant| {
            open.iter()
                .filter(|((t, _), _)| t == of)
                .filter_map(|(k, s)| s.try_lock().ok().map(|s| (s.last_used, k)))
                .min_by_key(|(used, _)| *used)
                .map(|(_, k)| k.clone())
        };
        if let Some(max) = tenant.max_sessions() {
            if own >= max {
                let why = format!(
                    "its client may hold {max} sessions open (its cap) and it was the least recently used"
                );
                return match lru(tenant) {
                    Some(k) => Ok(Some((k, why))),
                    None => Err(ToolError::new(
                        ErrorKind::LimitExceeded,
                        format!(
                            "this client has {own} sessions open, its cap of {max}, and each is running a call"
                        ),
                    )),
                };
            }
        }
        if open.len() < self.cap {
            return Ok(None);
        }
        // Max-min fairness: the tenant holding the most gives one up, the newcomer itself on a tie; a tenant
        // holding no more than the newcomer is never made to.
        let mut tenants: Vec<(usize, bool, &Tenant)> = held
            .iter()
            .filter(|(t, n)| **t == tenant || **n > own)
            .map(|(t, n)| (*n, *t == tenant, *t))
            .collect();
        tenants.sort_by_key(|t| std::cmp::Reverse((t.0, t.1)));
        for (_, is_self, t) in tenants {
            if let Some(k) = lru(t) {
                let why = if is_self {
                    format!(
                        "{} sessions were open (the server's cap) and it was the least recently used",
                        self.cap
                    )
                } else {
                    format!(
                        "{} sessions were open (the server's cap), its client held the most, and it was that \
                         client's least recently used",
                        self.cap
                    )
                };
                return Ok(Some((k, why)));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::Sessions;
    use beaker_core::Tenant;

    fn d() -> Tenant {
        Tenant::default()
    }

    #[test]
    fn the_cap_evicts_the_least_recently_used_and_says_so() {
        let s = Sessions::new(2);
        let a = s.slot(&d(), "a").expect("room");
        drop(a);
        std::thread::sleep(std::time::Duration::from_millis(2));
        let _b = s.slot(&d(), "b").expect("room");
        let held = s.slot(&d(), "b").expect("open");
        let _guard = held.lock();
        // "b" is running a turn (its lock is held): "a" is the only one that may go.
        let _c = s.slot(&d(), "c").expect("room");
        let why = s.take_ended(&d(), "a").expect("a was evicted");
        assert!(why.contains("2 sessions were open"), "{why}");
        assert!(s.take_ended(&d(), "a").is_none(), "the name is free again");
        assert!(s.take_ended(&d(), "b").is_none());
    }

    #[test]
    fn an_explicit_close_leaves_no_reason_behind() {
        let s = Sessions::new(4);
        let _a = s.slot(&d(), "a").expect("room");
        assert!(s.close(&d(), "a"));
        assert!(!s.close(&d(), "a"));
        assert!(s.take_ended(&d(), "a").is_none());
    }

    #[test]
    fn ended_reasons_are_remembered_for_a_bounded_number_of_sessions() {
        let s = Sessions::new(1);
        for i in 0..(super::REMEMBERED + 10) {
            s.end(&d(), &format!("s{i}"), "why".into());
        }
        assert!(s.take_ended(&d(), "s0").is_none());
        assert!(s
            .take_ended(&d(), &format!("s{}", super::REMEMBERED + 9))
            .is_some());
    }

    #[test]
    fn a_name_is_a_session_only_within_its_tenant() {
        let s = Sessions::new(8);
        let (a, b) = (Tenant::named("a", None), Tenant::named("b", None));
        let sa = s.slot(&a, "notebook").expect("room");
        let sb = s.slot(&b, "notebook").expect("room");
        assert!(!std::sync::Arc::ptr_eq(&sa, &sb));
        s.end(&a, "notebook", "why".into());
        assert!(s.take_ended(&b, "notebook").is_none(), "b's is not ended");
        assert!(!s.close(&b, "elsewhere"));
        assert!(s.close(&b, "notebook"));
        assert!(s.take_ended(&a, "notebook").is_some());
    }

    #[test]
    fn a_client_opening_many_sessions_ends_only_its_own() {
        let s = Sessions::new(4);
        let (quiet, flood) = (Tenant::named("quiet", None), Tenant::named("flood", None));
        drop(s.slot(&quiet, "mine").expect("room"));
        for i in 0..40 {
            drop(s.slot(&flood, &format!("f{i}")).expect("room"));
        }
        assert!(
            s.take_ended(&quiet, "mine").is_none(),
            "quiet's session survives"
        );
        let gone: Vec<String> = (0..40)
            .filter_map(|i| s.take_ended(&flood, &format!("f{i}")))
            .collect();
        assert_eq!(gone.len(), 37, "{gone:?}");
        assert!(gone.iter().all(|why| why.contains("least recently used")));
        // A newcomer holding fewer than anyone else takes room from the one holding the most.
        let other = Tenant::named("other", None);
        drop(s.slot(&other, "o").expect("room"));
        assert!(s.take_ended(&quiet, "mine").is_none());
        let why: Vec<String> = (37..40)
            .filter_map(|i| s.take_ended(&flood, &format!("f{i}")))
            .collect();
        assert!(
            why.len() == 1 && why[0].contains("held the most"),
            "{why:?}"
        );
    }

    #[test]
    fn a_tenant_cap_ends_its_own_sessions_and_refuses_when_all_are_busy() {
        let s = Sessions::new(32);
        let capped = Tenant::named("capped", Some(2));
        drop(s.slot(&capped, "a").expect("room"));
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = s.slot(&capped, "b").expect("room");
        drop(s.slot(&capped, "c").expect("room"));
        let why = s.take_ended(&capped, "a").expect("a made room");
        assert!(why.contains("(its cap)"), "{why}");
        let _busy_b = b.lock();
        let c = s.slot(&capped, "c").expect("open");
        let _busy_c = c.lock();
        let err = s.slot(&capped, "d").err().expect("both are busy");
        assert_eq!(err.kind, beaker_core::ErrorKind::LimitExceeded);
        assert!(err.message.contains("its cap of 2"), "{}", err.message);
    }
}
