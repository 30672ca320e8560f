//! The image tools: `edit_image` against Pillow (`tests/data/image/reference.jsonl`, written by
//! `tests/data/gen/image_reference.py`), decoders given hostile bytes, and `generate_image` / `generate_gif`
//! over `beaker serve` against a local server speaking the OpenAI Images API that draws deterministic PNGs,
//! with seed 001's image conversation replayed turn by turn.

use crate::support::{beaker, ensure, jsonl, root, Outcome};
use base64::Engine as _;
use beaker::ToolCall;
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};

pub fn trials() -> Vec<Trial> {
    let mut t: Vec<Trial> = jsonl("tests/data/image/reference.jsonl")
        .into_iter()
        .map(|case| {
            let name = case["name"].as_str().unwrap_or("?").to_string();
            Trial::test(format!("image::pillow::{name}"), move || {
                against_pillow(&case)
            })
        })
        .collect();
    t.push(Trial::test(
        "image::hostile_bytes_are_refused",
        hostile_bytes,
    ));
    t.push(Trial::test(
        "image::generate_without_a_provider_names_the_setting",
        no_provider,
    ));
    t.push(Trial::test(
        "image::seed_001_image_conversation",
        seed_001_images,
    ));
    t.push(Trial::test(
        "image::a_hung_provider_is_the_tools_failure_within_its_timeout",
        hung_provider,
    ));
    t
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn edit(params: Value) -> Result<Value, String> {
    let e = crate::conformance::engine()?;
    let env = e.call(ToolCall::new("edit_image", params));
    match (env.success, env.result) {
        (true, Some(r)) => Ok(r),
        _ => Err(format!(
            "edit_image failed: {:?} {:?}",
            env.error_kind, env.error
        )),
    }
}

/// One edit against Pillow's pixels: dimensions exact, channels within the case's `max_abs` and `mean_abs`.
fn against_pillow(case: &Value) -> Outcome {
    let dir = root().join("tests/data/image");
    let input =
        std::fs::read(dir.join(case["input"].as_str().unwrap_or(""))).map_err(|e| e.to_string())?;
    let mut params = case["params"].clone();
    params["image"] = json!(b64(&input));
    params["format"] = json!("png");
    let r = edit(params)?;
    let got = base64::engine::general_purpose::STANDARD
        .decode(r["image_base64"].as_str().unwrap_or(""))
        .map_err(|e| e.to_string())?;
    let got = image::load_from_memory(&got).map_err(|e| e.to_string())?;
    let want = image::open(dir.join(case["expected"].as_str().unwrap_or("")))
        .map_err(|e| e.to_string())?;
    ensure(
        (got.width(), got.height()) == (want.width(), want.height())
            && json!([got.width(), got.height()]) == case["size"],
        || {
            format!(
                "size {}x{}, Pillow's {}x{}",
                got.width(),
                got.height(),
                want.width(),
                want.height()
            )
        },
    )?;
    let (g, w): (Vec<u8>, Vec<u8>) = match case["mode"].as_str() {
        Some("L") => (got.to_luma8().into_raw(), want.to_luma8().into_raw()),
        Some("LA") => (
            got.to_luma_alpha8().into_raw(),
            want.to_luma_alpha8().into_raw(),
        ),
        // Colours as they show: times their alpha (a fully transparent pixel's colour is invisible).
        Some("RGBA") => (
            premultiplied(got.to_rgba8()),
            premultiplied(want.to_rgba8()),
        ),
        _ => (got.to_rgb8().into_raw(), want.to_rgb8().into_raw()),
    };
    ensure(g.len() == w.len(), || {
        format!("{} channels, Pillow's {}", g.len(), w.len())
    })?;
    let diffs: Vec<u32> = g
        .iter()
        .zip(&w)
        .map(|(a, b)| u32::from(a.abs_diff(*b)))
        .collect();
    let max = diffs.iter().copied().max().unwrap_or(0);
    let mean = diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len().max(1) as f64;
    if std::env::var_os("BEAKER_IMAGE_DIFFS").is_some() {
        eprintln!("{}: max {max} mean {mean:.4}", case["name"]);
    }
    let (max_ok, mean_ok) = (
        case["max_abs"].as_u64().unwrap_or(0),
        case["mean_abs"].as_f64().unwrap_or(0.0),
    );
    ensure(u64::from(max) <= max_ok && mean <= mean_ok, || {
        format!(
            "against {}: max |diff| {max} (allowed {max_ok}), mean {mean:.4} (allowed {mean_ok})",
            case["pillow"]
        )
    })
}

/// An RGBA image's channels with each colour multiplied by its alpha (alpha kept).
fn premultiplied(img: image::RgbaImage) -> Vec<u8> {
    img.pixels()
        .flat_map(|p| {
            let a = u32::from(p[3]);
            let c = |v: u8| ((u32::from(v) * a + 127) / 255) as u8;
            [c(p[0]), c(p[1]), c(p[2]), p[3]]
        })
        .collect()
}

/// Truncated, corrupted and bomb-sized images of every format are refused with a clear error; nothing panics.
fn hostile_bytes() -> Outcome {
    let photo =
        std::fs::read(root().join("tests/data/image/photo.png")).map_err(|e| e.to_string())?;
    let img = image::load_from_memory(&photo).map_err(|e| e.to_string())?;
    let mut files: Vec<(&str, Vec<u8>)> = vec![("png", photo.clone())];
    for (name, fmt) in [
        ("jpeg", image::ImageFormat::Jpeg),
        ("gif", image::ImageFormat::Gif),
        ("webp", image::ImageFormat::WebP),
    ] {
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, fmt).map_err(|e| e.to_string())?;
        files.push((name, out.into_inner()));
    }
    // A PNG whose header claims 100000 x 100000 pixels (a decompression bomb's shape).
    let mut bomb = photo.clone();
    bomb[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bomb[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    // The header's checksum made right, so the forged size is what the decoder reads.
    let crc = bomb[12..29].iter().fold(0xffff_ffffu32, |mut c, &b| {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        c
    });
    bomb[29..33].copy_from_slice(&(!crc).to_be_bytes());
    let e = crate::conformance::engine()?;
    let bad = |bytes: &[u8]| {
        e.call(ToolCall::new(
            "edit_image",
            json!({"image": b64(bytes), "edit_type": "grayscale"}),
        ))
    };
    let env = bad(&bomb);
    ensure(
        env.error_kind == Some(beaker::ErrorKind::LimitExceeded)
            && env
                .error
                .as_deref()
                .is_some_and(|m| m.contains("100000x100000")),
        || format!("bomb: {env:?}"),
    )?;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (name, good) in &files {
        let env = bad(good);
        ensure(env.success, || format!("{name} itself: {env:?}"))?;
        // Cut inside the header: refused. Cut later: refused, or answered by a decoder that keeps what arrived
        // (JPEG's; a PNG missing only its end marker); never an internal error.
        for cut in [1, 8, 16, 33] {
            let env = bad(&good[..cut.min(good.len())]);
            ensure(
                !env.success && env.error_kind == Some(beaker::ErrorKind::InvalidParams),
                || format!("{name} cut at {cut}: {env:?}"),
            )?;
        }
        for cut in [good.len() / 3, good.len() / 2, good.len() - 1] {
            let env = bad(&good[..cut]);
            ensure(env.error_kind != Some(beaker::ErrorKind::Internal), || {
                format!("{name} cut at {cut}: {env:?}")
            })?;
        }
        // Random bytes flipped: answered (an image or a refusal), never a panic or an internal error.
        for _ in 0..60 {
            let mut b = good.clone();
            for _ in 0..4 {
                let i = (next() % b.len() as u64) as usize;
                b[i] ^= (next() & 0xff) as u8;
            }
            let env = bad(&b);
            ensure(env.error_kind != Some(beaker::ErrorKind::Internal), || {
                format!("{name} mutated: {env:?}")
            })?;
        }
    }
    ensure(
        e.call(ToolCall::new("calculator", json!({"expression": "1+1"})))
            .success,
        || "the engine stopped answering".into(),
    )
}

fn no_provider() -> Outcome {
    let catalog = beaker::Catalog::empty()
        .with("image")
        .map_err(|e| e.to_string())?;
    let e = catalog.engine().map_err(|e| e.to_string())?;
    for (tool, params) in [
        ("generate_image", json!({"prompt": "a sunset"})),
        ("generate_gif", json!({"frames": ["a", "b"]})),
    ] {
        let env = e.call(ToolCall::new(tool, params));
        ensure(
            !env.success
                && env.error_kind == Some(beaker::ErrorKind::ToolError)
                && env
                    .error
                    .as_deref()
                    .is_some_and(|m| m.contains("[image.provider] url")),
            || format!("{tool}: {env:?}"),
        )?;
    }
    Ok(())
}

/// A config file whose `[image.provider]` is the local Images API, with `settings` added (the folder holding it
/// lives as long as the returned guard).
fn provider_config(settings: &str) -> Result<(tempfile::TempDir, std::path::PathBuf), String> {
    let url = crate::support::images_api()?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("beaker.toml");
    std::fs::write(
        &config,
        format!("[image.provider]\nurl = \"{url}\"\n{settings}\n"),
    )
    .map_err(|e| e.to_string())?;
    Ok((dir, config))
}

/// Seed 001's image turns (`tests/data/image/seed_001.jsonl`) sent in order, as {"text", "tag"}, to one
/// `beaker serve` whose `[image.provider]` is the local Images API: each observation exactly as written there.
fn seed_001_images() -> Outcome {
    let (_dir, config) = provider_config("retries = 1")?;
    let mut child = beaker()
        .args(["serve", "--no-python", "--config"])
        .arg(&config)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("stdout")?);
    for (i, turn) in jsonl("tests/data/image/seed_001.jsonl").iter().enumerate() {
        writeln!(
            stdin,
            "{}",
            json!({"id": i, "text": turn["turn"], "tag": "seed-001"})
        )
        .map_err(|e| e.to_string())?;
        let mut line = String::new();
        stdout.read_line(&mut line).map_err(|e| e.to_string())?;
        let a: Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line}"))?;
        ensure(a["text"] == turn["observation"], || {
            format!(
                "turn {i}:\n got {}\nwant {}",
                a["text"], turn["observation"]
            )
        })?;
    }
    drop(stdin);
    let _ = child.wait();
    // The first turn through `beaker run-text` (one text, one process) renders the same observation.
    let first = &jsonl("tests/data/image/seed_001.jsonl")[0];
    let mut run = beaker()
        .args(["run-text", "--no-python", "--config"])
        .arg(&config)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    run.stdin
        .take()
        .ok_or("stdin")?
        .write_all(first["turn"].as_str().unwrap_or("").as_bytes())
        .map_err(|e| e.to_string())?;
    let out = run.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    ensure(
        out.status.success() && Some(text.trim_end()) == first["observation"].as_str(),
        || format!("run-text: {:?} {text}", out.status),
    )
}

/// A provider that does not answer within `timeout_ms` fails the call as the tool's failure (`tool_error`, fault
/// `tool`) when its timeout passes, not at the call's own deadline as a `timeout` blamed on the model.
fn hung_provider() -> Outcome {
    let (_dir, config) = provider_config("timeout_ms = 300\nretries = 0")?;
    let out = beaker()
        .args(["call", "--no-python", "--config"])
        .arg(&config)
        .args([
            "generate_image",
            r#"{"prompt": "hang", "width": 8, "height": 8}"#,
        ])
        .output()
        .map_err(|e| e.to_string())?;
    let env: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&out.stdout)))?;
    ensure(
        env["error_kind"] == "tool_error"
            && env["fault"] == "tool"
            && env["error"]
                .as_str()
                .is_some_and(|m| m.contains("no answer within 300 ms")),
        || env.to_string(),
    )
}
