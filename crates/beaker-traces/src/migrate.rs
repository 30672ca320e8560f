//! `beaker migrate`: seed 001's "Migration from Old Formats": `User:`/`Human:` turns become `Q:`,
//! `Assistant:`/`AI:` become `A:`, `<|tool_call|>NAME(ARGS)<|tool_end|>` becomes a `<tool_call>` JSON call
//! and `<|tool_result|>TEXT<|tool_result_end|>` a `<tool_result>` JSON result. Every other byte is kept.

use crate::lint::qa_roles;
use crate::records::read_line_capped;
use crate::{Diagnostic, Registry, MAX_RECORD_BYTES};
use beaker_dialects::{parse, render, Dialect, Item, ParseOptions, Problem};
use std::io::{BufRead, Write};

/// What migrating one file did.
#[derive(Debug, Default)]
pub struct Migration {
    /// Each rewrite, as a diagnostic at the place it was made (rule `migrate`).
    pub changes: Vec<Diagnostic>,
    /// What could not be rewritten (rule `migrate/unresolved`), left as it was.
    pub unresolved: Vec<Diagnostic>,
}

const RESULT_OPEN: &str = "<|tool_result|>";
const RESULT_CLOSE: &str = "<|tool_result_end|>";

/// Reads a Q:/A: file from `reader`, writes the migrated file to `out`, and says what changed (`shown`
/// names the file in the report). Positional arguments of a deprecated call are named after the tool's
/// parameters, so the tool's schema must be known (the catalog, or `--tools`); when it is not, the call
/// is left as it was and reported.
pub fn migrate(
    shown: &str,
    mut reader: impl BufRead,
    mut out: impl Write,
    registry: &Registry,
) -> std::io::Result<Migration> {
    let mut m = Migration::default();
    let mut buf = Vec::new();
    let mut line = 0;
    let mut last_tool: Option<String> = None;
    loop {
        let (n, cut) = read_line_capped(&mut reader, &mut buf, MAX_RECORD_BYTES)?;
        if n == 0 {
            break;
        }
        line += 1;
        let report = |rule: &'static str, col: usize, message: String| Diagnostic {
            path: shown.to_string(),
            line,
            col,
            rule,
            message,
        };
        if cut {
            m.unresolved.push(report(
                "migrate/unresolved",
                1,
                "the line is longer than 64 MiB: the file was not migrated".into(),
            ));
            return Ok(m);
        }
        let mut bytes = std::mem::take(&mut buf);
        // Columns are reported on the line as it is on disk, before its prefix shrank.
        let mut shift = 0;
        if let Some((old, new)) = qa_roles()
            .iter()
            .find(|(old, _)| bytes.starts_with(old.as_bytes()))
        {
            bytes.splice(..old.len(), new.bytes());
            shift = old.len() - new.len();
            m.changes
                .push(report("migrate", 1, format!("`{old}` → `{new}`")));
        }
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                // Not UTF-8: only the turn prefix (ASCII) could be rewritten.
                out.write_all(e.as_bytes())?;
                buf = e.into_bytes();
                continue;
            }
        };
        let rewritten = rewrite_line(&text, registry, &mut last_tool, &mut |col, msg, ok| {
            let d = report(
                if ok { "migrate" } else { "migrate/unresolved" },
                col + shift,
                msg,
            );
            if ok {
                m.changes.push(d);
            } else {
                m.unresolved.push(d);
            }
        });
        out.write_all(rewritten.as_bytes())?;
        buf = text.into_bytes();
    }
    out.flush()?;
    Ok(m)
}

