//! The file tools' specs: params and result schemas, examples (`examples.json`) and the notes in `files.md`.

use beaker_core::{Example, ToolSpec};
use serde_json::{json, Value};

/// The examples of `tool`, from `examples.json` (checked by the conformance suite).
fn examples(tool: &str) -> Vec<Example> {
    Example::of_tool(include_str!("examples.json"), tool)
}

const PATH: &str = "A path relative to the workspace's root, such as `notes.txt` or `outputs/plot.png` (no `..`, no absolute paths).";

fn result_schema(extra: Value) -> Value {
    let mut props = json!({
        "result": {"type": "string", "description": "What was done, in seed 001's words."},
        "path": {"type": "string", "description": "The path, normalised (`./a//b` is `a/b`)."}
    });
    if let (Some(p), Value::Object(e)) = (props.as_object_mut(), extra) {
        p.extend(e);
    }
    json!({"type": "object", "properties": props, "required": ["result", "path"], "additionalProperties": false})
}

fn spec(name: &str, description: &str, params: Value, result: Value) -> ToolSpec {
    // The workspace is described once, under write_file; the others point there.
    let notes = if name == "write_file" {
        include_str!("files.md").to_string()
    } else {
        "The workspace, its paths and its limits: see `write_file`.".to_string()
    };
    ToolSpec {
        name: name.into(),
        description: description.into(),
        params_schema: params,
        result_schema: result,
        examples: examples(name),
        notes,
    }
}

pub(crate) fn write_file() -> ToolSpec {
    spec(
        "write_file",
        "Write a file in this conversation's workspace (its files persist across the calls of one trajectory and \
         are shared with execute_python, edit_image and generate_image). Creates folders as needed; replaces the \
         file unless `append` is true. Content is text, or base64 for binary files.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "maxLength": 1024, "description": PATH},
                "content": {"type": "string", "description": "The file's content: text, or base64 with `encoding: \"base64\"`."},
                "encoding": {"enum": ["text", "base64"], "default": "text", "description": "How `content` is written."},
                "append": {"type": "boolean", "default": false, "description": "Add to the end of the file instead of replacing it."}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }),
        result_schema(json!({
            "bytes_written": {"type": "integer", "description": "Bytes this call wrote."},
            "size": {"type": "integer", "description": "The file's size now, in bytes."},
            "created": {"type": "boolean", "description": "Whether the file is new."}
        })),
    )
}

pub(crate) fn read_file() -> ToolSpec {
    spec(
        "read_file",
        "Read a file from this conversation's workspace. Text comes back as text, paged by lines with `offset` \
         (lines to skip) and `limit` (lines to read); a binary file (an image) comes back as base64, paged by \
         bytes. A missing file is `File not found: PATH`.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "maxLength": 1024, "description": PATH},
                "encoding": {"enum": ["text", "base64"], "description": "text or base64; default: text when the file is UTF-8, else base64."},
                "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Lines (text) or bytes (base64) to skip."},
                "limit": {"type": "integer", "minimum": 1, "description": "Most lines (text) or bytes (base64) to return; default: as many as fit the result."}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        result_schema(json!({
            "content": {"type": "string", "description": "The text, or the bytes as base64."},
            "encoding": {"enum": ["text", "base64"]},
            "size": {"type": "integer", "description": "The whole file's size in bytes."},
            "lines": {"type": "integer", "description": "Text: the whole file's lines."},
            "offset": {"type": "integer", "description": "Where `content` starts (lines or bytes)."},
            "next_offset": {"type": "integer", "description": "Present when the file goes on: the `offset` that reads the rest."},
            "truncated": {"type": "boolean", "description": "With `next_offset`: true when the result's size limit, not `limit`, stopped the read."}
        })),
    )
}

pub(crate) fn list_files() -> ToolSpec {
    spec(
        "list_files",
        "List the files and folders of this conversation's workspace (or of one folder of it), with their sizes, \
         optionally only those matching a glob such as `*.png` or `data/**/*.csv`.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "maxLength": 1024, "default": ".", "description": "The folder to list; `.` (default) is the workspace's root."},
                "pattern": {"type": "string", "minLength": 1, "maxLength": 256, "description": "A glob (`*`, `?`, `[abc]`, `**`): without `/` it matches names, with `/` paths below `path` at every depth (`**` is any number of folders)."},
                "recursive": {"type": "boolean", "default": false, "description": "List every depth, not only the folder's own entries."}
            },
            "additionalProperties": false
        }),
        result_schema(json!({
            "files": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string"}, "type": {"enum": ["file", "folder"]}, "size": {"type": "integer"}
            }, "required": ["path", "type", "size"]}, "description": "Sorted by path; a folder's size is its files' total."},
            "count": {"type": "integer", "description": "Entries matched (at most 1,000 are listed)."},
            "truncated": {"type": "boolean"}
        })),
    )
}

pub(crate) fn delete_file() -> ToolSpec {
    spec(
        "delete_file",
        "Delete a file from this conversation's workspace (a folder with every file under it when `recursive` is \
         true). A missing file is `File not found: PATH`.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "maxLength": 1024, "description": PATH},
                "recursive": {"type": "boolean", "default": false, "description": "Delete a folder and everything in it."}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        result_schema(json!({
            "bytes_freed": {"type": "integer", "description": "Bytes the deleted files held."}
        })),
    )
}
