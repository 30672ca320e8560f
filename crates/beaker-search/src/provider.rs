//! Live web search, off unless configured: a SearXNG instance (its JSON API) or the Brave Search API, served as
//! the index `web`. Keys come from the environment, every request has a timeout, and answers are cached for a
//! while so a rollout that repeats a query gets the same answer without a second request.

use crate::index::host_of;
use crate::SearchError;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The name the live provider is served under.
pub const WEB: &str = "web";
/// SearXNG answers in pages of about this many results.
const SEARXNG_PAGE: usize = 10;
/// Brave answers at most this many results a request.
const BRAVE_MAX_COUNT: usize = 20;
/// Pages one search may fetch.
const MAX_PAGES: usize = 5;

/// `[web_search.provider]`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// `searxng` or `brave`.
    pub kind: String,
    /// The service's base url (required for SearXNG: an instance with `format=json` enabled; Brave's default
    /// is `https://api.search.brave.com`).
    #[serde(default)]
    pub url: Option<String>,
    /// The environment variable holding the API key (Brave: default `BRAVE_API_KEY`; SearXNG: none).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Milliseconds a request may take (default 5,000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Answers kept (default 1,024; 0 keeps none).
    #[serde(default)]
    pub cache_entries: Option<usize>,
    /// Seconds an answer is kept (default 3,600).
    #[serde(default)]
    pub cache_secs: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    SearXng,
    Brave,
}

/// One result of a live search.
#[derive(Debug, Clone, PartialEq)]
pub struct WebHit {
    /// The page's title.
    pub title: String,
    /// The provider's excerpt.
    pub snippet: String,
    /// The page.
    pub url: String,
    /// SearXNG's own score; for Brave, which gives none, 1 / rank.
    pub score: f64,
}

/// A configured live provider.
pub struct Provider {
    kind: Kind,
    base: String,
    key: Option<String>,
    agent: ureq::Agent,
    cache: Mutex<Cache>,
    cache_secs: u64,
}

#[derive(Default)]
struct Cache {
    capacity: usize,
    answers: HashMap<String, (Instant, Vec<WebHit>)>,
    order: VecDeque<String>,
}

impl Cache {
    fn get(&mut self, key: &str, ttl: Duration) -> Option<Vec<WebHit>> {
        match self.answers.get(key) {
            Some((at, hits)) if at.elapsed() <= ttl => Some(hits.clone()),
            // Stale: left in place for `put` to overwrite, so `order` holds each key once.
            _ => None,
        }
    }

    fn put(&mut self, key: String, hits: Vec<WebHit>) {
        if self.capacity == 0 {
            return;
        }
        while self.answers.len() >= self.capacity {
            match self.order.pop_front() {
                Some(old) => {
                    self.answers.remove(&old);
                }
                None => break,
            }
        }
        if self
            .answers
            .insert(key.clone(), (Instant::now(), hits))
            .is_none()
        {
            self.order.push_back(key);
        }
    }
}

