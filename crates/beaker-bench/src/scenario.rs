//! Scenarios: JSONL files of weighted requests.

use crate::SplitMix;
use serde_json::{Map, Value};
use std::path::Path;

/// A scenario file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        reason: std::io::Error,
    },
    /// A line is not a scenario entry.
    #[error("{path}:{line}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file holds no entry.
    #[error("{0}: the scenario has no entries")]
    Empty(String),
}

/// One kind of request a scenario sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// How often it is picked, relative to the others.
    pub weight: f64,
    /// The name its latency is reported under: the tool, `text` for a text request, or the entry's `label`.
    pub label: String,
    /// The request without its id (`{"tool", "params", "limits"?}`, `{"text", ...}`), or a raw line in which
    /// `{id}` stands for the id (to send malformed requests whose answer still carries an id).
    pub body: Body,
}

/// What an entry sends.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A JSON request; the id is added.
    Json(Map<String, Value>),
    /// A raw line; `{id}` is replaced by the id.
    Raw(String),
}

impl Entry {
    /// The request line for id `id` (without the newline).
    pub fn line(&self, id: u64) -> String {
        match &self.body {
            Body::Json(m) => {
                let mut m = m.clone();
                m.insert("id".into(), id.into());
                Value::Object(m).to_string()
            }
            Body::Raw(r) => r.replace("{id}", &id.to_string()),
        }
    }
}

/// A weighted set of requests.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The scenario's name (its file's stem).
    pub name: String,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    cumulative: Vec<f64>,
}

/// The kinds of JSON entry, by the key that marks them, and the keys each may hold (Beaker's protocol; `id`, in
/// the protocol's text keys too, is the harness's to give and refused in every entry).
const KINDS: [(&str, &[&str]); 4] = [
    (
        "tool",
        &["tool", "params", "limits", "meta", "tag", "dataset", "seed"],
    ),
    ("text", beaker_protocol::TEXT_KEYS),
    ("messages", beaker_protocol::TEXT_KEYS),
    (
        "plan",
        &["plan", "limits", "meta", "tag", "dataset", "seed"],
    ),
];

