//! Helpers shared by the suites: paths, data files, and a `beaker serve` child process.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub type Outcome = Result<(), libtest_mimic::Failed>;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `beaker` binary under test.
pub fn beaker() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_beaker"));
    // The suite starts hundreds of servers, most of which never run a program: none starts warm launchers
    // ahead of its first call but the test of that (`code::a_server_starts_the_common_launchers_ahead`).
    c.env("BEAKER_PRESTART", "0");
    c
}

/// A local HTTP server answering each request with `respond(request line)`'s status and JSON body, for tests of
/// live providers (web_search's SearXNG, pubchem's PUG REST); its base url (`http://127.0.0.1:PORT`).
pub fn json_server(respond: fn(&str) -> (u16, String)) -> Result<String, String> {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let (status, body) = respond(&first);
            let mut w = &stream;
            let _ = write!(
                w,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Ok(format!("http://127.0.0.1:{port}"))
}

/// A deterministic drawing for a prompt: a background of the prompt's FNV hash and a diagonal band.
pub fn draw(prompt: &str, w: u32, h: u32) -> Vec<u8> {
    let hash = prompt.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let bg = [(hash >> 8) as u8, (hash >> 16) as u8, (hash >> 24) as u8];
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        if x.abs_diff(y * w / h.max(1)) < w / 16 + 1 {
            image::Rgb([255, 255, 255])
        } else {
            image::Rgb(bg)
        }
    });
    let mut out = std::io::Cursor::new(Vec::new());
    let _ = img.write_to(&mut out, image::ImageFormat::Png);
    out.into_inner()
}

/// `busy` requests answered so far: the even ones get a 503.
static BUSY: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The OpenAI Images API as a local server, one per test process: `POST /v1/images/generations` draws the
/// prompt (deterministic PNGs: `draw`); the prompt `busy` gets a 503 every other time, `refuse` a 400, `hang` an answer after 3 s. Its
/// base url (`http://127.0.0.1:PORT/v1`), what `[image.provider] url` takes.
pub fn images_api() -> Result<String, String> {
    static URL: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    URL.get_or_init(start_images_api).clone()
}

fn start_images_api() -> Result<String, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            // A thread per request, so a provider that hangs (`hang`) keeps nobody else waiting.
            std::thread::spawn(move || {
                use std::io::{BufRead, Read, Write};
                let mut reader = std::io::BufReader::new(&stream);
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                let mut len = 0usize;
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 2 {
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let mut body = vec![0; len];
                let _ = reader.read_exact(&mut body);
                let req: serde_json::Value =
                    serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
                let prompt = req["prompt"].as_str().unwrap_or("");
                let (w, h) = req["size"]
                    .as_str()
                    .and_then(|s| s.split_once('x'))
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                    .unwrap_or((256, 256));
                let (status, answer) = if !first.starts_with("POST /v1/images/generations ") {
                    (404, serde_json::json!({"error": {"message": "not found"}}))
                } else if prompt == "hang" {
                    std::thread::sleep(std::time::Duration::from_secs(3));
                    (200, serde_json::json!({"created": 0, "data": []}))
                } else if prompt == "refuse" {
                    (
                        400,
                        serde_json::json!({"error": {"message": "Your request was rejected by the safety system."}}),
                    )
                } else if prompt == "busy"
                    && BUSY
                        .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                        .is_multiple_of(2)
                {
                    (503, serde_json::json!({"error": {"message": "busy"}}))
                } else {
                    (
                        200,
                        serde_json::json!({"created": 0, "data": [{"b64_json": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, draw(prompt, w, h))}]}),
                    )
                };
                let body = answer.to_string();
                let mut w = &stream;
                let _ = write!(w, "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
            });
        }
    });
    Ok(format!("http://127.0.0.1:{port}/v1"))
}

/// Every JSON line of a data file (blank lines and `//` comments skipped).
pub fn jsonl(rel: &str) -> Vec<Value> {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{rel} line {}: {e}", i + 1))
        })
        .collect()
}

/// A running `beaker serve`.
pub struct Server {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: BufReader<ChildStdout>,
}

impl Server {
    pub fn start(args: &[&str]) -> Server {
        Server::start_with_env(args, &[])
    }

