//! JSON in and out of templates: `serde_json` values as MiniJinja values (key order kept). `tojson` writes them
//! with `beaker_core::pyjson`, Python's `json.dumps`, which transformers' `tojson` is.

use minijinja::value::{Value as Mj, ValueKind};
use serde_json::{Map, Number, Value};

/// A JSON value as a template value: objects keep their key order, integers stay integers.
pub(crate) fn to_jinja(v: &Value) -> Mj {
    match v {
        Value::Null => Mj::from(()),
        Value::Bool(b) => Mj::from(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Mj::from(i)
            } else if let Some(u) = n.as_u64() {
                Mj::from(u)
            } else {
                Mj::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Mj::from(s.as_str()),
        Value::Array(a) => Mj::from(a.iter().map(to_jinja).collect::<Vec<_>>()),
        Value::Object(m) => m.iter().map(|(k, v)| (k.as_str(), to_jinja(v))).collect(),
    }
}

/// A template value as JSON (what `tojson` serialises); undefined is `null`, as Jinja2's `None`.
pub(crate) fn from_jinja(v: &Mj) -> Result<Value, minijinja::Error> {
    from_jinja_at(v, 0)
}

/// How deep a value `tojson` serialises may nest (a template can build a list in a list a million deep).
const MAX_DEPTH: usize = 128;

fn from_jinja_at(v: &Mj, depth: usize) -> Result<Value, minijinja::Error> {
    if depth > MAX_DEPTH {
        return Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("tojson: the value nests deeper than {MAX_DEPTH} levels"),
        ));
    }
    Ok(match v.kind() {
        ValueKind::Undefined | ValueKind::None => Value::Null,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::Number => {
            // An integral float stays a float (`2.0`, `-0.0`), as Python writes it.
            if !is_float(v) {
                if let Ok(i) = i64::try_from(v.clone()) {
                    return Ok(Value::from(i));
                }
            }
            let f = f64::try_from(v.clone()).unwrap_or(f64::NAN);
            Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
        ValueKind::String => Value::String(v.as_str().unwrap_or_default().to_string()),
        ValueKind::Seq | ValueKind::Iterable => Value::Array(
            v.try_iter()?
                .map(|x| from_jinja_at(&x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        ValueKind::Map => {
            let mut m = Map::new();
            for k in v.try_iter()? {
                let item = v.get_item(&k)?;
                let key = match k.as_str() {
                    Some(s) => s.to_string(),
                    None => k.to_string(),
                };
                m.insert(key, from_jinja_at(&item, depth + 1)?);
            }
            Value::Object(m)
        }
        _ => Value::String(v.to_string()),
    })
}

/// Whether a number value is a float (1.0 prints as `1.0`, as Python does).
fn is_float(v: &Mj) -> bool {
    v.to_string().contains(['.', 'e', 'E', 'n', 'N', 'i'])
}
