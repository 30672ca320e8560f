use super::*;
use beaker_core::{ErrorKind, Limits, Workspace};

fn call(tool: &dyn Tool, ws: &Workspace, params: Value) -> Result<Value, ToolError> {
    let mut ctx = CallContext::new(Limits::default());
    ctx.workspace = beaker_core::WorkspaceSlot::of(ws.clone());
    tool.call(&params, &ctx)
}

fn by_name(name: &str) -> Arc<dyn Tool> {
    tools()
        .into_iter()
        .find(|t| t.spec().name == name)
        .expect("tool")
}

#[test]
fn a_file_written_is_read_listed_and_deleted() {
    let ws = Workspace::scratch();
    let (w, r, l, d) = (
        by_name("write_file"),
        by_name("read_file"),
        by_name("list_files"),
        by_name("delete_file"),
    );
    let out = call(
        &*w,
        &ws,
        json!({"path": "a/b.txt", "content": "one\ntwo\n"}),
    )
    .unwrap();
    assert_eq!(out["result"], "File written successfully");
    call(
        &*w,
        &ws,
        json!({"path": "a/b.txt", "content": "three", "append": true}),
    )
    .unwrap();
    let out = call(&*r, &ws, json!({"path": "./a//b.txt"})).unwrap();
    assert_eq!(out["content"], "one\ntwo\nthree");
    assert_eq!(out["lines"], 3);
    assert!(out.get("next_offset").is_none());
    let out = call(&*l, &ws, json!({})).unwrap();
    assert_eq!(
        out["files"],
        json!([{"path": "a", "type": "folder", "size": 13}])
    );
    let out = call(&*d, &ws, json!({"path": "a/b.txt"})).unwrap();
    assert_eq!(out["bytes_freed"], 13);
    let e = call(&*r, &ws, json!({"path": "a/b.txt"})).unwrap_err();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (ErrorKind::InvalidParams, "File not found: a/b.txt")
    );
}

#[test]
fn binary_files_come_back_as_base64_and_page_by_bytes() {
    let ws = Workspace::scratch();
    ws.write("img.bin", &[0xff, 0x00, 0x10, 0x20, 0x30], false)
        .unwrap();
    let r = by_name("read_file");
    let out = call(&*r, &ws, json!({"path": "img.bin"})).unwrap();
    assert_eq!(
        (out["encoding"].clone(), out["content"].clone()),
        (json!("base64"), json!("/wAQIDA="))
    );
    let out = call(
        &*r,
        &ws,
        json!({"path": "img.bin", "offset": 1, "limit": 2}),
    )
    .unwrap();
    assert_eq!(
        (out["content"].clone(), out["next_offset"].clone()),
        (json!("ABA="), json!(3))
    );
    let e = call(&*r, &ws, json!({"path": "img.bin", "encoding": "text"})).unwrap_err();
    assert!(e.message.contains("not UTF-8"), "{}", e.message);
    let w = by_name("write_file");
    let e = call(
        &*w,
        &ws,
        json!({"path": "x", "content": "not base64!", "encoding": "base64"}),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidParams);
}

#[test]
fn a_long_text_stops_within_the_result_limit_and_says_where_to_go_on() {
    let ws = Workspace::scratch();
    let line = format!("{}\n", "x".repeat(99));
    ws.write("big.txt", line.repeat(1000).as_bytes(), false)
        .unwrap();
    let mut ctx = CallContext::new(Limits {
        max_output_bytes: 10_000,
        ..Limits::default()
    });
    ctx.workspace = beaker_core::WorkspaceSlot::of(ws.clone());
    let out = by_name("read_file")
        .call(&json!({"path": "big.txt"}), &ctx)
        .unwrap();
    assert!(beaker_core::json_len(&out) <= 10_000);
    assert_eq!(out["truncated"], true);
    let next = out["next_offset"].as_u64().unwrap();
    assert!(next > 50 && next < 100, "{next}");
}

#[test]
fn globs_match_names_or_paths() {
    let ws = Workspace::scratch();
    for p in ["a.png", "b.txt", "d/c.png", "d/e/f.png"] {
        ws.write(p, b"1", false).unwrap();
    }
    let l = by_name("list_files");
    let names = |v: Value| -> Vec<String> {
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(call(&*l, &ws, json!({"pattern": "*.png"})).unwrap()),
        ["a.png"]
    );
    assert_eq!(
        names(call(&*l, &ws, json!({"pattern": "*.png", "recursive": true})).unwrap()),
        ["a.png", "d/c.png", "d/e/f.png"]
    );
    assert_eq!(
        names(call(&*l, &ws, json!({"pattern": "d/*.png"})).unwrap()),
        ["d/c.png"]
    );
    assert_eq!(
        names(call(&*l, &ws, json!({"pattern": "d/**/*.png"})).unwrap()),
        ["d/c.png", "d/e/f.png"]
    );
    assert_eq!(
        names(call(&*l, &ws, json!({"path": "d"})).unwrap()),
        ["d/c.png", "d/e"]
    );
    let e = call(&*l, &ws, json!({"pattern": "[a"})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidParams);
}
