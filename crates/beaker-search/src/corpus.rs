//! Corpora: JSON Lines of passages, plain or gzip, in Search-R1's form (`{"id", "contents"}`, where
//! `contents` is the title's line, then the text) or the common one (`{"id", "title", "text", "url"}`).

use crate::SearchError;
use beaker_core::json_type as kind;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One passage of a corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// The corpus's id for it (a number in the corpus is written in decimal).
    pub id: String,
    /// Its title (Search-R1's form: the first line of `contents`, its quotes removed).
    pub title: String,
    /// Its text (Search-R1's form: `contents` after the first line).
    pub text: String,
    /// Where it came from, when the corpus says.
    pub url: Option<String>,
    /// `contents` as the corpus wrote it (Search-R1's form only).
    pub contents: Option<String>,
}

impl Passage {
    /// What is indexed and what `/retrieve` returns as `contents`: the corpus's `contents`, else the title's
    /// line and the text (so `title = contents.split("\n")[0]`, as Search-R1's clients read it).
    pub fn contents(&self) -> String {
        match &self.contents {
            Some(c) => c.clone(),
            None => format!("{}\n{}", self.title, self.text),
        }
    }

    /// Reads one line of a corpus (`None` for a blank line).
    pub fn parse(line: &str) -> Result<Option<Passage>, String> {
        if line.trim().is_empty() {
            return Ok(None);
        }
        let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
        let Value::Object(map) = v else {
            return Err(format!("a passage is a JSON object, not {}", kind(&v)));
        };
        let id = match map.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) if n.is_u64() || n.is_i64() => n.to_string(),
            Some(other) => {
                return Err(format!(
                    "`id` is a string or an integer, not {}",
                    kind(other)
                ))
            }
            None => return Err("no `id`".into()),
        };
        let text_of = |key: &str| -> Result<Option<String>, String> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!("`{key}` is a string, not {}", kind(other))),
            }
        };
        let url = text_of("url")?;
        if let Some(contents) = text_of("contents")? {
            let (first, rest) = contents.split_once('\n').unwrap_or((&contents, ""));
            return Ok(Some(Passage {
                id,
                title: first.trim().trim_matches('"').to_string(),
                text: rest.to_string(),
                url,
                contents: Some(contents),
            }));
        }
        let Some(text) = text_of("text")? else {
            return Err("no `contents` (Search-R1's form) and no `text`".into());
        };
        Ok(Some(Passage {
            id,
            title: text_of("title")?.unwrap_or_default(),
            text,
            url,
            contents: None,
        }))
    }
}

/// The longest corpus line read (a passage is a few kilobytes): what bounds a build's memory for its input.
pub const MAX_LINE_BYTES: u64 = 16 << 20;

/// A corpus being read, line by line, with how far into the file it is.
pub struct CorpusReader {
    lines: Box<dyn BufRead + Send>,
    read: Arc<AtomicU64>,
    /// The file's size in bytes (compressed, for gzip), when it is a file.
    pub total_bytes: Option<u64>,
    line: u64,
    buf: Vec<u8>,
}

struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl CorpusReader {
    /// Opens a corpus file; gzip is recognised by its magic bytes, whatever the file's name.
    pub fn open(path: &Path) -> Result<CorpusReader, SearchError> {
        let file = File::open(path).map_err(|e| SearchError::io(path, e))?;
        let total = file.metadata().ok().map(|m| m.len());
        let mut r = CorpusReader::new(file)?;
        r.total_bytes = total;
        Ok(r)
    }

    /// Reads a corpus from any reader (plain or gzip).
    pub fn new(source: impl Read + Send + 'static) -> Result<CorpusReader, SearchError> {
        let read = Arc::new(AtomicU64::new(0));
        let mut counted = BufReader::with_capacity(
            1 << 16,
            Counting {
                inner: source,
                read: read.clone(),
            },
        );
        let head = counted
            .fill_buf()
            .map_err(|e| SearchError::Corpus(format!("reading the corpus: {e}")))?;
        let gzip = head.starts_with(&[0x1f, 0x8b]);
        let lines: Box<dyn BufRead + Send> = if gzip {
            Box::new(BufReader::with_capacity(
                1 << 16,
                flate2::bufread::MultiGzDecoder::new(counted),
            ))
        } else {
            Box::new(counted)
        };
        Ok(CorpusReader {
            lines,
            read,
            total_bytes: None,
            line: 0,
            buf: Vec::new(),
        })
    }

    /// Bytes of the source read so far (compressed bytes for gzip): the progress against `total_bytes`.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// The next passage, or `None` at the end; an error names the line.
    pub fn next_passage(&mut self) -> Result<Option<Passage>, SearchError> {
        loop {
            self.buf.clear();
            let n = (&mut self.lines)
                .take(MAX_LINE_BYTES + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| SearchError::Corpus(format!("line {}: {e}", self.line + 1)))?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            if n as u64 > MAX_LINE_BYTES {
                let hint = if self.buf.first() == Some(&b'[') {
                    " (a JSON array? a corpus is JSON Lines: one passage object per line)"
                } else {
                    ""
                };
                return Err(SearchError::Corpus(format!(
                    "line {} is longer than {} MiB{hint}",
                    self.line,
                    MAX_LINE_BYTES >> 20
                )));
            }
            let text = std::str::from_utf8(&self.buf)
                .map_err(|e| SearchError::Corpus(format!("line {}: not UTF-8 ({e})", self.line)))?;
            match Passage::parse(text) {
                Ok(Some(p)) => return Ok(Some(p)),
                Ok(None) => continue,
                Err(e) => return Err(SearchError::Corpus(format!("line {}: {e}", self.line))),
            }
        }
    }
}
