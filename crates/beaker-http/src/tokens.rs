//! Bearer tokens and what each may do: a request rate (a token bucket), a cap on its requests in flight, and
//! the tenant it acts for (whose sessions and trajectories it sees) with that tenant's cap on open sessions.
//!
//! The token file has one token per line, optionally followed by its limits, `#` starting a comment line:
//!
//! ```text
//! # rollout workers: 200 requests a second, bursts of 400, 64 at once, 8 Python sessions open at most
//! 3f9c...e1 rate=200 burst=400 in_flight=64 sessions=8
//! # a dashboard: no limits of its own
//! a71d...07
//! # two tokens of one team (rotating a token): one tenant, they see the same sessions
//! 9b20...c4 name=team-a
//! 51e7...aa name=team-a
//! ```
//!
//! A token without `name=` is a tenant of its own, labelled by its line (`line-7`), never by its secret.
//! `dataset=NAME` binds a token to one dataset (seed 002's health data): its calls read that dataset, and a
//! request naming another is refused.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// One bearer token and its limits (none: only the server's own).
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The secret a request carries as `Authorization: Bearer TOKEN`.
    pub token: String,
    /// Requests a second over time; beyond it a request is answered 429 with `Retry-After`.
    pub rate: Option<f64>,
    /// Requests that may come at once after a quiet spell (default: one second of `rate`, at least 1).
    pub burst: Option<f64>,
    /// Requests of this token being answered at once; one more is answered 429.
    pub in_flight: Option<usize>,
    /// The tenant it acts for; tokens with the same name share one. `None`: a tenant of its own.
    pub name: Option<String>,
    /// Python sessions its tenant may hold open (beyond it, its own least recently used one is ended).
    pub sessions: Option<usize>,
    /// The one dataset its calls read (`None`: any the request names).
    pub dataset: Option<String>,
}

impl Token {
    /// A token with no limits of its own.
    pub fn new(token: impl Into<String>) -> Token {
        Token {
            token: token.into(),
            rate: None,
            burst: None,
            in_flight: None,
            name: None,
            sessions: None,
            dataset: None,
        }
    }
}

/// Reads a token file (see the module docs); an error names the line.
pub fn parse_tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out: Vec<Token> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let mut t = Token::new(words.next().unwrap_or_default());
        for w in words {
            let bad = || {
                format!(
                    "line {}: `{w}` is not rate=N, burst=N, in_flight=N, sessions=N, name=LABEL or dataset=NAME",
                    n + 1
                )
            };
            let (key, value) = w.split_once('=').ok_or_else(bad)?;
            if key == "name" {
                if value.is_empty() || value.starts_with("line-") {
                    return Err(format!(
                        "line {}: a name is not empty and does not start with `line-` (those label unnamed tokens)",
                        n + 1
                    ));
                }
                t.name = Some(value.to_string());
                continue;
            }
            if key == "dataset" {
                if value.is_empty() {
                    return Err(format!("line {}: dataset= needs a dataset's name", n + 1));
                }
                t.dataset = Some(value.to_string());
                continue;
            }
            let number: f64 = value.parse().map_err(|_| bad())?;
            if !(number.is_finite() && number > 0.0) {
                return Err(format!("line {}: {key} must be a positive number", n + 1));
            }
            match key {
                "rate" => t.rate = Some(number),
                "burst" => t.burst = Some(number),
                "in_flight" if number.fract() == 0.0 => t.in_flight = Some(number as usize),
                "sessions" if number.fract() == 0.0 => t.sessions = Some(number as usize),
                _ => return Err(bad()),
            }
        }
        if t.burst.is_some() && t.rate.is_none() {
            return Err(format!("line {}: burst needs a rate", n + 1));
        }
        if t.name.is_none() {
            t.name = Some(format!("line-{}", n + 1));
        }
        if let Some(other) = out
            .iter()
            .find(|o| o.name == t.name && o.dataset != t.dataset)
        {
            return Err(format!(
                "line {}: tokens of tenant `{}` are bound to different datasets",
                n + 1,
                other.name.as_deref().unwrap_or_default(),
            ));
        }
        if let Some(other) = out
            .iter()
            .find(|o| o.name == t.name && o.sessions != t.sessions)
        {
            return Err(format!(
                "line {}: tokens of tenant `{}` give it different session caps ({:?} and {:?})",
                n + 1,
                other.name.as_deref().unwrap_or_default(),
                other.sessions,
                t.sessions
            ));
        }
        out.push(t);
    }
    Ok(out)
}