    /// A server with these environment variables set.
    pub fn start_with_env(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Server {
        let mut child = beaker()
            .arg("serve")
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn beaker serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Server {
            child,
            stdin,
            stdout,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(bytes).expect("write");
        w.flush().expect("flush");
    }

    pub fn send(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).expect("json");
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// The next response line as written, without parsing it.
    pub fn recv_line(&mut self) -> String {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read");
        assert!(n > 0, "the server closed stdout early");
        line
    }

    pub fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read");
        assert!(n > 0, "the server closed stdout early");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad response line {line:?}: {e}"))
    }

    /// Closes stdin, reads every remaining line, and returns them with the exit status.
    pub fn finish(mut self) -> (Vec<Value>, std::process::ExitStatus) {
        drop(self.stdin.take());
        let mut out = Vec::new();
        let mut line = String::new();
        while self.stdout.read_line(&mut line).expect("read") > 0 {
            out.push(
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad line {line:?}: {e}")),
            );
            line.clear();
        }
        let status = self.child.wait().expect("wait");
        (out, status)
    }
}

/// Fails with a message unless `cond`.
pub fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Outcome {
    if cond {
        Ok(())
    } else {
        Err(msg().into())
    }
}

/// The one tolerance comparer (tests/data/README.md): numbers match when `|got − want| ≤ atol + rtol·|want|`
/// or they are equal; arrays element by element; objects key by key over `want`'s keys (a key `want` has
/// must be in `got`, unless `want` says `null`); anything else exactly. `Err` names the first difference.
pub fn compare(got: &Value, want: &Value, rtol: f64, atol: f64, path: &str) -> Result<(), String> {
    match (got, want) {
        (_, Value::Number(w)) => {
            let w = w.as_f64().unwrap_or(f64::NAN);
            let Some(g) = got.as_f64() else {
                return Err(format!("{path}: got {got}, want {w:e}"));
            };
            if (g - w).abs() <= atol + rtol * w.abs() || g == w {
                Ok(())
            } else {
                Err(format!(
                    "{path}: got {g:e}, want {w:e} (rel err {:.1e}; rtol {rtol:e}, atol {atol:e})",
                    ((g - w) / w).abs()
                ))
            }
        }
        (Value::Array(g), Value::Array(w)) => {
            if g.len() != w.len() {
                return Err(format!("{path}: got {} items, want {}", g.len(), w.len()));
            }
            g.iter()
                .zip(w)
                .enumerate()
                .try_for_each(|(i, (a, b))| compare(a, b, rtol, atol, &format!("{path}[{i}]")))
        }
        (Value::Object(g), Value::Object(w)) => w.iter().try_for_each(|(k, b)| match g.get(k) {
            Some(a) => compare(a, b, rtol, atol, &format!("{path}.{k}")),
            None if b.is_null() => Ok(()),
            None => Err(format!("{path}.{k}: missing")),
        }),
        _ if got == want => Ok(()),
        _ => Err(format!("{path}: got {got}, want {want}")),
    }
}

/// Beaker's cache folder, as the install scripts choose it.
fn cache_dir() -> PathBuf {
    std::env::var_os("BEAKER_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|x| PathBuf::from(x).join("beaker")))
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/beaker")
        })
}

/// The Python of the peer server's venv (`benches/peers/setup.sh`: NumPy, SciPy, SymPy, Pint, matplotlib), or
/// why it is missing.
pub fn peers_python() -> Result<PathBuf, libtest_mimic::Failed> {
    let python = cache_dir().join("peers/bin/python");
    ensure(python.is_file(), || {
        format!(
            "{} is missing: run `bash benches/peers/setup.sh`",
            python.display()
        )
    })?;
    Ok(python)
}

/// The Python of the venv `scripts/install-python-runtime.py` makes for the test clients (SandboxFusion's,
/// the MCP SDK), or why it is missing.
pub fn clients_python() -> Result<PathBuf, libtest_mimic::Failed> {
    let python = cache_dir().join("clients/bin/python");
    ensure(python.is_file(), || {
        format!(
            "{} is missing: run `python3 scripts/install-python-runtime.py` (it makes the test clients' venv)",
            python.display()
        )
    })?;
    Ok(python)
}

/// Runs the test clients' Python with `args`: passes when it exits 0, else fails with all it printed.
pub fn python_client_passes<S: AsRef<std::ffi::OsStr>>(
    args: impl IntoIterator<Item = S>,
) -> Outcome {
    // The examples' tests (tests/python/test_examples.py) run this build's server.
    let out = Command::new(clients_python()?)
        .args(args)
        .env("BEAKER_BIN", env!("CARGO_BIN_EXE_beaker"))
        .output()
        .map_err(|e| e.to_string())?;
    ensure(out.status.success(), || {
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}