impl Provider {
    /// The provider `config` describes; its key is read from the environment now, so a missing key stops the
    /// server at start, not at its first search.
    pub fn new(config: &ProviderConfig) -> Result<Provider, SearchError> {
        let bad = |m: String| SearchError::Index(format!("[web_search.provider]: {m}"));
        let kind = match config.kind.as_str() {
            "searxng" => Kind::SearXng,
            "brave" => Kind::Brave,
            other => return Err(bad(format!("kind {other:?} is not searxng or brave"))),
        };
        let base = match (kind, &config.url) {
            (_, Some(u)) => u.trim_end_matches('/').to_string(),
            (Kind::Brave, None) => "https://api.search.brave.com".to_string(),
            (Kind::SearXng, None) => return Err(bad("searxng needs the instance's `url`".into())),
        };
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(bad(format!("url {base:?} is not http(s)")));
        }
        let key_env = match (kind, &config.api_key_env) {
            (_, Some(v)) => Some(v.clone()),
            (Kind::Brave, None) => Some("BRAVE_API_KEY".to_string()),
            (Kind::SearXng, None) => None,
        };
        let key = match key_env {
            Some(var) => Some(
                std::env::var(&var)
                    .ok()
                    .filter(|k| !k.trim().is_empty())
                    .ok_or_else(|| bad(format!("the API key variable {var} is not set")))?,
            ),
            None => None,
        };
        let timeout = Duration::from_millis(config.timeout_ms.unwrap_or(5_000).max(1));
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent("beaker-web-search")
            .build()
            .new_agent();
        Ok(Provider {
            kind,
            base,
            key,
            agent,
            cache: Mutex::new(Cache {
                capacity: config.cache_entries.unwrap_or(1024),
                ..Cache::default()
            }),
            cache_secs: config.cache_secs.unwrap_or(3600),
        })
    }

    /// Results a page of the service holds.
    fn page_size(&self) -> usize {
        match self.kind {
            Kind::SearXng => SEARXNG_PAGE,
            Kind::Brave => BRAVE_MAX_COUNT,
        }
    }

    /// What it is, for messages: `searxng at URL` or `brave`.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::SearXng => format!("SearXNG at {}", self.base),
            Kind::Brave => format!("Brave Search at {}", self.base),
        }
    }

    /// The results `offset .. offset + limit` for `query`, restricted to `site` when given.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
        site: Option<&str>,
    ) -> Result<Vec<WebHit>, SearchError> {
        let host = match site {
            Some(s) => Some(
                host_of(s)
                    .ok_or_else(|| SearchError::Request(format!("`site` names no host: {s:?}")))?,
            ),
            None => None,
        };
        // Both services read `site:` in the query; the answer is filtered again here, so a service that ignores
        // it cannot return pages from elsewhere.
        let q = match &host {
            Some(h) => format!("{query} site:{h}"),
            None => query.to_string(),
        };
        let want = offset + limit;
        let mut hits: Vec<WebHit> = Vec::new();
        let per_page = self.page_size();
        for page in 0..MAX_PAGES {
            if hits.len() >= want {
                break;
            }
            let got = self.page(&q, page)?;
            let last = got.len() < per_page;
            for h in got {
                let on_site = host.as_ref().is_none_or(|h0| {
                    host_of(&h.url).is_some_and(|u| u == *h0 || u.ends_with(&format!(".{h0}")))
                });
                if on_site && !hits.iter().any(|x| x.url == h.url) {
                    hits.push(h);
                }
            }
            if last {
                break;
            }
        }
        Ok(hits.into_iter().skip(offset).take(limit).collect())
    }

    /// One page of results, from the cache when it is fresh.
    fn page(&self, q: &str, page: usize) -> Result<Vec<WebHit>, SearchError> {
        let key = format!("{page}\u{0}{q}");
        let ttl = Duration::from_secs(self.cache_secs);
        if let Ok(mut c) = self.cache.lock() {
            if let Some(hits) = c.get(&key, ttl) {
                return Ok(hits);
            }
        }
        let hits = self.fetch(q, page)?;
        if let Ok(mut c) = self.cache.lock() {
            c.put(key, hits.clone());
        }
        Ok(hits)
    }

    fn fetch(&self, q: &str, page: usize) -> Result<Vec<WebHit>, SearchError> {
        let failed = |m: String| SearchError::Provider(format!("{}: {m}", self.describe()));
        let request = match self.kind {
            Kind::SearXng => self
                .agent
                .get(format!("{}/search", self.base))
                .query("q", q)
                .query("format", "json")
                .query("pageno", (page + 1).to_string())
                .header("Accept", "application/json"),
            Kind::Brave => self
                .agent
                .get(format!("{}/res/v1/web/search", self.base))
                .query("q", q)
                .query("count", BRAVE_MAX_COUNT.to_string())
                .query("offset", page.to_string())
                .header("Accept", "application/json")
                .header(
                    "X-Subscription-Token",
                    self.key.as_deref().unwrap_or_default(),
                ),
        };
        let unavailable = |m: String| SearchError::Unavailable(format!("{}: {m}", self.describe()));
        let mut response = request.call().map_err(|e| unavailable(e.to_string()))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(8 << 20)
            .read_to_string()
            .map_err(|e| unavailable(e.to_string()))?;
        if beaker_core::ToolError::transient_status(status) {
            let head: String = body.chars().take(200).collect();
            return Err(unavailable(format!("HTTP {status}: {head}")));
        }
        if status != 200 {
            let head: String = body.chars().take(200).collect();
            return Err(failed(format!("HTTP {status}: {head}")));
        }
        let v: Value = serde_json::from_str(&body).map_err(|e| failed(format!("not JSON: {e}")))?;
        let text = |x: &Value, k: &str| x.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let list = match self.kind {
            Kind::SearXng => v.get("results"),
            Kind::Brave => v.get("web").and_then(|w| w.get("results")),
        };
        let Some(Value::Array(list)) = list else {
            // Brave answers a query with no web results without the `web` key.
            return match self.kind {
                Kind::Brave if v.get("type").is_some() => Ok(Vec::new()),
                _ => Err(failed("no `results` in the answer".into())),
            };
        };
        let rank0 = page * self.page_size();
        Ok(list
            .iter()
            .enumerate()
            .filter(|(_, r)| r.get("url").and_then(Value::as_str).is_some())
            .map(|(i, r)| WebHit {
                title: text(r, "title"),
                snippet: strip_tags(&match self.kind {
                    Kind::SearXng => text(r, "content"),
                    Kind::Brave => text(r, "description"),
                }),
                url: text(r, "url"),
                score: match self.kind {
                    Kind::SearXng => r.get("score").and_then(Value::as_f64).unwrap_or(0.0),
                    Kind::Brave => 1.0 / (rank0 + i + 1) as f64,
                },
            })
            .collect())
    }
}

/// The text of an excerpt without its markup (Brave marks the query's words with `<strong>`).
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    // `&amp;` last, so `&amp;lt;` stays `&lt;`.
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::{strip_tags, Cache};
    use std::time::Duration;

    #[test]
    fn a_stale_answer_is_replaced_in_place_and_the_cache_stays_bounded() {
        let mut c = Cache {
            capacity: 2,
            ..Cache::default()
        };
        for _ in 0..100 {
            assert!(c.get("q", Duration::ZERO).is_none() || c.answers.len() <= 2);
            c.put("q".into(), Vec::new());
        }
        assert_eq!(c.order.len(), 1, "one key, queued once");
        c.put("a".into(), Vec::new());
        c.put("b".into(), Vec::new());
        assert_eq!((c.answers.len(), c.order.len()), (2, 2));
        assert!(c.get("b", Duration::from_secs(60)).is_some());
    }

    #[test]
    fn markup_is_taken_out_and_entities_decoded_once() {
        assert_eq!(
            strip_tags("a <strong>b</strong> &amp;lt; &lt;c&gt;"),
            "a b &lt; <c>"
        );
    }
}
