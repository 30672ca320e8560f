//! Seed 001's file tools on the call's [`Workspace`](beaker_core::Workspace): `write_file`, `read_file`,
//! `list_files` and `delete_file`.
//!
//! A call with a `tag` works in its trajectory's workspace (the files `execute_python`, `edit_image`,
//! `generate_image` and the plotter's `save_as` see in the same trajectory); an untagged call's workspace is
//! empty and dropped with it. Results carry seed 001's `result` message ("File written successfully") beside
//! their figures; a missing file is seed 001's `File not found: PATH`.

mod spec;
#[cfg(test)]
mod tests;

use base64::Engine as _;
use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// Every tool of the family.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(WriteFile(spec::write_file())),
        Arc::new(ReadFile(spec::read_file())),
        Arc::new(ListFiles(spec::list_files())),
        Arc::new(DeleteFile(spec::delete_file())),
    ]
}

/// How file content is written in params and results.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Encoding {
    /// UTF-8 text as it is.
    Text,
    /// Bytes as standard base64.
    Base64,
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Text => "text",
            Encoding::Base64 => "base64",
        }
    }
}

/// `write_file`: writes (or appends to) a workspace file.
pub struct WriteFile(ToolSpec);
/// `read_file`: reads a workspace file, as text or base64, whole or a window of it.
pub struct ReadFile(ToolSpec);
/// `list_files`: lists a workspace folder, optionally filtered by a glob.
pub struct ListFiles(ToolSpec);
/// `delete_file`: deletes a workspace file (or a folder, with `recursive`).
pub struct DeleteFile(ToolSpec);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteParams {
    path: String,
    content: String,
    #[serde(default)]
    encoding: Option<Encoding>,
    #[serde(default)]
    append: bool,
}

