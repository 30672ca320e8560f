//! A BM25 index of a corpus: tantivy keeps the postings (with term frequencies), the passages and two columns
//! (each passage's exact length in tokens, its id); the scores are computed here, by Lucene's formula with exact
//! lengths, window by window over the postings as Lucene's `BooleanScorer` does.

use crate::analyzer::{self, analyzer};
use crate::corpus::{CorpusReader, Passage};
use crate::SearchError;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::path::Path;
use std::time::{Duration, Instant};
use tantivy::postings::Postings;
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value as _, FAST, STORED,
    STRING,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{
    DocAddress, DocId, DocSet, Index, IndexReader, ReloadPolicy, TantivyDocument, Term, TERMINATED,
};

/// The index format this build writes and reads (`beaker-index.json`'s `format`).
pub const FORMAT: u32 = 1;
/// The file beside tantivy's that describes an index.
pub const META_FILE: &str = "beaker-index.json";
/// Lucene's (and pyserini's, so Search-R1's) default `k1`.
pub const DEFAULT_K1: f64 = 0.9;
/// Lucene's (and pyserini's) default `b`.
pub const DEFAULT_B: f64 = 0.4;
/// Characters of a snippet, at most.
pub const SNIPPET_CHARS: usize = 240;

/// What `beaker-index.json` says of an index.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    /// The index format ([`FORMAT`]).
    pub format: u32,
    /// The analyzer the index was built with ([`analyzer::NAME`]).
    pub analyzer: String,
    /// Passages in the index.
    pub passages: u64,
    /// Tokens in all the passages: with `passages`, the average length BM25 normalises by.
    pub tokens: u64,
    /// Passages with a `url` (the others cannot match a `site`).
    pub with_url: u64,
    /// Where the corpus came from (its path, or `builtin`).
    pub source: String,
    /// Seconds the build took.
    pub build_secs: f64,
}

/// An open index.
pub struct SearchIndex {
    reader: IndexReader,
    fields: Fields,
    /// What the index says of itself.
    pub meta: Meta,
    /// Each passage's length part of BM25's denominator, `k1 (1 - b + b dl / avgdl)`, per segment, for the last
    /// `(k1, b)` searched with (bits): one array read per posting instead of a column read and four operations.
    norms: std::sync::Mutex<Option<(Bm25Key, Norms)>>,
}

/// `(k1, b)` as bits.
type Bm25Key = (u64, u64);
/// Each segment's length norms.
type Norms = std::sync::Arc<Vec<Vec<f64>>>;

#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    title: Field,
    text: Field,
    url: Field,
    contents: Field,
    body: Field,
    len: Field,
    site: Field,
}

fn schema() -> (Schema, Fields) {
    let mut s = Schema::builder();
    let stored = TextOptions::default().set_stored();
    let body = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(analyzer::NAME)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        id: s.add_text_field("id", STRING | STORED | FAST),
        title: s.add_text_field("title", stored.clone()),
        text: s.add_text_field("text", stored.clone()),
        url: s.add_text_field("url", stored.clone()),
        contents: s.add_text_field("contents", stored),
        body: s.add_text_field("body", body),
        len: s.add_u64_field("len", FAST),
        site: s.add_text_field("site", STRING),
    };
    (s.build(), fields)
}

fn fields_of(schema: &Schema) -> Result<Fields, SearchError> {
    let f = |name: &str| {
        schema
            .get_field(name)
            .map_err(|_| SearchError::Index(format!("not a web_search index: no `{name}` field")))
    };
    Ok(Fields {
        id: f("id")?,
        title: f("title")?,
        text: f("text")?,
        url: f("url")?,
        contents: f("contents")?,
        body: f("body")?,
        len: f("len")?,
        site: f("site")?,
    })
}

/// How an index is built.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Indexing threads (tantivy's), each with its share of `memory_bytes`.
    pub threads: usize,
    /// Memory the indexing threads may hold before they write a segment (tantivy's budget; the build's peak
    /// is about this plus the merge's buffers).
    pub memory_bytes: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            threads: 1,
            memory_bytes: 256 << 20,
        }
    }
}

/// How far a build is.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Passages indexed.
    pub passages: u64,
    /// Bytes of the corpus file read (compressed bytes for gzip).
    pub bytes_read: u64,
    /// The corpus file's size, when known.
    pub total_bytes: Option<u64>,
    /// Whether the passages are all in and the segments are being merged.
    pub merging: bool,
}

