//! `web_search`, `beaker index` and `/retrieve`: scores against bm25s (tests/data/web_search/bm25_reference.jsonl,
//! written by tests/data/gen/web_search_reference.py), both corpus forms built by the binary and served, and
//! Search-R1's retrieval route as its clients post to it.

use crate::http::Http;
use crate::support::{beaker, ensure, json_server, jsonl, peers_python, root, Outcome, Server};
use beaker::search::Indexes;
use beaker::{Catalog, Engine, ToolCall};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "web_search::scores_and_ranks_equal_bm25s",
            scores_equal_bm25s,
        ),
        Trial::test(
            "web_search::the_config_files_k1_and_b_are_used",
            config_k1_and_b,
        ),
        Trial::test(
            "web_search::index_build_reads_search_r1s_form_and_serves_it",
            search_r1_form,
        ),
        Trial::test("web_search::index_build_refuses_bad_corpora", bad_corpora),
        Trial::test(
            "web_search::serve_refuses_a_folder_that_is_not_an_index",
            not_an_index,
        ),
        Trial::test(
            "web_search::retrieve_answers_as_search_r1s_server",
            retrieve_route,
        ),
        Trial::test(
            "web_search::the_bench_scenario_agrees_with_the_bm25s_peer",
            bench_against_bm25s_peer,
        ),
        Trial::test(
            "web_search::a_configured_searxng_is_the_index_web",
            live_provider,
        ),
    ]
}

/// Relative tolerance on a score: both sides compute in float64, summing the same terms in another order.
const RTOL: f64 = 1e-9;

fn engine(k1: f64, b: f64) -> Result<Engine, String> {
    Catalog::empty()
        .with("web_search")
        .map_err(|e| e.to_string())?
        .indexes(std::sync::Arc::new(
            Indexes::new(Vec::new()).with_bm25(k1, b),
        ))
        .engine()
        .map_err(|e| e.to_string())
}

