//! A schema error in words a model can act on: the parameter, what it got, what it accepts and the nearest
//! valid choice (issue 38: "not valid under any of the schemas listed in the 'anyOf' keyword" named none of
//! these).

use serde_json::Value;

/// How deep into a schema [`accepts`] describes (tool schemas are shallow; this bounds the words).
const MAX_DEPTH: usize = 4;

/// `params.ka: got the string "1.8e-5"; accepts a number, or a list of 1 to 10 items, each a number; write it
/// as the number 1.8e-5 (ka: Acid dissociation constant(s)...)`.
pub(super) fn refused(at: &str, name: &str, got: &Value, schema: &Value) -> String {
    let mut msg = format!("{at}: got {}; accepts {}", describe(got), accepts(schema));
    if let Some(hint) = nearest(got, schema) {
        msg.push_str("; ");
        msg.push_str(&hint);
    }
    if let Some(about) = schema.get("description").and_then(Value::as_str) {
        msg.push_str(&format!(" ({name}: {})", about.trim_end_matches('.')));
    }
    msg
}

/// What a value is, in words: `the string "abc"`, `the number 3`, `a list of 2 items`.
pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let shown: String = s.chars().take(40).collect();
            // A long string is shown cut, with its length: the limit it broke may be the length.
            let n = s.chars().count();
            let more = if shown.len() < s.len() {
                format!("… ({n} characters)")
            } else {
                String::new()
            };
            format!("the string {:?}{more}", shown)
        }
        Value::Number(n) => format!("the number {n}"),
        Value::Bool(b) => format!("{b}"),
        Value::Null => "null".into(),
        Value::Array(a) if a.len() == 1 => "a list of 1 item".into(),
        Value::Array(a) => format!("a list of {} items", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// What a schema accepts, in words.
pub(super) fn accepts(schema: &Value) -> String {
    accepts_at(schema, 0)
}

fn accepts_at(s: &Value, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "a value of the documented shape".into();
    }
    if let Some(choices) = s.get("enum").and_then(Value::as_array) {
        return format!("one of: {}", list_choices(choices));
    }
    if let Some(c) = s.get("const") {
        return format!("exactly {c}");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = s.get(key).and_then(Value::as_array) {
            let words: Vec<String> = branches.iter().map(|b| accepts_at(b, depth + 1)).collect();
            return words.join(", or ");
        }
    }
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return "any value".into(),
    };
    let words: Vec<String> = types.iter().map(|t| one_type(s, t, depth)).collect();
    words.join(" or ")
}

fn one_type(s: &Value, t: &str, depth: usize) -> String {
    match t {
        "number" => format!("a number{}", range(s)),
        "integer" => format!("an integer{}", range(s)),
        "boolean" => "true or false".into(),
        "null" => "null".into(),
        "string" => {
            let mut w = sized(s, "a string", "characters", "minLength", "maxLength");
            if let Some(p) = s.get("pattern").and_then(Value::as_str) {
                match literal_choices(p) {
                    Some(c) if !c.is_empty() => w = format!("a string such as {}", c.join(", ")),
                    _ => w.push_str(&format!(" matching `{p}`")),
                }
            }
            w
        }
        "array" => {
            let mut w = sized(s, "a list", "items", "minItems", "maxItems");
            if let Some(items) = s.get("items").filter(|i| i.is_object()) {
                w.push_str(&format!(", each {}", accepts_at(items, depth + 1)));
            }
            w
        }
        "object" => match s.get("additionalProperties").filter(|a| a.is_object()) {
            Some(values) => format!("an object of name → {}", accepts_at(values, depth + 1)),
            None => "an object".into(),
        },
        other => other.to_string(),
    }
}

/// `a list of 1 to 10 items`, `a string of at most 1000 characters`: a string's or a list's length bounds.
fn sized(s: &Value, what: &str, unit: &str, min: &str, max: &str) -> String {
    let (lo, hi) = (
        s.get(min).and_then(Value::as_u64),
        s.get(max).and_then(Value::as_u64),
    );
    match (lo, hi) {
        (Some(l), Some(h)) => format!("{what} of {l} to {h} {unit}"),
        (Some(l), None) if l > 0 => format!("{what} of at least {l} {unit}"),
        (_, Some(h)) => format!("{what} of at most {h} {unit}"),
        _ => what.to_string(),
    }
}

/// ` from 1 to 200`, ` ≥ 0`, ` > 0`: a number's bounds.
fn range(s: &Value) -> String {
    let n = |k: &str| s.get(k).filter(|v| v.is_number()).map(Value::to_string);
    match (
        n("minimum"),
        n("maximum"),
        n("exclusiveMinimum"),
        n("exclusiveMaximum"),
    ) {
        (Some(lo), Some(hi), _, _) => format!(" from {lo} to {hi}"),
        (Some(lo), None, _, Some(hi)) => format!(" ≥ {lo} and < {hi}"),
        (None, Some(hi), Some(lo), _) => format!(" > {lo} and ≤ {hi}"),
        (Some(lo), None, _, None) => format!(" ≥ {lo}"),
        (None, Some(hi), None, _) => format!(" ≤ {hi}"),
        (None, None, Some(lo), Some(hi)) => format!(" > {lo} and < {hi}"),
        (None, None, Some(lo), None) => format!(" > {lo}"),
        (None, None, None, Some(hi)) => format!(" < {hi}"),
        (None, None, None, None) => String::new(),
    }
}

/// The choices of an enum, as a model would write them (strings unquoted), at most 40.
fn list_choices(choices: &[Value]) -> String {
    let shown: Vec<String> = choices
        .iter()
        .take(super::MAX_LISTED_CHOICES)
        .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string))
        .collect();
    let mut w = shown.join(", ");
    if choices.len() > super::MAX_LISTED_CHOICES {
        w.push_str(&format!(
            " (and {} more)",
            choices.len() - super::MAX_LISTED_CHOICES
        ));
    }
    w
}