/// The host a url names, lower-cased, without user, port or `www.`.
pub fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => host,
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    (!host.is_empty()).then_some(host)
}

/// The site terms of a host: itself and every parent domain (`docs.python.org`, `python.org`, `org`).
fn sites(host: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(host), |h| h.split_once('.').map(|(_, rest)| rest))
}

impl SearchIndex {
    /// Builds an index of `corpus` into the folder `out` (which must not hold an index), and opens it.
    pub fn build(
        corpus: CorpusReader,
        source: &str,
        out: &Path,
        options: &BuildOptions,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<SearchIndex, SearchError> {
        if out.join(META_FILE).exists() || out.join("meta.json").exists() {
            return Err(SearchError::Index(format!(
                "{} already holds an index",
                out.display()
            )));
        }
        let existed = out.exists();
        if existed
            && std::fs::read_dir(out)
                .map(|mut d| d.next().is_some())
                .unwrap_or(true)
        {
            return Err(SearchError::Index(format!(
                "{} is not empty: an index is built into a new or empty folder",
                out.display()
            )));
        }
        std::fs::create_dir_all(out).map_err(|e| SearchError::io(out, e))?;
        let built = (|| {
            let (schema, fields) = schema();
            let index = Index::create_in_dir(out, schema)?;
            let meta = fill(&index, fields, corpus, source, options, progress)?;
            Ok::<_, SearchError>((index, fields, meta))
        })();
        let (index, fields, meta) = match built {
            Ok(b) => b,
            Err(e) => {
                // A failed build leaves no half index behind: the same command can run again.
                if existed {
                    if let Ok(entries) = std::fs::read_dir(out) {
                        for entry in entries.flatten() {
                            let _ = std::fs::remove_file(entry.path());
                        }
                    }
                } else {
                    let _ = std::fs::remove_dir_all(out);
                }
                return Err(e);
            }
        };
        let json =
            serde_json::to_string_pretty(&meta).map_err(|e| SearchError::Index(e.to_string()))?;
        let path = out.join(META_FILE);
        std::fs::write(&path, json + "\n").map_err(|e| SearchError::io(&path, e))?;
        SearchIndex::from_index(index, fields, meta)
    }

    /// Builds an index of `corpus` in memory.
    pub fn build_in_ram(corpus: CorpusReader, source: &str) -> Result<SearchIndex, SearchError> {
        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        let meta = fill(
            &index,
            fields,
            corpus,
            source,
            &BuildOptions::default(),
            &mut |_| {},
        )?;
        SearchIndex::from_index(index, fields, meta)
    }

    /// Opens the index in the folder `dir` (built by [`SearchIndex::build`]).
    pub fn open(dir: &Path) -> Result<SearchIndex, SearchError> {
        let path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            SearchError::Index(format!(
                "{} is not a web_search index ({}: {e}); build one with `beaker index build CORPUS --out {}`",
                dir.display(),
                META_FILE,
                dir.display()
            ))
        })?;
        let meta: Meta = serde_json::from_str(&text)
            .map_err(|e| SearchError::Index(format!("{}: {e}", path.display())))?;
        if meta.format != FORMAT || meta.analyzer != analyzer::NAME {
            return Err(SearchError::Index(format!(
                "{} is an index of format {} ({}); this build reads format {FORMAT} ({}): build it again",
                dir.display(),
                meta.format,
                meta.analyzer,
                analyzer::NAME
            )));
        }
        let index = Index::open_in_dir(dir)?;
        let fields = fields_of(&index.schema())?;
        SearchIndex::from_index(index, fields, meta)
    }

    fn from_index(index: Index, fields: Fields, meta: Meta) -> Result<SearchIndex, SearchError> {
        index.tokenizers().register(analyzer::NAME, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            reader,
            fields,
            meta,
            norms: std::sync::Mutex::new(None),
        })
    }

    /// The length norms of every passage of `searcher`'s segments for `k1`, `b` (computed once, then reused).
    fn norms(
        &self,
        searcher: &tantivy::Searcher,
        k1: f64,
        b: f64,
        avgdl: f64,
    ) -> Result<Norms, SearchError> {
        let key = (k1.to_bits(), b.to_bits());
        if let Ok(cached) = self.norms.lock() {
            if let Some((k, n)) = cached.as_ref() {
                if *k == key && n.len() == searcher.segment_readers().len() {
                    return Ok(n.clone());
                }
            }
        }
        let mut all = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            let lens = segment.fast_fields().u64("len")?;
            all.push(
                (0..segment.max_doc())
                    .map(|d| {
                        let dl = lens.first(d).unwrap_or(0) as f64;
                        k1 * (1.0 - b + b * dl / avgdl)
                    })
                    .collect(),
            );
        }
        let all = std::sync::Arc::new(all);
        if let Ok(mut cached) = self.norms.lock() {
            *cached = Some((key, all.clone()));
        }
        Ok(all)
    }

    /// The passages whose words best match `request.words` by BM25, best first (equal scores by id, in byte
    /// order). `checkpoint` is polled every 65,536 passages looked at.
    pub fn search(
        &self,
        request: &Request,
        checkpoint: &mut dyn FnMut() -> Result<(), SearchError>,
    ) -> Result<Found, SearchError> {
        let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
        for w in request.words {
            *counts.entry(w.as_str()).or_default() += 1;
        }
        let searcher = self.reader.searcher();
        let n = self.meta.passages as f64;
        let avgdl = if self.meta.passages == 0 {
            1.0
        } else {
            self.meta.tokens as f64 / n
        };
        // Each distinct word once, weighted by how often the query says it (Lucene's query parser makes one
        // clause per occurrence, each adding the same score).
        let mut terms = Vec::new();
        for (word, count) in &counts {
            let term = Term::from_field_text(self.fields.body, word);
            let df = searcher.doc_freq(&term)?;
            if df == 0 {
                continue;
            }
            let idf = (1.0 + (n - df as f64 + 0.5) / (df as f64 + 0.5)).ln();
            terms.push((term, f64::from(*count) * idf, idf, (*word).to_string()));
        }
        let site = match request.site {
            Some(s) => Some(
                host_of(s)
                    .ok_or_else(|| SearchError::Request(format!("`site` names no host: {s:?}")))?,
            ),
            None => None,
        };
        let want = request.offset.saturating_add(request.limit);
        let mut best: Vec<(f64, String, DocAddress)> = Vec::new();
        let norms = if terms.is_empty() {
            std::sync::Arc::new(Vec::new())
        } else {
            self.norms(&searcher, request.k1, request.b, avgdl)?
        };
        for (seg_ord, segment) in searcher.segment_readers().iter().enumerate() {
            if terms.is_empty() || want == 0 {
                break;
            }
            let max_doc = segment.max_doc();
            let norm = &norms[seg_ord];
            let ids = segment
                .fast_fields()
                .str("id")?
                .ok_or_else(|| SearchError::Index("the index has no id column".into()))?;
            let inverted = segment.inverted_index(self.fields.body)?;
            let alive = segment.alive_bitset();
            let allowed = match &site {
                Some(host) => {
                    let site_index = segment.inverted_index(self.fields.site)?;
                    let term = Term::from_field_text(self.fields.site, host);
                    let mut set = vec![0u64; (max_doc as usize).div_ceil(64)];
                    if let Some(mut p) =
                        site_index.read_postings(&term, IndexRecordOption::Basic)?
                    {
                        let mut d = p.doc();
                        while d != TERMINATED {
                            set[(d / 64) as usize] |= 1 << (d % 64);
                            d = p.advance();
                        }
                    }
                    Some(set)
                }
                None => None,
            };
            // MaxScore (Turtle and Flood, 1995): words in order of their largest possible part of a score (its
            // weight: tf / (tf + norm) < 1); once the heap is full, the cheapest words whose parts together cannot
            // lift a passage to the heap's worst score are "non-essential": passages are only found through the
            // others, and the non-essential words' postings are skipped to those passages, and not even that
            // when the passage cannot make it anyway.
            let mut cursors = Vec::new();
            for (idx, (term, weight, _, _)) in terms.iter().enumerate() {
                if let Some(p) = inverted.read_postings(term, IndexRecordOption::WithFreqs)? {
                    cursors.push((p, *weight, idx));
                }
            }
            cursors.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)));
            let mut bound = vec![0f64; cursors.len() + 1];
            for (i, c) in cursors.iter().enumerate() {
                bound[i + 1] = bound[i] + c.1;
            }
            let mut parts = vec![0f64; terms.len()];
            let mut present: Vec<usize> = Vec::with_capacity(terms.len());
            let mut heap: BinaryHeap<Candidate> = BinaryHeap::new();
            // Below this, a passage cannot enter the heap (a hair under the worst score in it, for rounding).
            let mut floor = f64::NEG_INFINITY;
            let mut essential = 0;
            let mut steps = 0u32;
            loop {
                let d = cursors[essential..]
                    .iter()
                    .map(|(p, _, _)| p.doc())
                    .min()
                    .unwrap_or(TERMINATED);
                if d == TERMINATED {
                    break;
                }
                steps = steps.wrapping_add(1);
                if steps.is_multiple_of(1 << 16) {
                    checkpoint()?;
                }
                let skip = alive.is_some_and(|a| a.is_deleted(d))
                    || allowed
                        .as_ref()
                        .is_some_and(|set| set[(d / 64) as usize] & (1 << (d % 64)) == 0);
                let n_d = norm[d as usize];
                let mut partial = 0.0;
                present.clear();
                for (postings, weight, idx) in cursors[essential..].iter_mut() {
                    if postings.doc() == d {
                        if !skip {
                            let tf = f64::from(postings.term_freq());
                            let part = *weight * tf / (tf + n_d);
                            parts[*idx] = part;
                            present.push(*idx);
                            partial += part;
                        }
                        postings.advance();
                    }
                }
                if skip {
                    continue;
                }
                let mut out = false;
                for i in (0..essential).rev() {
                    if partial + bound[i + 1] < floor {
                        out = true;
                        break;
                    }
                    let (postings, weight, idx) = &mut cursors[i];
                    if postings.doc() < d {
                        postings.seek(d);
                    }
                    if postings.doc() == d {
                        let tf = f64::from(postings.term_freq());
                        let part = *weight * tf / (tf + n_d);
                        parts[*idx] = part;
                        present.push(*idx);
                        partial += part;
                    }
                }
                if out || partial < floor {
                    continue;
                }
                // The score summed in the query's word order, whatever order the parts were found in: the same
                // passage gets the same bits however far the search had gone.
                present.sort_unstable();
                let score = present.iter().fold(0.0, |acc, &i| acc + parts[i]);
                let ord = || ids.ords().first(d).unwrap_or(u64::MAX);
                if heap.len() < want {
                    heap.push(Candidate {
                        score,
                        ord: ord(),
                        doc: d,
                    });
                } else if let Some(worst) = heap.peek() {
                    if score >= worst.score {
                        let c = Candidate {
                            score,
                            ord: ord(),
                            doc: d,
                        };
                        if c < *worst {
                            heap.pop();
                            heap.push(c);
                        }
                    }
                }
                if heap.len() == want {
                    if let Some(worst) = heap.peek() {
                        floor = worst.score - worst.score.abs() * 1e-12;
                        while essential < cursors.len() && bound[essential + 1] < floor {
                            essential += 1;
                        }
                    }
                }
            }
            for c in heap.into_vec() {
                let mut id = String::new();
                ids.ord_to_str(c.ord, &mut id)?;
                best.push((c.score, id, DocAddress::new(seg_ord as u32, c.doc)));
            }
            checkpoint()?;
        }
        best.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let mut weights: BTreeMap<String, f32> = BTreeMap::new();
        for (_, _, idf, word) in &terms {
            weights.insert(word.clone(), *idf as f32);
        }
        let snippets = SnippetGenerator::new(weights, analyzer(), self.fields.body, SNIPPET_CHARS);
        let mut hits = Vec::new();
        for (score, _, address) in best.into_iter().skip(request.offset).take(request.limit) {
            let doc: TantivyDocument = searcher.doc(address)?;
            let passage = self.passage(&doc);
            let snippet = snippet(&snippets, &passage.text);
            hits.push(Hit {
                passage,
                score,
                snippet,
            });
        }
        Ok(Found { hits })
    }

    fn passage(&self, doc: &TantivyDocument) -> Passage {
        let get = |f: Field| {
            doc.get_first(f)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        Passage {
            id: get(self.fields.id).unwrap_or_default(),
            title: get(self.fields.title).unwrap_or_default(),
            text: get(self.fields.text).unwrap_or_default(),
            url: get(self.fields.url),
            contents: get(self.fields.contents),
        }
    }
}

