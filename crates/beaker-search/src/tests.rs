//! Unit tests of the index: reading corpora, building, scoring, ties, sites and paging.

use crate::corpus::{CorpusReader, Passage};
use crate::index::{host_of, Request, SearchIndex};
use crate::{analyzer, SearchError};
use std::io::Write;

fn index_of(lines: &str) -> SearchIndex {
    let corpus = CorpusReader::new(std::io::Cursor::new(lines.as_bytes().to_vec()));
    let built = corpus.and_then(|c| SearchIndex::build_in_ram(c, "test"));
    match built {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    }
}

/// What an `Err` says, or nothing for `Ok`.
fn err_text<T, E: std::fmt::Display>(r: Result<T, E>) -> String {
    r.err().map(|e| e.to_string()).unwrap_or_default()
}

fn search(
    index: &SearchIndex,
    query: &str,
    limit: usize,
    offset: usize,
    site: Option<&str>,
) -> Vec<(String, f64)> {
    let words = analyzer::tokens(&mut analyzer::analyzer(), query);
    let request = Request {
        words: &words,
        limit,
        offset,
        site,
        k1: 0.9,
        b: 0.4,
    };
    match index.search(&request, &mut || Ok(())) {
        Ok(found) => found
            .hits
            .into_iter()
            .map(|h| (h.passage.id, h.score))
            .collect(),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn both_corpus_forms_are_read() {
    let r1 = Passage::parse(r#"{"id": "7", "contents": "\"Paris\"\nThe capital of France."}"#);
    let r1 = r1.ok().flatten();
    assert_eq!(r1.as_ref().map(|p| p.title.as_str()), Some("Paris"));
    assert_eq!(
        r1.as_ref().map(|p| p.text.as_str()),
        Some("The capital of France.")
    );
    assert_eq!(
        r1.map(|p| p.contents()),
        Some("\"Paris\"\nThe capital of France.".to_string())
    );
    let common = Passage::parse(
        r#"{"id": 12, "title": "Paris", "text": "Capital.", "url": "https://x.org/p"}"#,
    );
    let common = common.ok().flatten();
    assert_eq!(common.as_ref().map(|p| p.id.as_str()), Some("12"));
    assert_eq!(
        common.map(|p| p.contents()),
        Some("Paris\nCapital.".to_string())
    );
    assert_eq!(Passage::parse("   "), Ok(None));
    for (bad, says) in [
        ("[1]", "JSON object"),
        (r#"{"text": "x"}"#, "no `id`"),
        (
            r#"{"id": 1.5, "text": "x"}"#,
            "`id` is a string or an integer",
        ),
        (r#"{"id": "1"}"#, "no `contents`"),
        (r#"{"id": "1", "text": 3}"#, "`text` is a string"),
        ("{", "not JSON"),
    ] {
        let err = Passage::parse(bad).err().unwrap_or_default();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn gzip_is_recognised_by_its_bytes_and_errors_name_the_line() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ =
        gz.write_all(b"{\"id\": \"a\", \"text\": \"one\"}\n\n{\"id\": \"b\", \"text\": \"two\"}\n");
    let bytes = gz.finish().unwrap_or_default();
    let Ok(mut reader) = CorpusReader::new(std::io::Cursor::new(bytes)) else {
        panic!("gzip not read")
    };
    let ids: Vec<String> = std::iter::from_fn(|| reader.next_passage().ok().flatten())
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, ["a", "b"]);
    let Ok(mut bad) = CorpusReader::new(std::io::Cursor::new(
        b"{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": \"b\"}\n".to_vec(),
    )) else {
        panic!("plain not read")
    };
    assert!(bad.next_passage().is_ok());
    let err = err_text(bad.next_passage());
    assert!(err.contains("line 2"), "{err}");
    let Ok(mut not_utf8) =
        CorpusReader::new(std::io::Cursor::new(b"{\"id\": \"\xff\"}\n".to_vec()))
    else {
        panic!()
    };
    let err = err_text(not_utf8.next_passage());
    assert!(err.contains("line 1: not UTF-8"), "{err}");
}

#[test]
fn the_analyzer_splits_at_non_alphanumerics_and_lower_cases() {
    let mut a = analyzer::analyzer();
    assert_eq!(
        analyzer::tokens(&mut a, "Don't PANIC: x86_64 café-au-lait ΣΊΣΥΦΟΣ 4.2"),
        [
            "don",
            "t",
            "panic",
            "x86",
            "64",
            "café",
            "au",
            "lait",
            "σίσυφοσ",
            "4",
            "2"
        ]
    );
    assert_eq!(analyzer::count(&mut a, "title:foo AND bar* \"quoted\""), 5);
}

#[test]
fn scores_are_lucenes_bm25_with_exact_lengths() {
    // N = 3, avgdl = (2 + 4 + 1) / 3; "apple" is in two passages.
    let index = index_of(concat!(
        r#"{"id": "a", "title": "", "text": "apple pie"}"#,
        "\n",
        r#"{"id": "b", "title": "", "text": "apple apple and pears"}"#,
        "\n",
        r#"{"id": "c", "title": "", "text": "plums"}"#,
        "\n",
    ));
    let (n, df, avgdl, k1, b) = (3.0f64, 2.0f64, 7.0f64 / 3.0, 0.9, 0.4);
    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
    let score = |tf: f64, dl: f64| idf * tf / (tf + k1 * (1.0 - b + b * dl / avgdl));
    let got = search(&index, "apple", 10, 0, None);
    let want = [
        ("b".to_string(), score(2.0, 4.0)),
        ("a".to_string(), score(1.0, 2.0)),
    ];
    assert_eq!(got.len(), 2);
    for ((gid, gs), (wid, ws)) in got.iter().zip(want.iter()) {
        assert_eq!(gid, wid);
        assert!((gs - ws).abs() <= 1e-12 * ws, "{gs} vs {ws}");
    }
    // A word said twice weighs twice, as Lucene's query parser's two clauses do.
    let twice = search(&index, "apple apple", 1, 0, None);
    assert!((twice[0].1 - 2.0 * want[0].1).abs() <= 1e-12);
    assert!(search(&index, "kiwi", 10, 0, None).is_empty());
    assert!(search(&index, "?!", 10, 0, None).is_empty());
}

#[test]
fn equal_scores_are_ordered_by_id_and_pages_follow() {
    let mut lines = String::new();
    for id in ["m", "c", "x", "a", "k", "b"] {
        lines.push_str(&format!(
            "{{\"id\": \"{id}\", \"title\": \"\", \"text\": \"same words here\"}}\n"
        ));
    }
    let index = index_of(&lines);
    let ids = |v: Vec<(String, f64)>| v.into_iter().map(|(i, _)| i).collect::<Vec<_>>();
    assert_eq!(
        ids(search(&index, "words", 10, 0, None)),
        ["a", "b", "c", "k", "m", "x"]
    );
    assert_eq!(ids(search(&index, "words", 2, 0, None)), ["a", "b"]);
    assert_eq!(ids(search(&index, "words", 2, 2, None)), ["c", "k"]);
    assert_eq!(ids(search(&index, "words", 5, 4, None)), ["m", "x"]);
    assert!(search(&index, "words", 5, 6, None).is_empty());
}

#[test]
fn a_site_is_the_host_or_a_parent_domain() {
    assert_eq!(
        host_of("https://Docs.Python.org:443/3/x.html?q#f").as_deref(),
        Some("docs.python.org")
    );
    assert_eq!(
        host_of("http://user@www.example.com/").as_deref(),
        Some("example.com")
    );
    assert_eq!(host_of("example.com/path").as_deref(), Some("example.com"));
    assert_eq!(host_of("https:///nothing"), None);
    let index = index_of(concat!(
        r#"{"id": "1", "title": "", "text": "rust book", "url": "https://doc.rust-lang.org/book/"}"#,
        "\n",
        r#"{"id": "2", "title": "", "text": "rust blog", "url": "https://blog.rust-lang.org/"}"#,
        "\n",
        r#"{"id": "3", "title": "", "text": "rust mirror", "url": "https://evil-rust-lang.org/"}"#,
        "\n",
        r#"{"id": "4", "title": "", "text": "rust nowhere"}"#,
        "\n",
    ));
    let ids = |site| {
        let mut v: Vec<String> = search(&index, "rust", 10, 0, Some(site))
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids("rust-lang.org"), ["1", "2"]);
    assert_eq!(ids("https://blog.rust-lang.org/2024"), ["2"]);
    assert_eq!(ids("www.doc.rust-lang.org"), ["1"]);
    assert!(ids("lang.org").is_empty());
    let words = [String::from("rust")];
    let request = Request {
        words: &words,
        limit: 1,
        offset: 0,
        site: Some("///"),
        k1: 0.9,
        b: 0.4,
    };
    assert!(matches!(
        index.search(&request, &mut || Ok(())),
        Err(SearchError::Request(_))
    ));
}

#[test]
fn an_empty_corpus_is_an_index_that_finds_nothing() {
    let index = index_of("");
    assert_eq!(index.meta.passages, 0);
    assert!(search(&index, "anything", 5, 0, None).is_empty());
}

#[test]
fn a_folder_is_built_once_and_reopened() {
    let Ok(dir) = tempfile::tempdir() else {
        panic!("no temp dir")
    };
    let out = dir.path().join("idx");
    let corpus = || {
        CorpusReader::new(std::io::Cursor::new(
            b"{\"id\": \"1\", \"text\": \"hello world\"}\n".to_vec(),
        ))
    };
    let mut reports = 0;
    let built = corpus()
        .and_then(|c| SearchIndex::build(c, "t", &out, &Default::default(), &mut |_| reports += 1));
    assert!(built.is_ok());
    assert!(reports >= 1, "the merge step is reported");
    let again =
        corpus().and_then(|c| SearchIndex::build(c, "t", &out, &Default::default(), &mut |_| {}));
    assert!(err_text(again).contains("already holds an index"));
    let opened = SearchIndex::open(&out);
    let Ok(opened) = opened else {
        panic!("not reopened")
    };
    assert_eq!(search(&opened, "world", 1, 0, None)[0].0, "1");
    let not = err_text(SearchIndex::open(dir.path()));
    assert!(not.contains("beaker index build"), "{not}");
}

#[test]
fn a_stopped_call_stops_the_search() {
    let mut lines = String::new();
    for i in 0..20_000 {
        lines.push_str(&format!(
            "{{\"id\": \"{i}\", \"text\": \"common word {i}\"}}\n"
        ));
    }
    let index = index_of(&lines);
    let words = [String::from("common")];
    let request = Request {
        words: &words,
        limit: 5,
        offset: 0,
        site: None,
        k1: 0.9,
        b: 0.4,
    };
    let stop = beaker_core::ToolError::new(beaker_core::ErrorKind::Timeout, "deadline");
    let r = index.search(&request, &mut || Err(SearchError::Stopped(stop.clone())));
    assert!(matches!(r, Err(SearchError::Stopped(_))));
    let found = index.search(&request, &mut || Ok(()));
    assert_eq!(found.map(|f| f.hits.len()).ok(), Some(5));
}

#[test]
fn a_query_of_more_distinct_words_than_lucene_allows_is_refused() {
    use beaker_core::Tool;
    let tool = crate::WebSearch::new(std::sync::Arc::new(crate::Indexes::default()));
    let ctx = beaker_core::CallContext::new(beaker_core::Limits::default());
    let words: Vec<String> = (0..=crate::MAX_WORDS).map(|i| format!("w{i}")).collect();
    let params = serde_json::json!({"query": words.join(" ")});
    let err = tool
        .call(&params, &ctx)
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(err.contains("at most 1024 distinct words"), "{err}");
}

/// A one-request-at-a-time HTTP server on a free port answering every request with `status` and `body` (after
/// `delay`), and the request lines it saw.
fn fake_service(
    status: u16,
    body: &'static str,
    delay: std::time::Duration,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader};
    let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else {
        panic!("no port")
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            if let Ok(mut l) = log.lock() {
                l.push(head);
            }
            std::thread::sleep(delay);
            let mut w = &stream;
            let _ = write!(
                w,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (format!("http://127.0.0.1:{port}"), seen)
}

fn provider(
    kind: &str,
    url: &str,
    key_env: Option<&str>,
    timeout_ms: u64,
) -> Result<crate::Provider, SearchError> {
    crate::Provider::new(&crate::ProviderConfig {
        kind: kind.into(),
        url: Some(url.into()),
        api_key_env: key_env.map(str::to_string),
        timeout_ms: Some(timeout_ms),
        cache_entries: None,
        cache_secs: None,
    })
}

const SEARXNG_ANSWER: &str = r#"{"query": "rust", "number_of_results": 0, "results": [
 {"url": "https://www.rust-lang.org/", "title": "Rust", "content": "A language empowering everyone", "engine": "duckduckgo", "score": 4.0},
 {"url": "https://blog.rust-lang.org/x", "title": "Blog", "content": "Announcing", "engine": "bing", "score": 2.5},
 {"url": "https://elsewhere.example/rust", "title": "Other", "content": "Not on the site", "score": 1.0},
 {"title": "no url"}]}"#;

#[test]
fn searxng_is_asked_with_its_json_api_and_answers_are_cached() {
    let (url, seen) = fake_service(200, SEARXNG_ANSWER, std::time::Duration::ZERO);
    let Ok(p) = provider("searxng", &url, None, 5000) else {
        panic!("not configured")
    };
    let hits = p.search("rust", 10, 0, None).unwrap_or_default();
    assert_eq!(hits.len(), 3, "{hits:?}");
    assert_eq!(
        (
            hits[0].title.as_str(),
            hits[0].snippet.as_str(),
            hits[0].score
        ),
        ("Rust", "A language empowering everyone", 4.0)
    );
    let head = seen.lock().map(|l| l[0].clone()).unwrap_or_default();
    assert!(
        head.starts_with("GET /search?q=rust&format=json&pageno=1 HTTP/1.1"),
        "{head}"
    );
    // A site keeps its pages only (and is said in the query); the same search again is the cache's.
    let on_site = p
        .search("rust", 10, 0, Some("rust-lang.org"))
        .unwrap_or_default();
    assert_eq!(
        on_site.iter().map(|h| h.url.as_str()).collect::<Vec<_>>(),
        ["https://www.rust-lang.org/", "https://blog.rust-lang.org/x"]
    );
    let n = seen.lock().map(|l| l.len()).unwrap_or(0);
    assert_eq!(
        p.search("rust", 10, 0, Some("rust-lang.org"))
            .unwrap_or_default(),
        on_site
    );
    assert_eq!(
        seen.lock().map(|l| l.len()).unwrap_or(0),
        n,
        "the second search was not cached"
    );
    let second = seen.lock().map(|l| l[1].clone()).unwrap_or_default();
    assert!(
        second.contains("q=rust") && second.contains("site") && second.contains("rust-lang.org"),
        "{second}"
    );
    assert_eq!(
        p.search("rust", 1, 1, None).unwrap_or_default()[0].title,
        "Blog"
    );
}

#[test]
fn brave_is_asked_with_its_key_and_marks_are_taken_out() {
    let (url, seen) = fake_service(
        200,
        r#"{"type": "search", "web": {"results": [{"title": "Rust", "url": "https://rust-lang.org/", "description": "A <strong>language</strong> &amp; tools"}]}}"#,
        std::time::Duration::ZERO,
    );
    std::env::set_var("BEAKER_TEST_BRAVE_KEY", "k-123");
    let Ok(p) = provider("brave", &url, Some("BEAKER_TEST_BRAVE_KEY"), 5000) else {
        panic!("not configured")
    };
    let hits = p.search("rust", 5, 0, None).unwrap_or_default();
    assert_eq!(hits.len(), 1);
    assert_eq!(
        (hits[0].snippet.as_str(), hits[0].score),
        ("A language & tools", 1.0)
    );
    let head = seen.lock().map(|l| l[0].clone()).unwrap_or_default();
    assert!(
        head.starts_with("GET /res/v1/web/search?q=rust&count=20&offset=0 HTTP/1.1"),
        "{head}"
    );
    assert!(
        head.to_ascii_lowercase()
            .contains("x-subscription-token: k-123"),
        "{head}"
    );
    let missing = err_text(provider(
        "brave",
        &url,
        Some("BEAKER_TEST_NO_SUCH_KEY"),
        5000,
    ));
    assert!(
        missing.contains("BEAKER_TEST_NO_SUCH_KEY is not set"),
        "{missing}"
    );
}

#[test]
fn a_provider_that_fails_says_how() {
    let (url, _) = fake_service(
        429,
        r#"{"error": "rate limited"}"#,
        std::time::Duration::ZERO,
    );
    let Ok(p) = provider("searxng", &url, None, 5000) else {
        panic!()
    };
    let err = err_text(p.search("x", 5, 0, None));
    assert!(
        err.contains("HTTP 429") && err.contains("rate limited"),
        "{err}"
    );
    let (slow, _) = fake_service(200, SEARXNG_ANSWER, std::time::Duration::from_millis(1500));
    let Ok(p) = provider("searxng", &slow, None, 200) else {
        panic!()
    };
    let started = std::time::Instant::now();
    assert!(p.search("x", 5, 0, None).is_err());
    assert!(
        started.elapsed() < std::time::Duration::from_millis(1400),
        "the timeout was not kept"
    );
    let (junk, _) = fake_service(200, "<html>", std::time::Duration::ZERO);
    let Ok(p) = provider("searxng", &junk, None, 5000) else {
        panic!()
    };
    let err = err_text(p.search("x", 5, 0, None));
    assert!(err.contains("not JSON"), "{err}");
    for (kind, url) in [("bing", "http://x"), ("searxng", "ftp://x")] {
        assert!(provider(kind, url, None, 5000).is_err());
    }
}

#[test]
fn pruned_search_equals_scoring_every_passage() {
    // 3,000 passages of words from a skewed vocabulary of 40 (so common words, rare words and many equal
    // scores), searched with pruning and scored here by brute force: the same passages, scores and order.
    let mut seed = 41u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let vocab: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let mut docs: Vec<Vec<String>> = Vec::new();
    let mut lines = String::new();
    for i in 0..3000 {
        let len = 1 + next() % 12;
        let words: Vec<String> = (0..len)
            .map(|_| vocab[(next() % 40).min(next() % 40)].clone())
            .collect();
        let url = if i % 3 == 0 {
            "https://a.example/x"
        } else {
            "https://b.example/y"
        };
        lines.push_str(&format!(
            "{{\"id\": \"p{:04}\", \"text\": \"{}\", \"url\": \"{url}\"}}\n",
            i % 1700,
            words.join(" ")
        ));
        docs.push(words);
    }
    let index = index_of(&lines);
    let n = docs.len() as f64;
    // Every passage's text is indexed after an empty title's line: the same words.
    let avgdl = docs.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let df = |w: &String| docs.iter().filter(|d| d.contains(w)).count() as f64;
    let dfs: std::collections::HashMap<&String, f64> = vocab.iter().map(|w| (w, df(w))).collect();
    for q in 0..150 {
        let words: Vec<String> = (0..1 + q % 6).map(|_| vocab[next() % 40].clone()).collect();
        let query = words.join(" ");
        let site = (q % 5 == 0).then_some("a.example");
        let mut distinct = words.clone();
        distinct.sort();
        let mut brute: Vec<(String, f64)> = Vec::new();
        for (i, doc) in docs.iter().enumerate() {
            if site.is_some() && i % 3 != 0 {
                continue;
            }
            let mut score = 0.0;
            let mut any = false;
            let mut seen = distinct.clone();
            seen.dedup();
            for w in &seen {
                let tf = doc.iter().filter(|x| *x == w).count() as f64;
                if tf == 0.0 {
                    continue;
                }
                any = true;
                let df = dfs[w];
                let times = words.iter().filter(|x| *x == w).count() as f64;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                score +=
                    times * idf * tf / (tf + 0.9 * (1.0 - 0.4 + 0.4 * doc.len() as f64 / avgdl));
            }
            if any {
                brute.push((format!("p{:04}", i % 1700), score));
            }
        }
        brute.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        for (limit, offset) in [(1, 0), (10, 0), (7, 3), (25, 40)] {
            let got = search(&index, &query, limit, offset, site);
            let want: Vec<&(String, f64)> = brute.iter().skip(offset).take(limit).collect();
            assert_eq!(got.len(), want.len(), "{query} {limit} {offset}");
            for (g, w) in got.iter().zip(want) {
                assert!((g.1 - w.1).abs() <= 1e-12 * w.1, "{query}: {g:?} vs {w:?}");
                // Equal scores may differ in the last bit between the two sums: the id decides only exact ties.
                let tied = brute
                    .iter()
                    .any(|b| b.0 == g.0 && (b.1 - w.1).abs() <= 1e-12 * w.1);
                assert!(
                    g.0 == w.0 || tied,
                    "{query} {limit} {offset}: {g:?} vs {w:?}"
                );
            }
        }
    }
}

#[test]
fn review_fixes_hold() {
    // A snippet cut after a multi-byte space (U+00A0, U+3000) does not panic.
    let text = format!(
        "{}\u{a0}alpha\u{3000}beta gamma {}",
        "x".repeat(300),
        "y ".repeat(200)
    );
    let index = index_of(&format!(
        "{{\"id\": \"1\", \"text\": {}}}\n",
        serde_json::json!(text)
    ));
    let words = [String::from("beta")];
    let request = Request {
        words: &words,
        limit: 1,
        offset: 0,
        site: None,
        k1: 0.9,
        b: 0.4,
    };
    let found = index.search(&request, &mut || Ok(()));
    let snippet = found.map(|f| f.hits[0].snippet.clone()).unwrap_or_default();
    assert!(snippet.contains("beta"), "{snippet:?}");
    // A line past the cap is refused, naming it, with a hint for a JSON array.
    let mut huge = b"[".to_vec();
    huge.extend(std::iter::repeat_n(
        b' ',
        (crate::corpus::MAX_LINE_BYTES + 10) as usize,
    ));
    let Ok(mut r) = CorpusReader::new(std::io::Cursor::new(huge)) else {
        panic!()
    };
    let err = err_text(r.next_passage());
    assert!(
        err.contains("line 1 is longer than 16 MiB") && err.contains("JSON array"),
        "{err}"
    );
    // A failed build leaves nothing behind: the same folder builds afterwards.
    let Ok(dir) = tempfile::tempdir() else {
        panic!()
    };
    let out = dir.path().join("idx");
    let bad = CorpusReader::new(std::io::Cursor::new(
        b"{\"id\": 1, \"text\": \"a\"}\n{\"oops\": 1}\n".to_vec(),
    ));
    assert!(bad
        .and_then(|c| SearchIndex::build(c, "t", &out, &Default::default(), &mut |_| {}))
        .is_err());
    assert!(!out.exists());
    let good = CorpusReader::new(std::io::Cursor::new(
        b"{\"id\": 1, \"text\": \"a\"}\n".to_vec(),
    ));
    assert!(good
        .and_then(|c| SearchIndex::build(c, "t", &out, &Default::default(), &mut |_| {}))
        .is_ok());
    // More memory than tantivy's arena allows per thread is clamped, not an error.
    let big = crate::BuildOptions {
        threads: 1,
        memory_bytes: 8 << 30,
    };
    let c = CorpusReader::new(std::io::Cursor::new(
        b"{\"id\": 1, \"text\": \"a\"}\n".to_vec(),
    ));
    assert!(c
        .and_then(|c| SearchIndex::build(c, "t", &dir.path().join("big"), &big, &mut |_| {}))
        .is_ok());
}