/// A token's live state: its bucket, its in-flight permits and its tenant.
pub(crate) struct Guarded {
    pub(crate) token: Token,
    pub(crate) tenant: beaker_core::Tenant,
    bucket: Option<Mutex<Bucket>>,
    pub(crate) in_flight: Option<Arc<Semaphore>>,
}

struct Bucket {
    level: f64,
    at: Instant,
}

impl Guarded {
    /// The live state of `token`, the `index`-th of the server's (which labels its tenant when it has no name).
    pub(crate) fn new(token: Token, index: usize) -> Guarded {
        let bucket = token.rate.map(|rate| {
            Mutex::new(Bucket {
                level: token.burst.unwrap_or(rate).max(1.0),
                at: Instant::now(),
            })
        });
        let in_flight = token.in_flight.map(|n| Arc::new(Semaphore::new(n.max(1))));
        // A token built in code rather than read from a file may have no name: its secret is never the label.
        let tenant = beaker_core::Tenant::named(
            token
                .name
                .clone()
                .unwrap_or_else(|| format!("token-{}", index + 1)),
            token.sessions,
        );
        let tenant = match &token.dataset {
            Some(d) => tenant.bound_to(d.as_str()),
            None => tenant,
        };
        Guarded {
            token,
            tenant,
            bucket,
            in_flight,
        }
    }

    /// Takes one request from the bucket, or says how long until one is there.
    pub(crate) fn take(&self, now: Instant) -> Result<(), Duration> {
        let (Some(bucket), Some(rate)) = (&self.bucket, self.token.rate) else {
            return Ok(());
        };
        let capacity = self.token.burst.unwrap_or(rate).max(1.0);
        let Ok(mut b) = bucket.lock() else {
            return Ok(());
        };
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.level = (b.level + elapsed * rate).min(capacity);
        b.at = now;
        if b.level >= 1.0 {
            b.level -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.level) / rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_gives_tokens_and_their_limits() {
        let t = parse_tokens("# c\n\nabc rate=2.5 burst=5 in_flight=3\n  def  \n").expect("parses");
        assert_eq!(t.len(), 2);
        assert_eq!(
            (t[0].token.as_str(), t[0].rate, t[0].burst, t[0].in_flight),
            ("abc", Some(2.5), Some(5.0), Some(3))
        );
        assert_eq!(t[0].name.as_deref(), Some("line-3"), "labelled by its line");
        assert_eq!(
            t[1],
            Token {
                name: Some("line-4".into()),
                ..Token::new("def")
            }
        );
        let shared = parse_tokens("a name=team sessions=4\nb name=team sessions=4\nc sessions=2\n")
            .expect("parses");
        assert_eq!(shared[0].name, shared[1].name);
        assert_eq!((shared[1].sessions, shared[2].sessions), (Some(4), Some(2)));
        for bad in [
            "abc rate",
            "abc rate=x",
            "abc rate=-1",
            "abc rate=inf",
            "abc in_flight=1.5",
            "abc speed=3",
            "abc burst=3",
            "abc sessions=0.5",
            "abc name=",
            "abc name=line-2",
            "a name=t sessions=1\nb name=t sessions=2",
            "a name=t\nb name=t sessions=2",
        ] {
            assert!(parse_tokens(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_bucket_allows_a_burst_then_the_rate() {
        let g = Guarded::new(
            Token {
                rate: Some(10.0),
                burst: Some(3.0),
                ..Token::new("t")
            },
            0,
        );
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(g.take(t0), Ok(()));
        }
        let wait = g.take(t0).expect_err("the burst is spent");
        assert!((wait.as_secs_f64() - 0.1).abs() < 1e-9, "{wait:?}");
        // A tenth of a second later one more request is allowed, and only one.
        let t1 = t0 + Duration::from_millis(100);
        assert_eq!(g.take(t1), Ok(()));
        assert!(g.take(t1).is_err());
        // No rate: never limited.
        let free = Guarded::new(Token::new("u"), 1);
        assert_eq!(free.tenant.name(), Some("token-2"));
        assert!((0..1000).all(|_| free.take(t0).is_ok()));
    }
}