/// The best fragment of `text` for the query's words; the text's beginning when none of them is in it.
fn snippet(generator: &SnippetGenerator, text: &str) -> String {
    let s = generator.snippet(text);
    let range = s.fragment_range();
    if !s.fragment().trim().is_empty() && range.end <= text.len() {
        // tantivy cuts fragments at token boundaries, which can be inside a word (`don't` is two tokens):
        // widen the cut to the whitespace around it.
        // Back to just after the whitespace before (which may be several bytes long: U+00A0, U+3000).
        let start = text[..range.start]
            .trim_end_matches(|c: char| !c.is_whitespace())
            .len();
        let end = text[range.end..]
            .find(char::is_whitespace)
            .map_or(text.len(), |i| range.end + i);
        return text[start..end].trim().to_string();
    }
    let end = text
        .char_indices()
        .nth(SNIPPET_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    // Cut at the last space, as the fragments are cut at word ends.
    match head.rfind(' ') {
        Some(i) if end < text.len() && i > 0 => head[..i].trim().to_string(),
        _ => head.trim().to_string(),
    }
}

/// A passage in the running for the top: ordered worst first, so a max-heap's top is the one to drop.
#[derive(PartialEq)]
struct Candidate {
    score: f64,
    /// The id's rank among the segment's ids (their byte order).
    ord: u64,
    doc: DocId,
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        // Greater is worse: a lower score, or an equal score and a later id.
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.ord.cmp(&other.ord))
            .then_with(|| self.doc.cmp(&other.doc))
    }
}

