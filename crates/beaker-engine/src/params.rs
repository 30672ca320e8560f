//! A tool's params schema, compiled once: the check every call passes before it runs, also used by
//! `beaker lint` to check the calls recorded in training traces.

mod words;

use beaker_core::ToolError;
use serde_json::Value;

/// A params JSON Schema, compiled: checks params and explains what is wrong in words a model can act on.
pub struct ParamsSchema {
    validator: jsonschema::Validator,
    schema: Value,
}

impl std::fmt::Debug for ParamsSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParamsSchema")
            .field("schema", &self.schema)
            .finish()
    }
}

impl ParamsSchema {
    /// Compiles `schema` (draft 2020-12); the error is the validator's message.
    pub fn compile(schema: &Value) -> Result<ParamsSchema, String> {
        let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
        Ok(ParamsSchema {
            validator,
            schema: schema.clone(),
        })
    }

    /// Checks params against the schema; the error names up to three paths, each with what it got, what it
    /// accepts and, where one is near, the valid choice it probably meant.
    pub fn check(&self, params: &Value) -> Result<(), ToolError> {
        let (validator, schema) = (&self.validator, &self.schema);
        if !params.is_object() {
            return Err(ToolError::invalid_params(format!(
                "`params` must be an object, got {}",
                beaker_core::json_type(params)
            )));
        }
        let errors: Vec<String> = validator
            .iter_errors(params)
            .take(3)
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = if path.is_empty() {
                    "params".to_string()
                } else {
                    format!("params{}", path.replace('/', "."))
                };
                // The schema that refused the value: the error's keyword (`/properties/ka/anyOf`) sits in it.
                let keyword_at = e.schema_path().to_string();
                let here = keyword_at
                    .rsplit_once('/')
                    .and_then(|(parent, _)| schema.pointer(parent));
                use jsonschema::error::ValidationErrorKind as K;
                match (e.kind(), here) {
                    (K::AdditionalProperties { unexpected }, _) => {
                        let mut msg = format!("{at}: {e}");
                        for key in unexpected {
                            if let Some(home) = declared_at(schema, key, &at) {
                                msg.push_str(&format!("; `{key}` belongs at {home}"));
                            }
                        }
                        msg
                    }
                    (K::Required { property }, Some(here)) => {
                        let name = property.as_str().unwrap_or_default();
                        let wants = here
                            .get("properties")
                            .and_then(|p| p.get(name))
                            .map(|p| format!(": {}", words::accepts(p)))
                            .unwrap_or_default();
                        format!("{at}: `{name}` is required{wants}")
                    }
                    (
                        K::Enum { .. }
                        | K::AnyOf { .. }
                        | K::OneOfNotValid { .. }
                        | K::Type { .. }
                        | K::Pattern { .. }
                        | K::Minimum { .. }
                        | K::Maximum { .. }
                        | K::ExclusiveMinimum { .. }
                        | K::ExclusiveMaximum { .. }
                        | K::MinItems { .. }
                        | K::MaxItems { .. }
                        | K::MinLength { .. }
                        | K::MaxLength { .. },
                        Some(here),
                    ) => {
                        let name = at.rsplit('.').next().unwrap_or("params");
                        words::refused(&at, name, e.instance(), here)
                    }
                    _ => format!("{at}: {e}"),
                }
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ToolError::invalid_params(errors.join("; ")))
        }
    }
}

/// Where the params schema declares a property named `key`, other than at `not_at` (`params.data`): the path
/// of the first such declaration, breadth first, for a key a model put at the wrong level (`A` beside
/// `operation` instead of inside `data`). Looks through `properties` and `oneOf`/`anyOf`/`allOf` branches.
pub(crate) fn declared_at(schema: &Value, key: &str, not_at: &str) -> Option<String> {
    let mut queue = std::collections::VecDeque::from([(schema, "params".to_string(), 0u8)]);
    while let Some((s, path, depth)) = queue.pop_front() {
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            if props.contains_key(key) && path != not_at {
                return Some(format!("{path}.{key}"));
            }
            if depth < 4 {
                for (name, sub) in props {
                    queue.push_back((sub, format!("{path}.{name}"), depth + 1));
                }
            }
        }
        for branch in ["oneOf", "anyOf", "allOf"] {
            for sub in s
                .get(branch)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                queue.push_back((sub, path.clone(), depth));
            }
        }
    }
    None
}

/// Most choices an enum error lists in full (the schema validator says "or 23 other candidates").
const MAX_LISTED_CHOICES: usize = 40;
