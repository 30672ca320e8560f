//! Bearer tokens and what each may do: a request rate (a token bucket) and a cap on its requests in flight.
//!
//! The token file has one token per line, optionally followed by its limits, `#` starting a comment line:
//!
//! ```text
//! # rollout workers: 200 requests a second, bursts of 400, 64 at once
//! 3f9c...e1 rate=200 burst=400 in_flight=64
//! # a dashboard: no limits of its own
//! a71d...07
//! ```

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
}

impl Token {
    /// A token with no limits of its own.
    pub fn new(token: impl Into<String>) -> Token {
        Token {
            token: token.into(),
            rate: None,
            burst: None,
            in_flight: None,
        }
    }
}

/// Reads a token file (see the module docs); an error names the line.
pub fn parse_tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
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
                    "line {}: `{w}` is not rate=N, burst=N or in_flight=N",
                    n + 1
                )
            };
            let (key, value) = w.split_once('=').ok_or_else(bad)?;
            let number: f64 = value.parse().map_err(|_| bad())?;
            if !(number.is_finite() && number > 0.0) {
                return Err(format!("line {}: {key} must be a positive number", n + 1));
            }
            match key {
                "rate" => t.rate = Some(number),
                "burst" => t.burst = Some(number),
                "in_flight" if number.fract() == 0.0 => t.in_flight = Some(number as usize),
                _ => return Err(bad()),
            }
        }
        if t.burst.is_some() && t.rate.is_none() {
            return Err(format!("line {}: burst needs a rate", n + 1));
        }
        out.push(t);
    }
    Ok(out)
}

/// A token's live state: its bucket and its in-flight permits.
pub(crate) struct Guarded {
    pub(crate) token: Token,
    bucket: Option<Mutex<Bucket>>,
    pub(crate) in_flight: Option<Arc<Semaphore>>,
}

struct Bucket {
    level: f64,
    at: Instant,
}

impl Guarded {
    pub(crate) fn new(token: Token) -> Guarded {
        let bucket = token.rate.map(|rate| {
            Mutex::new(Bucket {
                level: token.burst.unwrap_or(rate).max(1.0),
                at: Instant::now(),
            })
        });
        let in_flight = token.in_flight.map(|n| Arc::new(Semaphore::new(n.max(1))));
        Guarded {
            token,
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
        assert_eq!(t[1], Token::new("def"));
        for bad in [
            "abc rate",
            "abc rate=x",
            "abc rate=-1",
            "abc rate=inf",
            "abc in_flight=1.5",
            "abc speed=3",
            "abc burst=3",
        ] {
            assert!(parse_tokens(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_bucket_allows_a_burst_then_the_rate() {
        let g = Guarded::new(Token {
            rate: Some(10.0),
            burst: Some(3.0),
            ..Token::new("t")
        });
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
        let free = Guarded::new(Token::new("u"));
        assert!((0..1000).all(|_| free.take(t0).is_ok()));
    }
}
