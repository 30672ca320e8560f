//! The tools a trace may call: Beaker's own catalog, plus registries of tools Beaker does not run
//! (`--tools FILE`), each with its params schema when one is given.

use beaker_core::ToolSpec;
use beaker_engine::ParamsSchema;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A registry file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        reason: std::io::Error,
    },
    /// The file is not a registry.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// A tool the registry knows.
#[derive(Debug)]
struct Known {
    spec: Option<ToolSpec>,
    schema: Option<ParamsSchema>,
    /// Beaker runs it (so `verify` can re-execute its calls).
    runs: bool,
}

/// The tools traces may call, by name.
#[derive(Debug, Default)]
pub struct Registry {
    tools: BTreeMap<String, Known>,
}

impl Registry {
    /// The tools Beaker runs, from their specs.
    pub fn from_specs(specs: &[ToolSpec]) -> Registry {
        let mut r = Registry::default();
        for s in specs {
            r.tools.insert(
                s.name.clone(),
                Known {
                    schema: ParamsSchema::compile(&s.params_schema).ok(),
                    spec: Some(s.clone()),
                    runs: true,
                },
            );
        }
        r
    }

    /// Adds the tools of a registry file: a JSON array (or `{"tools": [...]}`) of tool names, OpenAI tool
    /// entries (`{"type": "function", "function": {"name", "parameters"}}`), MCP tools (`{"name",
    /// "inputSchema"}`) or Beaker specs (`{"name", "params_schema"}`). A tool without a schema is known by
    /// name only: its params are not checked.
    pub fn add_file(&mut self, path: &Path) -> Result<(), RegistryError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|reason| RegistryError::Read {
            path: shown.clone(),
            reason,
        })?;
        let invalid = |message: String| RegistryError::Invalid {
            path: shown.clone(),
            message,
        };
        let v: Value =
            serde_json::from_str(&text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        let list = match &v {
            Value::Array(a) => a,
            Value::Object(o) => match o.get("tools") {
                Some(Value::Array(a)) => a,
                _ => return Err(invalid("an object registry needs a `tools` array".into())),
            },
            _ => return Err(invalid("a registry is a JSON array of tools".into())),
        };
        for (i, entry) in list.iter().enumerate() {
            let (name, schema) = match entry {
                Value::String(s) => (s.clone(), None),
                Value::Object(o) => {
                    let f = o.get("function").unwrap_or(entry);
                    let name = f
                        .get("name")
                        .and_then(Value::as_str)
                        .ok_or_else(|| invalid(format!("tool {i} has no `name`")))?;
                    let schema = ["parameters", "inputSchema", "params_schema"]
                        .iter()
                        .find_map(|k| f.get(*k))
                        .cloned();
                    (name.to_string(), schema)
                }
                _ => return Err(invalid(format!("tool {i} is neither a name nor an object"))),
            };
            let compiled = match &schema {
                Some(s) => Some(
                    ParamsSchema::compile(s)
                        .map_err(|e| invalid(format!("tool `{name}`: bad schema: {e}")))?,
                ),
                None => None,
            };
            let spec = schema.map(|params_schema| ToolSpec {
                name: name.clone(),
                description: String::new(),
                params_schema,
                result_schema: Value::Bool(true),
                examples: Vec::new(),
                notes: String::new(),
            });
            let runs = self.tools.get(&name).is_some_and(|k| k.runs);
            self.tools.insert(
                name,
                Known {
                    spec,
                    schema: compiled,
                    runs,
                },
            );
        }
        Ok(())
    }

    /// Whether the registry knows `tool`.
    pub fn knows(&self, tool: &str) -> bool {
        self.tools.contains_key(tool)
    }

    /// Whether Beaker runs `tool` (its calls can be re-executed).
    pub fn runs(&self, tool: &str) -> bool {
        self.tools.get(tool).is_some_and(|k| k.runs)
    }

    /// The tool's spec, when its schema is known.
    pub fn spec(&self, tool: &str) -> Option<&ToolSpec> {
        self.tools.get(tool).and_then(|k| k.spec.as_ref())
    }

    /// Checks a call's params: `Err` with the reason when the tool's schema refuses them (a tool without a
    /// schema accepts any object).
    pub fn check(&self, tool: &str, params: &Value) -> Result<(), String> {
        match self.tools.get(tool).and_then(|k| k.schema.as_ref()) {
            Some(s) => s.check(params).map_err(|e| e.message),
            None if params.is_object() => Ok(()),
            None => Err("`params` must be an object".into()),
        }
    }

    /// The names known, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }
}
