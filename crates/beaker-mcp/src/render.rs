//! Beaker's specs and envelopes in MCP's shapes: tools, call results, the server's description.

use crate::Error;
use base64::Engine as _;
use beaker_core::{head_and_tail, Envelope, ToolSpec};
use beaker_dialects::render::python_json;
use rmcp::model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig, Tool};
use serde_json::{json, Map, Value};

/// What the server tells a client about itself in `initialize` and `server/discover`.
pub(crate) fn server_config() -> ServerConfig {
    let mut capabilities = ServerCapabilities::default();
    capabilities.tools = Some(rmcp::model::ToolsCapability::default());
    let mut config = ServerConfig::new(capabilities);
    let mut me = Implementation::new("beaker", env!("CARGO_PKG_VERSION"));
    me.title = Some("Beaker".into());
    config.server_info = me;
    config.instructions = Some(
        "Scientific tools that compute exact or reference-checked answers: arithmetic in arbitrary precision, \
         units, numerical methods, statistics, plots, chemistry, physics, logic, symbolic math and sandboxed \
         Python. Prefer a tool to mental arithmetic; a failed call says why in `error` and `error_kind`."
            .into(),
    );
    config
}

/// A spec as an MCP tool. Every Beaker tool is read-only and offline, and deterministic unless it keeps a
/// `session` (Python sessions carry state from call to call), and says so.
pub(crate) fn tool(spec: &ToolSpec) -> Result<Tool, Error> {
    let stateful = spec.params_schema["properties"].get("session").is_some();
    let v = json!({
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.params_schema,
        "outputSchema": spec.result_schema,
        "annotations": {
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": !stateful,
            "openWorldHint": false,
        },
    });
    serde_json::from_value(v).map_err(|e| Error::Listing {
        tool: spec.name.clone(),
        reason: e.to_string(),
    })
}

/// An envelope as a `tools/call` result (see the crate docs for the shape). `resultType` is the current
/// revision's; rmcp drops it for a client that negotiated an older one.
pub(crate) fn call_result(env: &Envelope) -> Result<CallToolResult, serde_json::Error> {
    let mut meta = Map::new();
    meta.insert("beaker/elapsed_us".into(), json!(env.elapsed_us));
    if let Some(q) = env.queued_us {
        meta.insert("beaker/queued_us".into(), json!(q));
    }
    if let Some(u) = &env.usage {
        meta.insert("beaker/usage".into(), serde_json::to_value(u)?);
    }
    let v = if env.success {
        let result = env.result.clone().unwrap_or_else(|| json!({}));
        let (view, images) = split_images(&result);
        let mut content = vec![json!({"type": "text", "text": capped(python_json(&view))})];
        content.extend(
            images
                .into_iter()
                .map(|(mime, data)| json!({"type": "image", "data": data, "mimeType": mime})),
        );
        json!({"resultType": "complete", "content": content, "structuredContent": result, "isError": false, "_meta": meta})
    } else {
        let mut shown = Map::new();
        shown.insert("error".into(), json!(env.error.clone().unwrap_or_default()));
        if let Some(k) = env.error_kind {
            shown.insert("error_kind".into(), json!(k.as_str()));
            meta.insert("beaker/error_kind".into(), json!(k.as_str()));
        }
        // What a stopped program printed is what the model needs to see to fix it.
        if let Some(p) = &env.partial {
            shown.insert("partial".into(), p.clone());
        }
        meta.insert("beaker/fault".into(), serde_json::to_value(env.fault)?);
        meta.insert(
            "beaker/retryable".into(),
            json!(env.retryable.unwrap_or(false)),
        );
        // No structuredContent: it would have to match the tool's outputSchema, which describes results (the
        // TypeScript SDK checks it even on errors). The kind, fault and retryability are in `_meta`.
        json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": capped(python_json(&Value::Object(shown)))}],
            "isError": true,
            "_meta": meta,
        })
    };
    serde_json::from_value(v)
}

/// Longest text block, in bytes: a result past it (a long stdout, a 100,000-digit number) is shown as its head
/// and tail with a note, so a host does not pour it all into a model's context. `structuredContent` keeps it whole.
pub(crate) const MAX_TEXT_BYTES: usize = 32 << 10;

/// `text` cut to [`MAX_TEXT_BYTES`]: three quarters head, a note, one quarter tail, on character boundaries.
pub(crate) fn capped(text: String) -> String {
    if text.len() <= MAX_TEXT_BYTES {
        return text;
    }
    let (head, tail) = head_and_tail(&text, MAX_TEXT_BYTES * 3 / 4, MAX_TEXT_BYTES / 4);
    format!(
        "{head}\n[... {} bytes not shown here; the whole result is in structuredContent ...]\n{tail}",
        text.len() - head.len() - tail.len()
    )
}

/// The result with its pictures taken out (for the text block), and the pictures as `(mime type, base64)`.
/// Two shapes carry pictures: `image` beside a `format` of `png` or `svg` (plotter, latex_render; an SVG
/// document, which starts with `<`, is base64-encoded here, as MCP wants), and `figures`, a list of base64
/// PNGs (execute_python's matplotlib figures).
pub(crate) fn split_images(result: &Value) -> (Value, Vec<(&'static str, String)>) {
    let mut view = result.clone();
    let mut images = Vec::new();
    let Value::Object(m) = &mut view else {
        return (view, images);
    };
    let format = m.get("format").and_then(Value::as_str).map(str::to_owned);
    if let (Some(Value::String(image)), Some(format)) = (m.get_mut("image"), format) {
        let picture = match format.as_str() {
            "png" => Some(("image/png", image.clone())),
            "svg" if image.trim_start().starts_with('<') => Some((
                "image/svg+xml",
                base64::engine::general_purpose::STANDARD.encode(image.as_bytes()),
            )),
            "svg" => Some(("image/svg+xml", image.clone())),
            _ => None,
        };
        if let Some(p) = picture {
            images.push(p);
            *image = format!("({format} image {}: in the image block)", images.len());
        }
    }
    if let Some(Value::Array(figures)) = m.get_mut("figures") {
        for figure in figures {
            if let Value::String(png) = figure {
                images.push(("image/png", std::mem::take(png)));
                *figure = json!(format!("(png image {}: in the image block)", images.len()));
            }
        }
    }
    (view, images)
}