/// One search.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The query's words as the analyzer reads it ([`analyzer::tokens`]), with repeats: no operators.
    pub words: &'a [String],
    /// Passages to return.
    pub limit: usize,
    /// Passages to skip first.
    pub offset: usize,
    /// Only passages whose url's host is this host or under it.
    pub site: Option<&'a str>,
    /// BM25's term-frequency saturation.
    pub k1: f64,
    /// BM25's length normalisation.
    pub b: f64,
}

/// One passage found.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The passage.
    pub passage: Passage,
    /// Its BM25 score.
    pub score: f64,
    /// The part of its text that best matches the query.
    pub snippet: String,
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct Found {
    /// The passages asked for, best first.
    pub hits: Vec<Hit>,
}

fn fill(
    index: &Index,
    fields: Fields,
    mut corpus: CorpusReader,
    source: &str,
    options: &BuildOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Meta, SearchError> {
    let started = Instant::now();
    index.tokenizers().register(analyzer::NAME, analyzer());
    let threads = options.threads.max(1);
    // tantivy refuses a budget under 15 MB per thread.
    // tantivy's arena is at most 4 GiB per thread.
    let per_thread = (options.memory_bytes / threads).clamp(16 << 20, (4 << 30) - (1 << 20));
    let memory = per_thread * threads;
    let mut writer: tantivy::IndexWriter<TantivyDocument> =
        index.writer_with_num_threads(threads, memory)?;
    // One merge at the end instead of merging segments while indexing: every byte is rewritten once.
    writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    let mut tokenizer = analyzer();
    let mut meta = Meta {
        format: FORMAT,
        analyzer: analyzer::NAME.into(),
        passages: 0,
        tokens: 0,
        with_url: 0,
        source: source.into(),
        build_secs: 0.0,
    };
    let mut last = Instant::now();
    let report = |meta: &Meta, corpus: &CorpusReader, merging| Progress {
        passages: meta.passages,
        bytes_read: corpus.bytes_read(),
        total_bytes: corpus.total_bytes,
        merging,
    };
    while let Some(p) = corpus.next_passage()? {
        let body = p.contents();
        let len = analyzer::count(&mut tokenizer, &body);
        let mut doc = TantivyDocument::new();
        doc.add_text(fields.id, &p.id);
        doc.add_text(fields.title, &p.title);
        doc.add_text(fields.text, &p.text);
        if let Some(c) = &p.contents {
            doc.add_text(fields.contents, c);
        }
        if let Some(url) = &p.url {
            doc.add_text(fields.url, url);
            meta.with_url += 1;
            if let Some(host) = host_of(url) {
                for s in sites(&host) {
                    doc.add_text(fields.site, s);
                }
            }
        }
        doc.add_text(fields.body, &body);
        doc.add_u64(fields.len, len);
        writer.add_document(doc)?;
        meta.passages += 1;
        meta.tokens += len;
        if last.elapsed() >= Duration::from_millis(500) {
            progress(&report(&meta, &corpus, false));
            last = Instant::now();
        }
    }
    writer.commit()?;
    progress(&report(&meta, &corpus, true));
    let segments = index.searchable_segment_ids()?;
    if segments.len() > 1 {
        writer.merge(&segments).wait()?;
    }
    writer.wait_merging_threads()?;
    meta.build_secs = started.elapsed().as_secs_f64();
    Ok(meta)
}