/// The results of one search: `(id, score)` in order.
fn ranked(result: &Value) -> Vec<(String, f64)> {
    result["results"]
        .as_array()
        .map(|hits| {
            hits.iter()
                .map(|h| {
                    (
                        h["id"].as_str().unwrap_or_default().to_string(),
                        h["score"].as_f64().unwrap_or(f64::NAN),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `got` is the reference case's top: the same ids in the same order (two passages whose reference scores are
/// within RTOL may trade places), each score within RTOL.
fn same_as_reference(case: &Value, result: &Value) -> Outcome {
    let got = ranked(result);
    let want: Vec<(String, f64)> = case["top"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|h| {
                    (
                        h["id"].as_str().unwrap_or_default().to_string(),
                        h["score"].as_f64().unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let query = &case["query"];
    ensure(got.len() == want.len(), || {
        format!("{query}: {} results, bm25s has {}", got.len(), want.len())
    })?;
    for (i, ((gid, gs), (wid, ws))) in got.iter().zip(&want).enumerate() {
        ensure((gs - ws).abs() <= RTOL * ws.abs(), || {
            format!("{query}: rank {i} scores {gs}, bm25s {ws}")
        })?;
        let tied = want
            .iter()
            .any(|(id, s)| id == gid && (s - ws).abs() <= RTOL * ws.abs());
        ensure(gid == wid || tied, || {
            format!("{query}: rank {i} is {gid}, bm25s has {wid}")
        })?;
    }
    Ok(())
}

fn scores_equal_bm25s() -> Outcome {
    let cases = jsonl("tests/data/web_search/bm25_reference.jsonl");
    ensure(cases.len() >= 200, || {
        format!("only {} reference queries", cases.len())
    })?;
    let lucene = engine(0.9, 0.4)?;
    let classic = engine(1.2, 0.75)?;
    for case in &cases {
        let e = if case["k1"] == 0.9 { &lucene } else { &classic };
        let env = e.call(ToolCall::new(
            "web_search",
            json!({"query": case["query"], "max_results": 10}),
        ));
        let result = env
            .result
            .filter(|_| env.success)
            .ok_or_else(|| format!("{}: {:?}", case["query"], env.error))?;
        same_as_reference(case, &result)?;
    }
    Ok(())
}

/// A config file's `[web_search] k1, b` reach the scores (over the binary).
fn config_k1_and_b() -> Outcome {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("beaker.toml");
    std::fs::write(&config, "[web_search]\nk1 = 1.2\nb = 0.75\n").map_err(|e| e.to_string())?;
    let cases: Vec<Value> = jsonl("tests/data/web_search/bm25_reference.jsonl")
        .into_iter()
        .filter(|c| c["k1"] == 1.2)
        .take(10)
        .collect();
    let config = config.to_string_lossy().to_string();
    let mut server = Server::start(&["--no-python", "--config", &config]);
    for (i, case) in cases.iter().enumerate() {
        server.send(&json!({"id": i, "tool": "web_search", "params": {"query": case["query"], "max_results": 10}}));
        let env = server.recv();
        same_as_reference(case, &env["result"])?;
    }
    Ok(())
}

/// The shipped corpus rewritten in Search-R1's form (`contents` = `"Title"` line, then the text), gzip.
fn search_r1_corpus(path: &Path) -> Result<Vec<Value>, String> {
    let file = std::fs::File::open(root().join("tests/data/web_search/corpus.jsonl.gz"))
        .map_err(|e| e.to_string())?;
    let text =
        std::io::read_to_string(flate2::read::GzDecoder::new(file)).map_err(|e| e.to_string())?;
    let mut out = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut rows = Vec::new();
    for line in text.lines() {
        let row: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let contents = format!(
            "\"{}\"\n{}",
            row["title"].as_str().unwrap_or(""),
            row["text"].as_str().unwrap_or("")
        );
        let r1 = json!({"id": row["id"], "contents": contents});
        writeln!(out, "{r1}").map_err(|e| e.to_string())?;
        rows.push(r1);
    }
    std::fs::write(path, out.finish().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    Ok(rows)
}

fn search_r1_form() -> Outcome {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let corpus = dir.path().join("wiki.jsonl.gz");
    let rows = search_r1_corpus(&corpus)?;
    let out_dir = dir.path().join("index");
    let built = beaker()
        .args(["index", "build"])
        .arg(&corpus)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&built.stderr).to_string();
    ensure(
        built.status.success() && stderr.contains("indexed 10600 passages"),
        || format!("index build: {:?} {stderr}", built.status),
    )?;
    let info = beaker()
        .args(["index", "info"])
        .arg(&out_dir)
        .output()
        .map_err(|e| e.to_string())?;
    let info: Value = serde_json::from_slice(&info.stdout).map_err(|e| e.to_string())?;
    ensure(
        info["passages"] == 10600
            && info["with_url"] == 0
            && info["tokens"].as_u64() > Some(600_000),
        || format!("index info: {info}"),
    )?;
    // The quotes around titles are no words: the same tokens as the built-in index, so the same scores.
    let cases: Vec<Value> = jsonl("tests/data/web_search/bm25_reference.jsonl")
        .into_iter()
        .filter(|c| c["k1"] == 0.9)
        .take(20)
        .collect();
    let index_arg = format!("r1={}", out_dir.display());
    let mut server = Server::start(&["--no-python", "--index", &index_arg]);
    for (i, case) in cases.iter().enumerate() {
        server.send(&json!({"id": i, "tool": "web_search", "params": {"query": case["query"], "max_results": 10, "contents": true}}));
        let env = server.recv();
        ensure(env["result"]["index"] == "r1", || {
            format!("the first --index is not the default: {env}")
        })?;
        same_as_reference(case, &env["result"])?;
        // `contents` is the corpus's own, byte for byte; `title` has its quotes taken off, as Search-R1 does.
        for hit in env["result"]["results"].as_array().into_iter().flatten() {
            let row = hit["id"]
                .as_str()
                .and_then(|id| id.parse::<usize>().ok())
                .and_then(|n| rows.get(n));
            let row = row.ok_or_else(|| format!("no corpus row {}", hit["id"]))?;
            ensure(
                hit["contents"] == row["contents"]
                    && !hit["title"].as_str().unwrap_or("\"").starts_with('"'),
                || format!("{hit} is not {row}"),
            )?;
        }
    }
    server.send(&json!({"id": "docs", "tool": "web_search", "params": {"query": "git", "index": "docs", "max_results": 1}}));
    let env = server.recv();
    ensure(
        env["result"]["index"] == "docs" && env["result"]["results"][0]["url"].is_string(),
        || format!("the built-in index is not served beside: {env}"),
    )?;
    server.send(
        &json!({"id": "nope", "tool": "web_search", "params": {"query": "git", "index": "wiki"}}),
    );
    let env = server.recv();
    ensure(env["error_kind"] == "invalid_params", || {
        format!("an unknown index: {env}")
    })?;
    drop(server);
    // The same folder from a config file's `[web_search] indexes`, with `default` naming the built-in one.
    let config = dir.path().join("beaker.toml");
    let toml = |default: &str| {
        format!(
            "[web_search]\nindexes = {{ r1 = {:?} }}\ndefault = {default:?}\n",
            out_dir.display().to_string()
        )
    };
    std::fs::write(&config, toml("docs")).map_err(|e| e.to_string())?;
    let config_arg = config.to_string_lossy().to_string();
    let mut server = Server::start(&["--no-python", "--config", &config_arg]);
    server.send(&json!({"id": 1, "tool": "web_search", "params": {"query": "git rebase"}}));
    let plain = server.recv();
    server.send(
        &json!({"id": 2, "tool": "web_search", "params": {"query": "git rebase", "index": "r1"}}),
    );
    let named = server.recv();
    ensure(
        plain["result"]["index"] == "docs"
            && named["result"]["index"] == "r1"
            && named["result"]["results"][0]["id"] == plain["result"]["results"][0]["id"],
        || format!("[web_search] indexes and default: {plain} {named}"),
    )?;
    drop(server);
    std::fs::write(&config, toml("wiki")).map_err(|e| e.to_string())?;
    let out = beaker()
        .args(["serve", "--no-python", "--config", &config_arg])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    ensure(
        out.status.code() == Some(2) && err.contains("default = \"wiki\" names no index"),
        || format!("a default that names no index: {:?} {err}", out.status),
    )
}

fn bad_corpora() -> Outcome {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let build = |corpus: &Path, out: &Path| {
        beaker()
            .args(["index", "build"])
            .arg(corpus)
            .arg("--out")
            .arg(out)
            .output()
    };
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\": 1, \"text\": \"fine\"}\n\n{\"id\": 2, \"contents\": 7}\n",
    )
    .map_err(|e| e.to_string())?;
    let out = build(&bad, &dir.path().join("a")).map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    ensure(
        out.status.code() == Some(2)
            && err.contains("line 3")
            && err.contains("`contents` is a string"),
        || format!("a bad line: {:?} {err}", out.status),
    )?;
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, "{\"id\": 1, \"text\": \"fine\"}\n").map_err(|e| e.to_string())?;
    let first = build(&good, &dir.path().join("b")).map_err(|e| e.to_string())?;
    ensure(first.status.success(), || format!("{first:?}"))?;
    let again = build(&good, &dir.path().join("b")).map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&again.stderr).to_string();
    ensure(
        again.status.code() == Some(2) && err.contains("already holds an index"),
        || format!("an index built over another: {err}"),
    )?;
    let missing =
        build(&dir.path().join("nope.jsonl"), &dir.path().join("c")).map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&missing.stderr).to_string();
    ensure(
        missing.status.code() == Some(2) && err.contains("nope.jsonl"),
        || format!("a missing corpus: {err}"),
    )
}

fn not_an_index() -> Outcome {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let arg = format!("wiki={}", dir.path().display());
    let out = beaker()
        .args(["serve", "--no-python", "--index", &arg])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    ensure(
        out.status.code() == Some(2)
            && err.contains("index `wiki`")
            && err.contains("beaker index build"),
        || format!("{:?} {err}", out.status),
    )?;
    let out = beaker()
        .args(["serve", "--no-python", "--index", "no-equals-sign"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    ensure(out.status.code() == Some(2), || {
        format!("a bad --index: {:?}", out.status)
    })
}

fn retrieve_route() -> Outcome {
    let http = Http::start(&["--no-python"])?;
    // Search-R1's rollout loop and verl's SearchTool post exactly this.
    let (st, v) = http.json(
        "POST",
        "/retrieve",
        &json!({"queries": ["git rebase interactive", "json dumps"], "topk": 3, "return_scores": true}),
    )?;
    let result = v["result"].as_array().ok_or(format!("{st} {v}"))?;
    ensure(st == 200 && result.len() == 2, || format!("{st} {v}"))?;
    for docs in result {
        let docs = docs.as_array().ok_or(format!("{v}"))?;
        ensure(docs.len() == 3, || format!("topk 3: {v}"))?;
        for d in docs {
            let keys: Vec<&String> = d
                .as_object()
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            let dkeys: Vec<&String> = d["document"]
                .as_object()
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            ensure(
                keys == ["document", "score"] && dkeys == ["id", "contents"] && d["score"].is_f64(),
                || format!("not Search-R1's document shape: {d}"),
            )?;
        }
    }
    // The scores are web_search's.
    let (_, call) = http.json(
        "POST",
        "/v1/call",
        &json!({"tool": "web_search", "params": {"query": "json dumps", "max_results": 3}}),
    )?;
    ensure(
        call["result"]["results"][0]["score"] == result[1][0]["score"]
            && call["result"]["results"][0]["id"] == result[1][0]["document"]["id"],
        || format!("/retrieve and web_search disagree: {call} {v}"),
    )?;
    // Without scores, the documents alone; a missing or zero topk is Search-R1's default, 3.
    for body in [
        json!({"queries": ["json dumps"]}),
        json!({"queries": ["json dumps"], "topk": 0, "return_scores": false}),
    ] {
        let (st, v) = http.json("POST", "/retrieve", &body)?;
        let first = &v["result"][0];
        ensure(
            st == 200
                && first.as_array().map(Vec::len) == Some(3)
                && first[0]["contents"].is_string()
                && first[0].get("score").is_none(),
            || format!("{body}: {st} {v}"),
        )?;
    }
    let (st, v) = http.json("POST", "/retrieve", &json!({"queries": [], "topk": 2}))?;
    ensure(st == 200 && v == json!({"result": []}), || {
        format!("no queries: {st} {v}")
    })?;
    let (st, v) = http.json(
        "POST",
        "/retrieve",
        &json!({"queries": ["???", ""], "topk": 2}),
    )?;
    ensure(st == 200 && v == json!({"result": [[], []]}), || {
        format!("queries without words: {st} {v}")
    })?;
    for (body, says) in [
        (
            json!({"queries": ["x"], "topk": 1000}),
            "topk is at most 100",
        ),
        (json!({"queries": "x"}), "invalid request"),
        (json!({"topk": 3}), "queries"),
        (json!({"queries": ["x"], "index": "wiki"}), "\"wiki\""),
    ] {
        let (st, v) = http.json("POST", "/retrieve", &body)?;
        ensure(
            st == 422 && v["detail"].as_str().is_some_and(|d| d.contains(says)),
            || format!("{body}: {st} {v}"),
        )?;
    }
    let many: Vec<String> = (0..1025).map(|i| format!("q{i}")).collect();
    let (st, _) = http.json("POST", "/retrieve", &json!({"queries": many}))?;
    ensure(st == 422, || format!("1025 queries: {st}"))?;
    // A batch past the route's concurrent share (64) is answered whole, in order.
    let batch: Vec<String> = (0..150)
        .map(|i| {
            if i % 2 == 0 {
                "commit".to_string()
            } else {
                "python".to_string()
            }
        })
        .collect();
    let (st, v) = http.json("POST", "/retrieve", &json!({"queries": batch, "topk": 1}))?;
    let ids: Vec<&Value> = v["result"]
        .as_array()
        .map(|r| r.iter().map(|d| &d[0]["id"]).collect())
        .unwrap_or_default();
    ensure(
        st == 200
            && ids.len() == 150
            && ids.iter().step_by(2).all(|i| *i == ids[0])
            && ids[0] != ids[1],
        || format!("a batch of 150: {st} {}", ids.len()),
    )?;
    http.still_serves()
}

/// `benches/scenarios/web_search.jsonl` on the built-in index, compared by `beaker bench` with the Python peer's
/// bm25s over the same corpus (`benches/search/bm25s_index.py`): every answer's ids, titles, urls and scores
/// agree.
fn bench_against_bm25s_peer() -> Outcome {
    let python = peers_python()?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let index = dir.path().join("bm25s");
    let built = std::process::Command::new(&python)
        .current_dir(root())
        .arg("benches/search/bm25s_index.py")
        .arg("tests/data/web_search/corpus.jsonl.gz")
        .arg(&index)
        .output()
        .map_err(|e| e.to_string())?;
    ensure(built.status.success(), || {
        format!("bm25s_index.py: {built:?}")
    })?;
    let peer = format!(
        "{} benches/peers/python_server.py --workers 1 --web-search-index {}",
        python.display(),
        index.display()
    );
    let server = format!("{} serve --no-python", env!("CARGO_BIN_EXE_beaker"));
    let out = beaker()
        .current_dir(root())
        .args([
            "bench",
            "benches/scenarios/web_search.jsonl",
            "-n",
            "200",
            "--rounds",
            "2",
            "--json",
            "--quiet",
        ])
        .args(["--server", &server, "--compare", &peer])
        .output()
        .map_err(|e| e.to_string())?;
    let r: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}: {out:?}"))?;
    ensure(
        out.status.success()
            && r["a"]["overall"]["failures"] == 0
            && r["b"]["overall"]["failures"] == 0
            && r["checked"].as_u64() > Some(50)
            && r["differences"] == json!([]),
        || r.to_string(),
    )
}

/// A local server speaking SearXNG's JSON API, configured as `[web_search.provider]`: `index: "web"` reaches it
/// through the binary; a Brave provider without its key stops the server at start.
fn live_provider() -> Outcome {
    let url = json_server(|first| {
        let body = if first.contains("format=json") {
            r#"{"query": "q", "results": [{"url": "https://en.wikipedia.org/wiki/JWST", "title": "James Webb Space Telescope", "content": "The largest telescope in space", "score": 3.5}]}"#
        } else {
            "{}"
        };
        (200, body.to_string())
    })?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("beaker.toml");
    std::fs::write(
        &config,
        format!("[web_search.provider]\nkind = \"searxng\"\nurl = \"{url}\"\ntimeout_ms = 3000\n"),
    )
    .map_err(|e| e.to_string())?;
    let config = config.to_string_lossy().to_string();
    let mut server = Server::start(&["--no-python", "--config", &config]);
    server.send(&json!({"id": 1, "tool": "web_search", "params": {"query": "latest JWST discoveries 2025", "index": "web"}}));
    let env = server.recv();
    ensure(
        env["result"]["results"][0]
            == json!({"title": "James Webb Space Telescope", "snippet": "The largest telescope in space", "url": "https://en.wikipedia.org/wiki/JWST", "id": "https://en.wikipedia.org/wiki/JWST", "score": 3.5})
            && env["result"]["index"] == "web",
        || format!("{env}"),
    )?;
    server.send(&json!({"id": 3, "tool": "web_search", "params": {"query": "JWST", "index": "web", "contents": true}}));
    let env = server.recv();
    ensure(
        env["result"]["results"][0]["contents"]
            == "James Webb Space Telescope\nThe largest telescope in space",
        || format!("a live result's contents (what /retrieve returns): {env}"),
    )?;
    server.send(&json!({"id": 2, "tool": "web_search", "params": {"query": "git"}}));
    let env = server.recv();
    ensure(env["result"]["index"] == "docs", || {
        format!("the default is still the built-in index: {env}")
    })?;
    let brave = dir.path().join("brave.toml");
    std::fs::write(
        &brave,
        "[web_search.provider]\nkind = \"brave\"\napi_key_env = \"BEAKER_TEST_UNSET_KEY\"\n",
    )
    .map_err(|e| e.to_string())?;
    let out = beaker()
        .args(["serve", "--no-python", "--config"])
        .arg(&brave)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    ensure(
        out.status.code() == Some(2) && err.contains("BEAKER_TEST_UNSET_KEY is not set"),
        || format!("{:?} {err}", out.status),
    )
}
