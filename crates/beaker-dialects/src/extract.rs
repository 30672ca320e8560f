//! From a parsed JSON value to calls: the name and arguments keys, their aliases, OpenAI `tool_calls`, and
//! the arguments of the deprecated `NAME(ARGS)` form.

use crate::{lenient, BadCall, Call, Dialect, Problem};
use serde_json::{Map, Value};
use std::ops::Range;

/// The arguments keys, in the order they are looked up.
const ARGS_KEYS: [&str; 3] = ["params", "arguments", "parameters"];

/// What one call object holds.
pub(crate) struct Fields {
    pub tool: String,
    pub params: Value,
    pub id: Option<String>,
    /// The name came from `"tool"` (tagged) rather than `"name"` (hermes).
    pub tool_key: bool,
    /// Lenient mode repaired string-encoded arguments.
    pub repaired: bool,
}

/// Whether an object has the shape of a call: a name key and an arguments key (what fences require, so an
/// ordinary JSON block is not mistaken for a call).
pub(crate) fn is_call_shaped(obj: &Map<String, Value>) -> bool {
    (obj.contains_key("tool") || obj.contains_key("name"))
        && ARGS_KEYS.iter().any(|k| obj.contains_key(*k))
}

fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Arguments as an object: an object, a JSON string of one, or a double-encoded string; null means `{}`.
/// In lenient mode a string that is not JSON is repaired first. Returns whether it was.
pub(crate) fn arguments(key: &str, v: &Value, lenient: bool) -> Result<(Value, bool), String> {
    let mut v = v.clone();
    let mut repaired = false;
    for _ in 0..3 {
        match v {
            Value::Object(_) => return Ok((v, repaired)),
            Value::Null => return Ok((Value::Object(Map::new()), repaired)),
            Value::String(s) => {
                v = match serde_json::from_str(&s) {
                    Ok(v) => v,
                    Err(e) => {
                        let fixed = lenient
                            .then(|| lenient::repair(&s))
                            .flatten()
                            .and_then(|r| serde_json::from_str(&r).ok());
                        match fixed {
                            Some(v) => {
                                repaired = true;
                                v
                            }
                            None => {
                                return Err(format!("\"{key}\" is a string that is not JSON: {e}"))
                            }
                        }
                    }
                };
            }
            _ => break,
        }
    }
    Err(format!("\"{key}\" must be a JSON object"))
}

/// Reads a call object's name, arguments and id.
pub(crate) fn fields(obj: &Map<String, Value>, lenient: bool) -> Result<Fields, String> {
    let (tool, tool_key) = match (obj.get("tool"), obj.get("name")) {
        (Some(Value::String(t)), _) => (t.clone(), true),
        (Some(_), _) => return Err("\"tool\" must be a string".into()),
        (None, Some(Value::String(n))) => (n.clone(), false),
        (None, Some(_)) => return Err("\"name\" must be a string".into()),
        (None, None) => return Err("the call has no \"tool\" (or \"name\") key".into()),
    };
    if tool.trim().is_empty() {
        return Err("the tool name is empty".into());
    }
    let (params, repaired) = match ARGS_KEYS.iter().find_map(|k| obj.get(*k).map(|v| (k, v))) {
        Some((k, v)) => arguments(k, v, lenient)?,
        None => (Value::Object(Map::new()), false),
    };
    Ok(Fields {
        tool,
        params,
        id: id_of(obj.get("id")),
        tool_key,
        repaired,
    })
}