impl Tool for WriteFile {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: WriteParams = beaker_core::params::parse(params)?;
        let ws = ctx.workspace();
        let path = ws.normalize(&p.path, false)?;
        if p.content.len() as u64 > ctx.limits.max_input_bytes {
            return Err(ToolError::limit(format!(
                "`content` is {} bytes; the limit is {} (max_input_bytes)",
                p.content.len(),
                ctx.limits.max_input_bytes
            )));
        }
        let bytes = match p.encoding.unwrap_or(Encoding::Text) {
            Encoding::Text => p.content.into_bytes(),
            Encoding::Base64 => base64::engine::general_purpose::STANDARD
                .decode(p.content.trim())
                .map_err(|e| {
                    ToolError::invalid_params(format!("`content` is not valid base64: {e}"))
                })?,
        };
        let written = bytes.len();
        let (size, created) = ws.write(&path, &bytes, p.append)?;
        Ok(json!({
            "result": if p.append { "File appended successfully" } else { "File written successfully" },
            "path": path,
            "bytes_written": written,
            "size": size,
            "created": created,
        }))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadParams {
    path: String,
    #[serde(default)]
    encoding: Option<Encoding>,
    #[serde(default)]
    offset: u64,
    #[serde(default)]
    limit: Option<u64>,
}

/// Room a read's result keeps for everything but the content (its message, path and figures).
const RESULT_OVERHEAD: u64 = 1024;

impl Tool for ReadFile {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: ReadParams = beaker_core::params::parse(params)?;
        let ws = ctx.workspace();
        let path = ws.normalize(&p.path, false)?;
        let bytes = ws.read(&path)?;
        let room = ctx.limits.max_output_bytes.saturating_sub(RESULT_OVERHEAD);
        let text = std::str::from_utf8(&bytes).ok();
        let encoding = match (p.encoding, text) {
            (Some(Encoding::Text), None) => {
                return Err(ToolError::invalid_params(format!(
                    "{path} is not UTF-8 text ({} bytes); read it with `encoding: \"base64\"`",
                    bytes.len()
                )))
            }
            (Some(e), _) => e,
            (None, Some(_)) => Encoding::Text,
            (None, None) => Encoding::Base64,
        };
        let size = bytes.len() as u64;
        match (encoding, text) {
            (Encoding::Text, Some(text)) => {
                // Lines, so a model can page through a long file as it reads one.
                let total = text.split_inclusive('\n').count() as u64;
                let mut content = String::new();
                let mut shown = 0u64;
                let mut cut = false;
                // The content's size as it will be sent (JSON escapes included), kept as lines are added.
                let mut sent = 2u64;
                for line in text
                    .split_inclusive('\n')
                    .skip(usize::try_from(p.offset).unwrap_or(usize::MAX))
                {
                    if p.limit.is_some_and(|l| shown >= l) {
                        break;
                    }
                    let escaped =
                        beaker_core::json_len(&Value::String(line.to_string())) as u64 - 2;
                    if sent + escaped > room {
                        cut = true;
                        break;
                    }
                    sent += escaped;
                    content.push_str(line);
                    shown += 1;
                }
                let next = p.offset + shown;
                let mut out = json!({
                    "result": format!("Read {shown} of {total} lines ({} bytes) from {path}", content.len()),
                    "path": path,
                    "content": content,
                    "encoding": "text",
                    "size": size,
                    "lines": total,
                    "offset": p.offset,
                });
                if next < total {
                    out["next_offset"] = json!(next);
                    out["truncated"] = json!(cut);
                }
                Ok(out)
            }
            _ => {
                let start = p.offset.min(size);
                let want = p.limit.unwrap_or(u64::MAX).min(size - start);
                // base64 is 4 bytes for every 3.
                let fits = room / 4 * 3;
                let n = want.min(fits);
                let slice = &bytes[start as usize..(start + n) as usize];
                let mut out = json!({
                    "result": format!("Read {n} of {size} bytes from {path} (base64)"),
                    "path": path,
                    "content": base64::engine::general_purpose::STANDARD.encode(slice),
                    "encoding": Encoding::Base64.name(),
                    "size": size,
                    "offset": start,
                });
                if start + n < size {
                    out["next_offset"] = json!(start + n);
                    out["truncated"] = json!(n < want);
                }
                Ok(out)
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    pattern: Option<String>,
    #[serde(default)]
    recursive: bool,
}

/// The most entries one listing returns.
const MAX_LISTED: usize = 1000;

impl Tool for ListFiles {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: ListParams = beaker_core::params::parse(params)?;
        let ws = ctx.workspace();
        let dir = ws.normalize(p.path.as_deref().unwrap_or("."), true)?;
        let pattern = match &p.pattern {
            None => None,
            Some(g) => Some(glob::Pattern::new(g).map_err(|e| {
                ToolError::invalid_params(format!("`pattern` {g:?} is not a glob: {e}"))
            })?),
        };
        // A pattern with a folder in it (`d/*.png`, `**/*.csv`) reaches into folders, so it lists every depth.
        let recursive = p.recursive || p.pattern.as_deref().is_some_and(|g| g.contains('/'));
        let opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        let mut entries = ws.list(&dir, recursive)?;
        if let Some(pat) = &pattern {
            let slashed = p.pattern.as_deref().is_some_and(|g| g.contains('/'));
            entries.retain(|e| {
                let rel = if dir.is_empty() {
                    &e.path[..]
                } else {
                    &e.path[dir.len() + 1..]
                };
                // A pattern without `/` matches a name at any depth listed; one with `/` the path below `path`.
                let subject = if slashed {
                    rel
                } else {
                    rel.rsplit('/').next().unwrap_or(rel)
                };
                pat.matches_with(subject, opts)
            });
        }
        let (files, folders) =
            entries.iter().fold(
                (0, 0),
                |(f, d), e| {
                    if e.is_dir {
                        (f, d + 1)
                    } else {
                        (f + 1, d)
                    }
                },
            );
        let total = entries.len();
        let shown: Vec<Value> = entries
            .iter()
            .take(MAX_LISTED)
            .map(|e| json!({"path": e.path, "type": if e.is_dir { "folder" } else { "file" }, "size": e.size}))
            .collect();
        let place = if dir.is_empty() {
            "the workspace".to_string()
        } else {
            dir.clone()
        };
        let mut out = json!({
            "result": format!("{files} {} and {folders} {} in {place}",
                if files == 1 { "file" } else { "files" }, if folders == 1 { "folder" } else { "folders" }),
            "path": if dir.is_empty() { "." } else { dir.as_str() },
            "files": shown,
            "count": total,
        });
        if total > MAX_LISTED {
            out["truncated"] = json!(true);
        }
        Ok(out)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteParams {
    path: String,
    #[serde(default)]
    recursive: bool,
}

impl Tool for DeleteFile {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: DeleteParams = beaker_core::params::parse(params)?;
        let ws = ctx.workspace();
        let path = ws.normalize(&p.path, false)?;
        let (freed, folder) = ws.delete(&path, p.recursive)?;
        Ok(json!({
            "result": if folder { "Folder deleted successfully" } else { "File deleted successfully" },
            "path": path,
            "bytes_freed": freed,
        }))
    }
}
