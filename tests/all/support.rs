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