/// The plain words of a pattern that is an alternation (`^(Int|Real|Bool|BitVec ?[0-9]+)$` → Int, Real,
/// Bool); `None` for any other pattern.
fn literal_choices(pattern: &str) -> Option<Vec<String>> {
    let inner = pattern.strip_prefix("^(")?.strip_suffix(")$")?;
    Some(
        inner
            .split('|')
            .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .map(str::to_string)
            .collect(),
    )
}

/// Every string choice a schema lists, through its branches, items and pattern alternations.
fn string_choices(s: &Value, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        out.extend(e.iter().filter_map(Value::as_str).map(str::to_string));
    }
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        out.extend(literal_choices(p).unwrap_or_default());
    }
    for key in ["anyOf", "oneOf"] {
        for b in s.get(key).and_then(Value::as_array).into_iter().flatten() {
            string_choices(b, depth + 1, out);
        }
    }
    if let Some(items) = s.get("items") {
        string_choices(items, depth + 1, out);
    }
}

/// Whether the schema (or one of its branches) accepts values of JSON type `t`.
fn takes_type(s: &Value, t: &str, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let direct = match s.get("type") {
        Some(Value::String(x)) => x == t || (t == "number" && x == "integer"),
        Some(Value::Array(xs)) => xs.iter().any(|x| x == t),
        _ => false,
    };
    direct
        || ["anyOf", "oneOf"].iter().any(|k| {
            s.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|bs| bs.iter().any(|b| takes_type(b, t, depth + 1)))
        })
}

/// Whether the schema (or a branch) takes a list whose items may be strings.
fn takes_list_of_strings(s: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let here = s.get("type") == Some(&Value::String("array".into()))
        && s.get("items").is_some_and(|i| takes_type(i, "string", 0));
    here || ["anyOf", "oneOf"].iter().any(|k| {
        s.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|bs| bs.iter().any(|b| takes_list_of_strings(b, depth + 1)))
    })
}

/// The valid choice the value probably meant: the nearest listed string, the number a numeric string holds,
/// the string form of a number, a one-item list, or the bound a number crossed.
fn nearest(got: &Value, s: &Value) -> Option<String> {
    match got {
        Value::String(text) => {
            let mut choices = Vec::new();
            string_choices(s, 0, &mut choices);
            let norm = |x: &str| x.to_lowercase().replace([' ', '-'], "_");
            let want = norm(text);
            let best = choices
                .iter()
                .map(|c| (strsim::jaro_winkler(&want, &norm(c)), c))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((_, c)) = best.filter(|(score, _)| *score >= 0.8) {
                return Some(format!("did you mean \"{c}\"?"));
            }
            if takes_type(s, "number", 0) {
                if let Ok(x) = text.trim().parse::<f64>() {
                    if x.is_finite() {
                        return Some(format!("write it as the number {}", text.trim()));
                    }
                }
            }
            if takes_list_of_strings(s, 0) {
                return Some(format!(
                    "write it as a list: [{}]",
                    Value::String(text.clone())
                ));
            }
            None
        }
        Value::Number(n) => {
            if takes_type(s, "string", 0) && !takes_type(s, "number", 0) {
                return Some(format!("write it as the string \"{n}\""));
            }
            let x = n.as_f64()?;
            let bound = |k: &str| s.get(k).and_then(Value::as_f64);
            if bound("minimum").is_some_and(|lo| x < lo) {
                return Some(format!("the nearest valid value is {}", s["minimum"]));
            }
            if bound("maximum").is_some_and(|hi| x > hi) {
                return Some(format!("the nearest valid value is {}", s["maximum"]));
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{accepts, refused};
    use serde_json::json;

    #[test]
    fn schemas_read_as_words() {
        let constant = json!({"anyOf": [{"type": "number"}, {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 10}]});
        assert_eq!(
            accepts(&constant),
            "a number, or a list of 1 to 10 items, each a number"
        );
        assert_eq!(
            accepts(&json!({"type": "integer", "minimum": 1, "maximum": 200})),
            "an integer from 1 to 200"
        );
        assert_eq!(
            accepts(&json!({"type": ["number", "string"]})),
            "a number or a string"
        );
        assert_eq!(accepts(&json!({"enum": ["u", "v"]})), "one of: u, v");
    }

    #[test]
    fn a_refusal_names_what_it_got_accepts_and_the_nearest_choice() {
        let sort = json!({"type": "string", "pattern": "^(Int|Real|Bool|BitVec ?\\(?[0-9]+\\)?)$"});
        let m = refused("params.variables.x", "x", &json!("int"), &sort);
        assert!(m.contains("got the string \"int\""), "{m}");
        assert!(m.contains("Int, Real, Bool"), "{m}");
        assert!(m.contains("did you mean \"Int\"?"), "{m}");
        let list = json!({"oneOf": [{"type": "array", "items": {"type": ["string", "boolean"]}}, {"type": "object"}]});
        let m = refused("params.constraints", "constraints", &json!("x > 2"), &list);
        assert!(m.contains("write it as a list: [\"x > 2\"]"), "{m}");
        let order = json!({"type": "integer", "minimum": 1, "maximum": 200});
        let m = refused("params.order", "order", &json!(500), &order);
        assert!(m.contains("the nearest valid value is 200"), "{m}");
        let num = json!({"type": "number", "description": "Ka."});
        let m = refused("params.ka", "ka", &json!("1.8e-5"), &num);
        assert!(m.contains("write it as the number 1.8e-5 (ka: Ka)"), "{m}");
    }
}