/// Calls from OpenAI `tool_calls` entries (`{"id", "type": "function", "function": {"name", "arguments"}}`),
/// each a call or a bad call, with indices from `first_index`. An entry without an id gets `call_INDEX`, so
/// its answer and its envelope carry the same id. `lenient` repairs `arguments` strings that are not JSON.
#[allow(
    clippy::result_large_err,
    reason = "each entry is one call's outcome, kept side by side; boxing would only add an allocation per call"
)]
pub fn openai_calls(
    tool_calls: &[Value],
    first_index: usize,
    span: Range<usize>,
    lenient: bool,
) -> Vec<Result<Call, BadCall>> {
    let mut seen: Vec<String> = Vec::new();
    tool_calls
        .iter()
        .enumerate()
        .map(|(i, tc)| {
            let index = first_index + i;
            let id = Some(id_of(tc.get("id")).unwrap_or_else(|| format!("call_{index}")));
            let duplicate = id.as_ref().is_some_and(|id| seen.contains(id));
            seen.extend(id.clone());
            let name = tc
                .pointer("/function/name")
                .and_then(Value::as_str)
                .map(str::to_string);
            let bad = |reason: String| BadCall {
                index,
                dialect: Dialect::Openai,
                tool: name.clone(),
                id: id.clone(),
                problem: Problem::Malformed(reason),
                span: span.clone(),
            };
            if duplicate {
                // Two answers with one id could not be told apart.
                return Err(bad(format!(
                    "tool call id {:?} is used twice in one message",
                    id.as_deref().unwrap_or("")
                )));
            }
            match tc.get("type").and_then(Value::as_str) {
                None | Some("function") => {}
                Some(other) => {
                    return Err(bad(format!(
                        "tool call type \"{other}\" is not \"function\""
                    )))
                }
            }
            let Some(tool) = name.clone() else {
                return Err(bad("the tool call has no function.name string".into()));
            };
            let args = tc
                .pointer("/function/arguments")
                .cloned()
                .unwrap_or(Value::Null);
            let (params, repaired) = arguments("arguments", &args, lenient).map_err(bad)?;
            Ok(Call {
                index,
                dialect: Dialect::Openai,
                tool,
                params,
                id,
                repaired,
                span: span.clone(),
            })
        })
        .collect()
}

/// Splits `s` at top-level commas (outside quotes and brackets).
fn split_top_level(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut escaped, mut start) = (0i32, 0u8, false, 0);
    for (i, &c) in b.iter().enumerate() {
        if quote != 0 {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == quote {
                quote = 0;
            }
            continue;
        }
        match c {
            b'"' | b'\'' => quote = c,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// A Python-ish literal as JSON: JSON as is, else repaired (`'x'`, `True`, `None`), else the text itself.
fn literal(s: &str) -> Value {
    serde_json::from_str(s)
        .ok()
        .or_else(|| lenient::repair(s).and_then(|r| serde_json::from_str(&r).ok()))
        .unwrap_or_else(|| Value::String(s.to_string()))
}

/// The positional and keyword arguments of a deprecated `NAME(ARGS)` call.
pub(crate) fn deprecated_args(args: &str) -> (Vec<Value>, Map<String, Value>) {
    let mut positional = Vec::new();
    let mut kwargs = Map::new();
    for part in split_top_level(args) {
        let key_len = part
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        let rest = part[key_len..].trim_start();
        let is_kwarg = key_len > 0
            && !part.as_bytes()[0].is_ascii_digit()
            && rest.starts_with('=')
            && !rest.starts_with("==");
        if is_kwarg {
            kwargs.insert(part[..key_len].to_string(), literal(rest[1..].trim()));
        } else {
            positional.push(literal(part));
        }
    }
    (positional, kwargs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_accept_objects_strings_and_double_encoding() {
        let want = (json!({"a": 1}), false);
        assert_eq!(
            arguments("arguments", &json!({"a": 1}), false).unwrap(),
            want
        );
        assert_eq!(
            arguments("arguments", &json!("{\"a\": 1}"), false).unwrap(),
            want
        );
        let double = Value::String(serde_json::to_string(&json!("{\"a\": 1}")).unwrap());
        assert_eq!(arguments("arguments", &double, false).unwrap(), want);
        assert!(arguments("params", &json!([1]), false).is_err());
        assert!(arguments("params", &json!("not json"), false).is_err());
        assert!(arguments("arguments", &json!("{\"a\": 1,}"), false).is_err());
        assert_eq!(
            arguments("arguments", &json!("{\"a\": 1,}"), true).unwrap(),
            (json!({"a": 1}), true)
        );
    }

    #[test]
    fn openai_ids_are_unique_within_a_message() {
        let tc =
            json!({"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}});
        let got = openai_calls(&[tc.clone(), tc], 0, 0..0, false);
        assert!(got[0].is_ok());
        assert!(matches!(&got[1], Err(b) if b.id.as_deref() == Some("a")));
    }

    #[test]
    fn deprecated_arguments_read_like_python() {
        let (a, k) = deprecated_args(r#""sunset", width=512, style='oil, on canvas', hd=True"#);
        assert_eq!(a, vec![json!("sunset")]);
        assert_eq!(
            Value::Object(k),
            json!({"width": 512, "style": "oil, on canvas", "hd": true})
        );
        assert_eq!(deprecated_args("  ").0, Vec::<Value>::new());
    }
}
