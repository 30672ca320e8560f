//! One reader for every tool's params: serde into the tool's own params struct, after the engine has checked them
//! against the tool's schema. What the struct cannot hold (a tool called directly, or a schema looser than its
//! struct) is `invalid_params` naming the param by its path (`tests[2]`, `options.grid`), what it must be and
//! what it got, in the same words as the schema's refusals.

use crate::ToolError;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Reads `params` into `T` (`#[derive(Deserialize)]`, with `#[serde(default)]` for optional params).
///
/// ```
/// use serde::Deserialize;
/// #[derive(Deserialize)]
/// struct Run {
///     code: String,
///     #[serde(default)]
///     end_session: bool,
/// }
/// let run: Run = beaker_core::params::parse(&serde_json::json!({"code": "print(1)"})).unwrap();
/// assert_eq!((run.code.as_str(), run.end_session), ("print(1)", false));
/// let e = beaker_core::params::parse::<Run>(&serde_json::json!({"code": 5})).err().unwrap();
/// assert_eq!(e.message, "`code` must be a string, got number");
/// ```
pub fn parse<T: DeserializeOwned>(params: &Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        ToolError::invalid_params(words(&path, &e.into_inner().to_string()))
    })
}

/// serde's message in the words the schema's refusals use: `` `code` must be a string, got number ``,
/// `` `code` is required ``.
fn words(path: &str, serde: &str) -> String {
    let at = |inner: &str| {
        if path.is_empty() || path == "." {
            inner.to_string()
        } else {
            format!("`{path}` {inner}")
        }
    };
    if let Some(rest) = serde.strip_prefix("invalid type: ") {
        if let Some((got, want)) = rest.split_once(", expected ") {
            return at(&format!("must be {want}, got {got}"));
        }
    }
    if let Some(rest) = serde.strip_prefix("invalid value: ") {
        if let Some((got, want)) = rest.split_once(", expected ") {
            return at(&format!("must be {want}, got {got}"));
        }
    }
    if let Some(field) = serde.strip_prefix("missing field ") {
        let field = field.trim_matches('`');
        return if path.is_empty() || path == "." {
            format!("`{field}` is required")
        } else {
            format!("`{path}.{field}` is required")
        };
    }
    at(serde)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Params {
        code: String,
        #[serde(default)]
        tests: Vec<String>,
        #[serde(default)]
        options: Options,
    }

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Options {
        #[serde(default)]
        grid: bool,
    }

    #[test]
    fn every_refusal_names_the_param_by_its_path() {
        let refused = |v: Value| parse::<Params>(&v).err().map(|e| e.message);
        assert_eq!(
            refused(json!({"tests": []})).as_deref(),
            Some("`code` is required")
        );
        assert_eq!(
            refused(json!({"code": "x", "tests": ["a", 7]})).as_deref(),
            Some("`tests[1]` must be a string, got number")
        );
        assert_eq!(
            refused(json!({"code": "x", "options": {"grid": "yes"}})).as_deref(),
            Some("`options.grid` must be a boolean, got string \"yes\"")
        );
        let unknown = refused(json!({"code": "x", "cod": 1})).unwrap_or_default();
        assert!(unknown.contains("unknown field `cod`"), "{unknown}");
        // A struct may be read from a list too (serde's rule); the schema has refused one before a tool sees it.
        assert_eq!(
            refused(json!([1])).as_deref(),
            Some("`[0]` must be a string, got number")
        );
        let ok = parse::<Params>(&json!({"code": "x", "options": {"grid": true}}));
        assert_eq!(
            ok.ok(),
            Some(Params {
                code: "x".into(),
                tests: vec![],
                options: Options { grid: true }
            })
        );
    }
}
