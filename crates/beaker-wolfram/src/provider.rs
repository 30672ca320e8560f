//! The WolframAlpha LLM API, off unless configured (`[wolfram.provider]` with an AppID): asked only the
//! questions the offline reading does not route. It answers plain text made for language models; `short`
//! keeps its "Result:" section, `full` and `steps` the whole text.

use beaker_core::{CallContext, ErrorKind, ToolError};
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

/// What the answers name as their source.
pub const LIVE_SOURCE: &str = "WolframAlpha LLM API (live)";

/// `[wolfram.provider]`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The AppID the service issued.
    pub appid: String,
    /// The service's url (default `https://www.wolframalpha.com/api/v1/llm-api`).
    #[serde(default)]
    pub url: Option<String>,
    /// Milliseconds a request may take (default 10,000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The most characters of answer asked for (the service's `maxchars`, default 6,800).
    #[serde(default)]
    pub max_chars: Option<u32>,
}

/// A configured WolframAlpha LLM API provider.
pub struct Provider {
    url: String,
    appid: String,
    max_chars: u32,
    agent: ureq::Agent,
}

/// A provider that cannot be set up.
#[derive(Debug, thiserror::Error)]
#[error("[wolfram.provider]: {0}")]
pub struct ProviderError(String);

impl Provider {
    /// The provider `config` describes.
    pub fn new(config: &ProviderConfig) -> Result<Provider, ProviderError> {
        let url = config
            .url
            .as_deref()
            .unwrap_or("https://www.wolframalpha.com/api/v1/llm-api")
            .to_string();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ProviderError(format!("url {url:?} is not http(s)")));
        }
        if config.appid.trim().is_empty() {
            return Err(ProviderError("appid is empty".into()));
        }
        let timeout = Duration::from_millis(config.timeout_ms.unwrap_or(10_000).max(1));
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent("beaker-wolfram")
            .build()
            .new_agent();
        Ok(Provider {
            url,
            appid: config.appid.trim().to_string(),
            max_chars: config.max_chars.unwrap_or(6_800).max(1),
            agent,
        })
    }

    /// Asks the service `query`; `whole`: the answer's whole text too (formats full and steps), not only its
    /// "Result:" section.
    pub fn ask(&self, query: &str, whole: bool, ctx: &CallContext) -> Result<Value, ToolError> {
        ctx.checkpoint()?;
        let failed =
            |m: String| ToolError::new(ErrorKind::ToolError, format!("{LIVE_SOURCE}: {m}"));
        let mut response = self
            .agent
            .get(&self.url)
            .query("input", query)
            .query("appid", &self.appid)
            .query("maxchars", self.max_chars.to_string())
            .call()
            // No answer (refused, unreachable, timed out): the same call may succeed later.
            .map_err(|e| failed(e.to_string()).transient())?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_to_string()
            .map_err(|e| failed(format!("HTTP {status}: {e}")).transient())?;
        match status {
            200 => {}
            // "Wolfram|Alpha did not understand your input", with its suggestions: the question's fault.
            501 => {
                return Err(ToolError::invalid_params(format!(
                    "{LIVE_SOURCE} did not understand the question: {}",
                    text.trim()
                )))
            }
            403 => {
                return Err(failed(format!(
                    "HTTP 403 (the AppID was refused): {}",
                    text.trim()
                )))
            }
            // Overloaded or down (the API's own 501 is its "did not understand", above): the service's state,
            // not the question's.
            s if ToolError::transient_status(s) => {
                return Err(failed(format!("HTTP {status}: {}", text.trim())).transient())
            }
            _ => return Err(failed(format!("HTTP {status}: {}", text.trim()))),
        }
        let result = section(&text, "Result:").unwrap_or_else(|| text.trim().to_string());
        let mut out = json!({
            "query": query,
            "kind": "live",
            "route": "wolframalpha",
            "value": result,
            "source": LIVE_SOURCE,
        });
        if let Some(i) = section(&text, "Input interpretation:") {
            out["interpretation"] = json!(i);
        }
        if whole {
            out["text"] = json!(text);
        }
        Ok(out)
    }
}

/// The lines under `heading` in the service's text, up to the next blank line.
fn section(text: &str, heading: &str) -> Option<String> {
    let mut lines = text.lines().skip_while(|l| l.trim() != heading);
    lines.next()?;
    let body: Vec<&str> = lines.take_while(|l| !l.trim().is_empty()).collect();
    (!body.is_empty()).then(|| body.join("\n"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sections_are_read_up_to_the_blank_line() {
        let text = "Query:\n\"2+2\"\n\nInput:\n2 + 2\n\nResult:\n4\n\nNumber name:\nfour\n";
        assert_eq!(super::section(text, "Result:").as_deref(), Some("4"));
        assert_eq!(super::section(text, "Input:").as_deref(), Some("2 + 2"));
        assert_eq!(super::section(text, "Plot:"), None);
    }
}
