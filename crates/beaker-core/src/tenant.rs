//! Whose call this is: the server state a call may name (sessions, trajectories) belongs to its tenant.

use std::fmt;
use std::sync::Arc;

/// The client a call comes from, as far as named server state goes: two tenants never see each other's
/// sessions or trajectories, whatever names they use, and each has its own caps.
///
/// A front end decides what a tenant is: over HTTP with bearer tokens, each token's tenant (tokens may share
/// one by name); everywhere else, and over HTTP without tokens, the one [`Tenant::default`]. The name is a
/// label the operator chose or the token's place in its file, never the secret, and is never derived from
/// anything a client can choose.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Tenant(Option<Arc<TenantInfo>>);

#[derive(PartialEq, Eq, Hash)]
struct TenantInfo {
    name: Box<str>,
    max_sessions: Option<usize>,
}

impl Tenant {
    /// A named tenant; `max_sessions` caps the interpreter sessions it may hold open (beyond the server's cap).
    pub fn named(name: impl Into<Box<str>>, max_sessions: Option<usize>) -> Tenant {
        Tenant(Some(Arc::new(TenantInfo {
            name: name.into(),
            max_sessions: max_sessions.map(|n| n.max(1)),
        })))
    }

    /// Its name; `None` for the default tenant.
    pub fn name(&self) -> Option<&str> {
        self.0.as_ref().map(|t| &*t.name)
    }

    /// The most sessions it may hold open, when it has a cap of its own.
    pub fn max_sessions(&self) -> Option<usize> {
        self.0.as_ref().and_then(|t| t.max_sessions)
    }
}

impl fmt::Debug for Tenant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "Tenant({n:?})"),
            None => f.write_str("Tenant(default)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Tenant;

    #[test]
    fn tenants_are_the_same_by_name_and_caps_only() {
        assert_eq!(Tenant::named("a", None), Tenant::named("a", None));
        assert_ne!(Tenant::named("a", None), Tenant::named("b", None));
        assert_ne!(Tenant::named("a", None), Tenant::default());
        assert_eq!(Tenant::named("a", Some(0)).max_sessions(), Some(1));
    }
}
