//! `web_search`: BM25 search over local corpora, offline, deterministic and fast; the engine behind
//! `beaker index` and HTTP's Search-R1-compatible `/retrieve`. See `web_search.md`.
//!
//! An index is a folder (`beaker index build CORPUS --out DIR`): tantivy's postings, passages and columns,
//! and `beaker-index.json`. Scores are Lucene's BM25 (`idf = ln(1 + (N - n + 0.5)/(n + 0.5))`, `tf / (tf +
//! k1 (1 - b + b dl/avgdl))`, no `(k1 + 1)` factor, as Lucene 8 and later) with each passage's exact length,
//! where Lucene keeps a one-byte approximation: so the scores equal bm25s's `lucene` method to rounding.
//!
//! Every server also has the built-in index `docs`: the shipped corpus of Python's and git's documentation
//! (`tests/data/web_search/corpus.jsonl.gz`, compiled into the binary), indexed in memory on first use, so
//! `web_search` answers out of the box and its examples hold on any machine.

pub mod analyzer;
pub mod corpus;
pub mod index;
pub mod provider;
mod spec;
#[cfg(test)]
mod tests;

pub use corpus::{CorpusReader, Passage};
pub use index::{BuildOptions, Found, Hit, Meta, Progress, Request, SearchIndex};
pub use provider::{Provider, ProviderConfig, WEB};

use beaker_core::{CallContext, ErrorKind, Tool, ToolError, ToolSpec};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The shipped corpus (Python 3.11's and git's documentation, 10,600 passages), indexed as `docs`.
pub const BUILTIN_CORPUS: &[u8] = include_bytes!("../../../tests/data/web_search/corpus.jsonl.gz");
/// The name of the built-in index.
pub const BUILTIN: &str = "docs";
/// Results one call may ask for.
pub const MAX_RESULTS: u64 = 100;
/// Results one call may skip.
pub const MAX_OFFSET: u64 = 10_000;
/// Distinct words one query may have (Lucene's `maxClauseCount`).
pub const MAX_WORDS: usize = 1024;
/// Characters of a query, at most.
pub const MAX_QUERY_CHARS: u64 = 10_000;

/// Why an index could not be built, opened or searched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// A corpus line that is not a passage, or a corpus that cannot be read.
    #[error("corpus: {0}")]
    Corpus(String),
    /// A folder that is not an index, or an index that cannot be used.
    #[error("index: {0}")]
    Index(String),
    /// A request the index cannot answer (a `site` that names no host).
    #[error("{0}")]
    Request(String),
    /// The live provider failed (refused the request, answered nonsense).
    #[error("{0}")]
    Provider(String),
    /// The live provider is down, overloaded or did not answer (no connection, a timeout, HTTP 429 or 5xx): the
    /// same call may succeed later.
    #[error("{0}")]
    Unavailable(String),
    /// A file that could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// tantivy's own error.
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// The call was stopped (deadline or cancellation) while it searched.
    #[error("{}", .0.message)]
    Stopped(ToolError),
}

