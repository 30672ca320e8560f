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
    dataset: Option<Box<str>>,
}

impl Tenant {
    /// A named tenant; `max_sessions` caps the interpreter sessions it may hold open (beyond the server's cap).
    pub fn named(name: impl Into<Box<str>>, max_sessions: Option<usize>) -> Tenant {
        Tenant(Some(Arc::new(TenantInfo {
            name: name.into(),
            max_sessions: max_sessions.map(|n| n.max(1)),
            dataset: None,
        })))
    }

    /// The same tenant bound to dataset `name`: its calls read that dataset, and naming another is refused.
    pub fn bound_to(self, name: impl Into<Box<str>>) -> Tenant {
        let (tenant, max_sessions) = (self.name().unwrap_or("default").into(), self.max_sessions());
        Tenant(Some(Arc::new(TenantInfo {
            name: tenant,
            max_sessions,
            dataset: Some(name.into()),
        })))
    }

    /// The dataset it is bound to, if any.
    pub fn dataset(&self) -> Option<&str> {
        self.0.as_ref().and_then(|t| t.dataset.as_deref())
    }

    /// The dataset a call of this tenant reads when it names `asked`: the one asked for, or the one the tenant
    /// is bound to; an error when a bound tenant names another.
    pub fn resolve_dataset(
        &self,
        asked: Option<&str>,
    ) -> Result<Option<Arc<str>>, crate::ToolError> {
        match (self.dataset(), asked) {
            (Some(bound), Some(asked)) if bound != asked => Err(crate::ToolError::new(
                crate::ErrorKind::InvalidParams,
                format!(
                    "dataset `{asked}` is not this client's: its token is bound to another dataset"
                ),
            )),
            (Some(bound), _) => Ok(Some(bound.into())),
            (None, asked) => Ok(asked.map(Into::into)),
        }
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