impl Scenario {
    /// Reads a scenario: one JSON object per line (blank lines and `//` comments skipped), each a request
    /// (`tool` + `params` [+ `limits`], or `text` [+ `dialect`, ...], or `raw`: a line sent as it is, `{id}` in
    /// it replaced by the id) with an optional `weight` (default 1) and `label`.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|reason| ScenarioError::Read {
            path: shown.clone(),
            reason,
        })?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("scenario")
            .to_string();
        Scenario::parse(&shown, &name, &text)
    }

    /// Reads a scenario from its text (`shown` names it in errors).
    pub fn parse(shown: &str, name: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with("//") {
                continue;
            }
            let invalid = |message: String| ScenarioError::Invalid {
                path: shown.to_string(),
                line: i + 1,
                message,
            };
            let v: Value =
                serde_json::from_str(t).map_err(|e| invalid(format!("not JSON: {e}")))?;
            let Value::Object(mut m) = v else {
                return Err(invalid("an entry is a JSON object".into()));
            };
            let weight = match m.remove("weight") {
                None => 1.0,
                Some(w) => w
                    .as_f64()
                    .filter(|w| w.is_finite() && *w > 0.0)
                    .ok_or_else(|| invalid("`weight` must be a positive number".into()))?,
            };
            let label = m.remove("label").and_then(|l| l.as_str().map(String::from));
            let (label, body) = if let Some(raw) = m.remove("raw") {
                let Value::String(raw) = raw else {
                    return Err(invalid("`raw` must be a string".into()));
                };
                if !m.is_empty() {
                    return Err(invalid(
                        "a `raw` entry has only `raw`, `weight` and `label`".into(),
                    ));
                }
                // Without the id its answer could not be matched to it.
                if !raw.contains("{id}") {
                    return Err(invalid(
                        "a `raw` line must hold `{id}` where the request id goes".into(),
                    ));
                }
                (label.unwrap_or_else(|| "raw".into()), Body::Raw(raw))
            } else if let Some((kind, keys)) = KINDS.iter().find(|(k, _)| m.contains_key(*k)) {
                // A misspelt key would make every call fail at the server and the run look like a result.
                let allowed: Vec<&str> = keys.iter().copied().filter(|k| *k != "id").collect();
                if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
                    return Err(invalid(format!(
                        "unknown key `{k}` in a `{kind}` entry (allowed: {}, weight, label)",
                        allowed.join(", ")
                    )));
                }
                let label = match (*kind, m.get("tool").and_then(Value::as_str)) {
                    ("tool", Some(tool)) => label.unwrap_or_else(|| tool.to_string()),
                    ("tool", None) => return Err(invalid("`tool` must be a string".into())),
                    ("messages", _) => label.unwrap_or_else(|| "text".into()),
                    (kind, _) => label.unwrap_or_else(|| kind.to_string()),
                };
                (label, Body::Json(m))
            } else {
                return Err(invalid(
                    "an entry has `tool` (and `params`), `text`, `messages`, `plan` or `raw`"
                        .into(),
                ));
            };
            entries.push(Entry {
                weight,
                label,
                body,
            });
        }
        if entries.is_empty() {
            return Err(ScenarioError::Empty(shown.to_string()));
        }
        let mut total = 0.0;
        let cumulative = entries
            .iter()
            .map(|e| {
                total += e.weight;
                total
            })
            .collect();
        Ok(Scenario {
            name: name.to_string(),
            entries,
            cumulative,
        })
    }

    /// An entry drawn by weight.
    pub fn pick(&self, rng: &mut SplitMix) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.unit() * total;
        self.cumulative
            .partition_point(|&c| c <= x)
            .min(self.entries.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_read_and_drawn_by_weight() {
        let s = Scenario::parse(
            "s",
            "s",
            "// comment\n{\"tool\": \"calculator\", \"params\": {\"expression\": \"1\"}, \"weight\": 3}\n\n{\"raw\": \"{\\\"id\\\": {id}, \\\"tool\\\": 1\", \"label\": \"bad\"}\n{\"text\": \"hi\"}\n",
        )
        .expect("scenario");
        assert_eq!(s.entries.len(), 3);
        assert_eq!(s.entries[1].line(7), "{\"id\": 7, \"tool\": 1");
        assert_eq!(
            s.entries[0].line(1),
            r#"{"tool":"calculator","params":{"expression":"1"},"id":1}"#
        );
        let mut rng = SplitMix::new(1);
        let mut counts = [0usize; 3];
        for _ in 0..50_000 {
            counts[s.pick(&mut rng)] += 1;
        }
        // 3 : 1 : 1, within a percent of 50,000.
        assert!(
            (counts[0] as f64 / 30_000.0 - 1.0).abs() < 0.02,
            "{counts:?}"
        );
        assert!(
            (counts[1] as f64 / 10_000.0 - 1.0).abs() < 0.05,
            "{counts:?}"
        );
        for bad in [
            "[1]",
            "{\"weight\": 0, \"tool\": \"x\"}",
            "{\"params\": {}}",
            "{\"raw\": 1}",
            "{\"raw\": \"x\", \"tool\": \"y\"}",
            "{\"raw\": \"no id here\"}",
            "{\"tool\": \"x\", \"wieght\": 3}",
            "{\"tool\": \"x\", \"text\": \"y\"}",
            "{\"tool\": \"x\", \"id\": 3}",
            "{\"text\": \"x\", \"id\": 3}",
            "{\"tool\": 3}",
        ] {
            assert!(Scenario::parse("s", "s", bad).is_err(), "{bad}");
        }
        assert!(matches!(
            Scenario::parse("s", "s", "// nothing\n"),
            Err(ScenarioError::Empty(_))
        ));
    }
}
