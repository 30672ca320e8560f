//! What the engine does with a tool's result before answering: bound its size, and write its image to
//! `output_dir` when one is configured.

use beaker_core::{ErrorKind, ToolError};
use serde_json::Value;

/// Refuses a result whose serialized form is over `max` bytes. The length is computed, not serialized:
/// the front end serializes the envelope once.
pub(crate) fn check_size(v: Value, max: u64) -> Result<Value, ToolError> {
    let n = beaker_core::json_len(&v);
    if n > max {
        return Err(ToolError::limit(format!(
            "the result is {n} bytes; the limit is {max}"
        )));
    }
    Ok(v)
}

/// Writes a result's image (`image` + `format`) to `dir` as `TOOL-HASH.EXT` and adds `output_path`, unless the
/// call saved it already (`output_path` present). The name is the content's stable hash, so the same image is
/// one file however often it is drawn.
pub(crate) fn save_image(
    mut v: Value,
    tool: &str,
    dir: &std::path::Path,
) -> Result<Value, ToolError> {
    use base64::Engine as _;
    let (Some(image), Some(format)) = (v["image"].as_str(), v["format"].as_str()) else {
        return Ok(v);
    };
    // Saved where the call asked (the plotter's `save_as`, into its workspace): the call's own destination.
    if v.get("output_path").is_some() {
        return Ok(v);
    }
    let bytes = match format {
        "svg" => image.as_bytes().to_vec(),
        _ => base64::engine::general_purpose::STANDARD
            .decode(image)
            .map_err(|e| {
                ToolError::new(ErrorKind::Internal, format!("the image is not base64: {e}"))
            })?,
    };
    let ext: String = format
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(8)
        .collect();
    let name = format!("{tool}-{:016x}.{ext}", beaker_core::stable_hash(&[&bytes]));
    let path = dir.join(name);
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, &bytes))
        .map_err(|e| {
            ToolError::new(
                ErrorKind::Internal,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
    if let Value::Object(m) = &mut v {
        m.insert(
            "output_path".into(),
            Value::String(path.display().to_string()),
        );
    }
    Ok(v)
}
