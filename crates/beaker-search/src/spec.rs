//! The `web_search` tool's `ToolSpec`: params and result schemas, examples (`examples.json`, over the built-in
//! `docs` index) and the notes in `web_search.md`.

use crate::{Indexes, MAX_OFFSET, MAX_QUERY_CHARS, MAX_RESULTS};
use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The tool's spec; the `index` param lists the indexes this server has.
pub(super) fn spec(indexes: &Indexes) -> ToolSpec {
    let names: Vec<&str> = indexes.names().collect();
    ToolSpec {
        name: "web_search".into(),
        description: format!(
            "Search a document collection for passages matching a query (BM25 ranking, offline and \
             deterministic). Returns the best passages with title, snippet, url and score. Use it to look up \
             facts, documentation and definitions. Indexes here: {} (default `{}`).",
            names.join(", "),
            indexes.default_name()
        ),
        params_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "description": "What to search for, in words (operators and quotes are read as words)."},
                "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": 5, "description": "How many passages to return."},
                "offset": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0, "description": "How many of the best passages to skip (the next page)."},
                "site": {"type": "string", "maxLength": 253, "description": "Only passages whose url is on this host or under it (`python.org` matches `docs.python.org`)."},
                "index": {"enum": names, "description": "Which index to search (default: the server's default)."},
                "contents": {"type": "boolean", "default": false, "description": "Also return each passage's whole text as `contents` (its title's line, then the text)."}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "results": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string"},
                        "snippet": {"type": "string"},
                        "url": {"type": "string"},
                        "id": {"type": "string"},
                        "score": {"type": "number"},
                        "contents": {"type": "string"}
                    },
                    "required": ["title", "snippet", "id", "score"],
                    "additionalProperties": false
                }},
                "index": {"type": "string"},
                "words": {"type": "array", "items": {"type": "string"}, "description": "The query's distinct words as the index reads them."}
            },
            "required": ["results", "index", "words"],
            "additionalProperties": false
        }),
        examples: examples(),
        notes: include_str!("web_search.md").into(),
    }
}

fn examples() -> Vec<Example> {
    // An example's `elided` keys default to none (`Example`'s serde default).
    serde_json::from_str(include_str!("examples.json")).unwrap_or_default()
}