/// One line with its deprecated calls and results rewritten; `note(col, message, done)` hears of each.
fn rewrite_line(
    text: &str,
    registry: &Registry,
    last_tool: &mut Option<String>,
    note: &mut dyn FnMut(usize, String, bool),
) -> String {
    if !text.contains("<|tool_call|>") && !text.contains(RESULT_OPEN) {
        return text.to_string();
    }
    let col = |at: usize| text[..at].chars().count() + 1;
    let mut out = String::with_capacity(text.len() + 64);
    let mut copied = 0;
    let opts = ParseOptions::default();
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for item in parse(text, &opts).items {
        let Item::Bad(bad) = item else { continue };
        let deprecated_marker = text[bad.span.start..].starts_with("<|tool_call|>");
        let args = match &bad.problem {
            Problem::Deprecated { args, .. } => args,
            _ if deprecated_marker => {
                let why = match &bad.problem {
                    Problem::Incomplete => "the call does not end on its line".to_string(),
                    _ => bad.message(),
                };
                note(
                    col(bad.span.start),
                    format!("a deprecated call that cannot be read: {why}; rewrite it by hand"),
                    false,
                );
                continue;
            }
            _ => continue,
        };
        let tool = bad.tool.clone().unwrap_or_default();
        let spec = registry.spec(&tool);
        // The names `deprecated_suggestion` gives positional arguments; past them it would invent `argN`.
        let named = render::param_names(spec).len();
        if args.len() > named {
            let why = if spec.is_none() {
                "no schema names them: give the tool's schema with --tools FILE".to_string()
            } else {
                format!("the tool has {named} parameters")
            };
            note(
                col(bad.span.start),
                format!(
                    "`{tool}(...)` has {} positional arguments and {why}",
                    args.len()
                ),
                false,
            );
            *last_tool = Some(tool);
            continue;
        }
        if let Some(new) = render::deprecated_suggestion(&bad, spec, Dialect::Tagged) {
            note(
                col(bad.span.start),
                format!("`<|tool_call|>{tool}(...)<|tool_end|>` → `{new}`"),
                true,
            );
            edits.push((bad.span.clone(), new));
        }
        *last_tool = Some(tool);
    }
    let mut from = 0;
    while let Some(i) = text[from..].find(RESULT_OPEN) {
        let start = from + i;
        let body = start + RESULT_OPEN.len();
        let Some(j) = text[body..].find(RESULT_CLOSE) else {
            note(
                col(start),
                "`<|tool_result|>` without `<|tool_result_end|>` on its line".into(),
                false,
            );
            break;
        };
        let end = body + j + RESULT_CLOSE.len();
        let result = text[body..body + j].trim();
        let mut obj = serde_json::Map::new();
        if let Some(t) = last_tool.as_ref() {
            obj.insert("tool".into(), t.clone().into());
        }
        obj.insert("success".into(), true.into());
        // Structured results stay structured; anything else is the result's text, as seed 001 writes it.
        let value = match serde_json::from_str::<serde_json::Value>(result) {
            Ok(v @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => v,
            _ => result.into(),
        };
        obj.insert("result".into(), value);
        let new = format!(
            "<tool_result>{}</tool_result>",
            render::python_json(&serde_json::Value::Object(obj))
        );
        note(
            col(start),
            format!("`<|tool_result|>…<|tool_result_end|>` → `{new}`"),
            true,
        );
        edits.push((start..end, new));
        from = end;
    }
    edits.sort_by_key(|(r, _)| r.start);
    for (range, new) in edits {
        if range.start < copied {
            continue;
        }
        out.push_str(&text[copied..range.start]);
        out.push_str(&new);
        copied = range.end;
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, registry: &Registry) -> (String, Migration) {
        let mut out = Vec::new();
        let m = migrate("f.txt", text.as_bytes(), &mut out, registry).expect("migrate");
        (String::from_utf8(out).expect("utf8"), m)
    }

    #[test]
    fn rewrites_turns_calls_and_results_and_keeps_the_rest() {
        let mut r = Registry::default();
        let dir = std::env::temp_dir().join(format!("beaker-migrate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let reg = dir.join("tools.json");
        std::fs::write(&reg, r#"[{"name": "generate_image", "parameters": {"type": "object", "properties": {"prompt": {"type": "string"}, "width": {"type": "integer"}}}}]"#).expect("write");
        r.add_file(&reg).expect("registry");
        let old = "# DO NOT USE\r\nUser: Generate an image\nAssistant: <|tool_call|>generate_image(\"sunset\")<|tool_end|>\n<|tool_result|>Image generated<|tool_result_end|>\nDone!";
        let (new, m) = run(old, &r);
        assert_eq!(
            new,
            "# DO NOT USE\r\nQ: Generate an image\nA: <tool_call>{\"tool\": \"generate_image\", \"params\": {\"prompt\": \"sunset\"}}</tool_call>\n<tool_result>{\"tool\": \"generate_image\", \"success\": true, \"result\": \"Image generated\"}</tool_result>\nDone!"
        );
        assert_eq!(m.changes.len(), 4);
        assert!(m.unresolved.is_empty());
        // Migrating again changes nothing.
        let (again, m) = run(&new, &r);
        assert_eq!(again, new);
        assert!(m.changes.is_empty());
    }

    #[test]
    fn what_cannot_be_rewritten_is_reported_where_it_is_on_disk() {
        let r = {
            let mut r = Registry::default();
            let dir = std::env::temp_dir().join(format!("beaker-migrate2-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("dir");
            let reg = dir.join("tools.json");
            std::fs::write(&reg, r#"[{"name": "calc", "parameters": {"type": "object", "properties": {"expression": {}}}}]"#).expect("write");
            r.add_file(&reg).expect("registry");
            r
        };
        for line in [
            "Assistant: x <|tool_call|>calc(\"1\", \"2\")<|tool_end|>\n",
            "Assistant: x <|tool_call|>calc(\"1\"<|tool_end|>\n",
            "Assistant: x <|tool_call|>calc(\n",
        ] {
            let (new, m) = run(line, &r);
            assert_eq!(m.unresolved.len(), 1, "{line}: {m:?}");
            assert_eq!(m.unresolved[0].col, 14, "{line}");
            assert!(new.starts_with("A: x <|tool_call|>"), "{new}");
        }
        let (new, _) = run("<|tool_result|>{\"value\": 27.78}<|tool_result_end|>\n", &r);
        assert_eq!(
            new,
            "<tool_result>{\"success\": true, \"result\": {\"value\": 27.78}}</tool_result>\n"
        );
    }

    #[test]
    fn positional_arguments_need_a_schema() {
        let old = "A: <|tool_call|>mystery(\"x\")<|tool_end|>\n";
        let (new, m) = run(old, &Registry::default());
        assert_eq!(new, old);
        assert_eq!(m.unresolved.len(), 1);
        assert_eq!(m.unresolved[0].rule, "migrate/unresolved");
    }

    #[test]
    fn invalid_utf8_is_kept_byte_for_byte() {
        let old: &[u8] = b"User: caf\xe9\nAI: ok\n";
        let mut out = Vec::new();
        migrate("f", old, &mut out, &Registry::default()).expect("migrate");
        assert_eq!(out, b"Q: caf\xe9\nA: ok\n");
    }
}