impl SearchError {
    fn io(path: &Path, source: std::io::Error) -> SearchError {
        SearchError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<std::io::Error> for SearchError {
    fn from(e: std::io::Error) -> Self {
        SearchError::Index(e.to_string())
    }
}

impl From<SearchError> for ToolError {
    fn from(e: SearchError) -> Self {
        match e {
            SearchError::Stopped(t) => t,
            SearchError::Request(m) => ToolError::invalid_params(m),
            SearchError::Provider(m) => ToolError::new(ErrorKind::ToolError, m),
            SearchError::Unavailable(m) => ToolError::new(ErrorKind::ToolError, m).transient(),
            other => ToolError::new(ErrorKind::ToolError, other.to_string()),
        }
    }
}

/// The indexes a server searches: named folders, and the built-in `docs`; each opened on first use.
pub struct Indexes {
    default: String,
    entries: BTreeMap<String, Slot>,
    k1: f64,
    b: f64,
    provider: Option<Provider>,
}

struct Slot {
    dir: Option<PathBuf>,
    opened: OnceLock<Result<Arc<SearchIndex>, String>>,
}

impl Default for Indexes {
    fn default() -> Self {
        Indexes::new(Vec::new())
    }
}

impl Indexes {
    /// The built-in `docs` and these folders (`NAME`, `DIR`); the first folder is the default index, else `docs`.
    /// A folder named `docs` replaces the built-in one.
    pub fn new(dirs: Vec<(String, PathBuf)>) -> Indexes {
        let default = dirs
            .first()
            .map_or_else(|| BUILTIN.to_string(), |(n, _)| n.clone());
        let mut entries = BTreeMap::new();
        entries.insert(
            BUILTIN.to_string(),
            Slot {
                dir: None,
                opened: OnceLock::new(),
            },
        );
        for (name, dir) in dirs {
            entries.insert(
                name,
                Slot {
                    dir: Some(dir),
                    opened: OnceLock::new(),
                },
            );
        }
        Indexes {
            default,
            entries,
            k1: index::DEFAULT_K1,
            b: index::DEFAULT_B,
            provider: None,
        }
    }

    /// The same indexes and live search through `provider`, served as the index `web`.
    pub fn with_provider(mut self, provider: Provider) -> Indexes {
        self.provider = Some(provider);
        self
    }

    /// The live provider, when one is configured.
    pub fn provider(&self) -> Option<&Provider> {
        self.provider.as_ref()
    }

    /// The same indexes scored with BM25's `k1` and `b` (default Lucene's 0.9 and 0.4).
    pub fn with_bm25(mut self, k1: f64, b: f64) -> Indexes {
        self.k1 = k1;
        self.b = b;
        self
    }

    /// The same indexes with `name` searched when a call names none.
    pub fn with_default(mut self, name: &str) -> Result<Indexes, SearchError> {
        let known = self.entries.contains_key(name) || (name == WEB && self.provider.is_some());
        if !known {
            return Err(SearchError::Index(format!(
                "no index `{name}` to be the default"
            )));
        }
        self.default = name.to_string();
        Ok(self)
    }

    /// The index names, in order (`web` last, with a live provider).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries
            .keys()
            .map(String::as_str)
            .chain(self.provider.as_ref().map(|_| WEB))
    }

    /// The index searched when a call names none.
    pub fn default_name(&self) -> &str {
        &self.default
    }

    /// The index `name` (the default for `None`), opened (or, for `docs`, built) on first use.
    pub fn get(&self, name: Option<&str>) -> Result<Arc<SearchIndex>, ToolError> {
        let name = name.unwrap_or(&self.default);
        let slot = self.entries.get(name).ok_or_else(|| {
            let live = if name == WEB {
                " (live web search is off: it needs a [web_search.provider] section in the server's config)"
            } else {
                ""
            };
            ToolError::invalid_params(format!(
                "no index `{name}`{live}; this server has: {}",
                self.names().collect::<Vec<_>>().join(", ")
            ))
        })?;
        // The built-in index is one per process, however many engines are built.
        static BUILTIN_INDEX: OnceLock<Result<Arc<SearchIndex>, String>> = OnceLock::new();
        let cell = if slot.dir.is_some() {
            &slot.opened
        } else {
            &BUILTIN_INDEX
        };
        cell.get_or_init(|| {
            let opened = match &slot.dir {
                Some(dir) => SearchIndex::open(dir),
                None => CorpusReader::new(std::io::Cursor::new(BUILTIN_CORPUS))
                    .and_then(|c| SearchIndex::build_in_ram(c, "builtin")),
            };
            opened.map(Arc::new).map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| ToolError::new(ErrorKind::ToolError, format!("index `{name}`: {e}")))
    }
}

/// The distinct words, in order.
fn words_of(words: &[String]) -> Vec<String> {
    let set: std::collections::BTreeSet<&String> = words.iter().collect();
    set.into_iter().cloned().collect()
}

/// The `web_search` tool.
pub struct WebSearch {
    spec: ToolSpec,
    indexes: Arc<Indexes>,
}

impl WebSearch {
    /// The tool over these indexes.
    pub fn new(indexes: Arc<Indexes>) -> WebSearch {
        WebSearch {
            spec: spec::spec(&indexes),
            indexes,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    query: String,
    #[serde(default = "default_max_results")]
    max_results: u64,
    #[serde(default)]
    offset: u64,
    #[serde(default)]
    site: Option<String>,
    #[serde(default)]
    index: Option<String>,
    #[serde(default)]
    contents: bool,
}

fn default_max_results() -> u64 {
    5
}

impl Tool for WebSearch {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: Params = beaker_core::params::parse(params)?;
        if !(1..=MAX_RESULTS).contains(&p.max_results) {
            return Err(ToolError::invalid_params(format!(
                "`max_results` is from 1 to {MAX_RESULTS}, got {}",
                p.max_results
            )));
        }
        if p.offset > MAX_OFFSET {
            return Err(ToolError::invalid_params(format!(
                "`offset` is at most {MAX_OFFSET}, got {}",
                p.offset
            )));
        }
        let words = analyzer::tokens(&mut analyzer::analyzer(), &p.query);
        let distinct = words_of(&words);
        if distinct.len() > MAX_WORDS {
            return Err(ToolError::invalid_params(format!(
                "a query has at most {MAX_WORDS} distinct words, this one has {}",
                distinct.len()
            )));
        }
        let name = p.index.as_deref().unwrap_or(self.indexes.default_name());
        let site = p.site.as_deref().filter(|s| !s.trim().is_empty());
        if let (WEB, Some(provider)) = (name, self.indexes.provider()) {
            let hits =
                provider.search(&p.query, p.max_results as usize, p.offset as usize, site)?;
            let results: Vec<Value> = hits
                .iter()
                .map(|h| {
                    let mut r = json!({"title": h.title, "snippet": h.snippet, "url": h.url, "id": h.url, "score": h.score});
                    if p.contents {
                        // A live result's text is its excerpt: Search-R1's `contents` form of it.
                        r["contents"] = json!(format!("{}\n{}", h.title, h.snippet));
                    }
                    r
                })
                .collect();
            return Ok(json!({"results": results, "index": WEB, "words": distinct}));
        }
        let index = self.indexes.get(Some(name))?;
        let request = Request {
            words: &words,
            limit: p.max_results as usize,
            offset: p.offset as usize,
            site,
            k1: self.indexes.k1,
            b: self.indexes.b,
        };
        let found = index.search(&request, &mut || {
            ctx.checkpoint().map_err(SearchError::Stopped)
        })?;
        let results: Vec<Value> = found
            .hits
            .iter()
            .map(|h| {
                let mut m = Map::new();
                m.insert("title".into(), json!(h.passage.title));
                m.insert("snippet".into(), json!(h.snippet));
                if let Some(url) = &h.passage.url {
                    m.insert("url".into(), json!(url));
                }
                m.insert("id".into(), json!(h.passage.id));
                m.insert("score".into(), json!(h.score));
                if p.contents {
                    m.insert("contents".into(), json!(h.passage.contents()));
                }
                Value::Object(m)
            })
            .collect();
        Ok(json!({
            "results": results,
            "index": name,
            "words": distinct,
        }))
    }

    fn warm_up(&self) {
        // The default index opened (or built, for `docs`) before the first call needs it.
        if self.indexes.default_name() == WEB {
            return;
        }
        if let Err(e) = self.indexes.get(None) {
            tracing::warn!("web_search: {}", e.message);
        }
    }
}
