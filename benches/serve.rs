//! Round trips through `beaker serve` over pipes: single-call latency and pipelined throughput.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Serve {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Serve {
    fn start() -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_beaker"))
            .arg("serve")
            .args(["--max-in-flight", "1024"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn beaker serve");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Serve {
            child,
            stdin,
            stdout,
        }
    }
}

const CALL: &[u8] = br#"{"id": 1, "tool": "calculator", "params": {"expression": "7 * 8"}}
"#;

fn serve(c: &mut Criterion) {
    let mut s = Serve::start();
    let mut line = String::new();
    c.bench_function("serve_one_call_latency", |b| {
        b.iter(|| {
            s.stdin.write_all(CALL).expect("write");
            s.stdin.flush().expect("flush");
            line.clear();
            s.stdout.read_line(&mut line).expect("read");
        })
    });
    const BATCH: u64 = 1000;
    let batch: Vec<u8> = (0..BATCH)
        .flat_map(|i| format!("{{\"id\": {i}, \"tool\": \"calculator\", \"params\": {{\"expression\": \"7 * 8\"}}}}\n").into_bytes())
        .collect();
    let mut g = c.benchmark_group("serve_pipelined");
    g.throughput(Throughput::Elements(BATCH));
    g.bench_function("1000_calls", |b| {
        b.iter(|| {
            // Write from a second thread so neither pipe can fill up and deadlock.
            std::thread::scope(|scope| {
                let stdin = &mut s.stdin;
                let batch = &batch;
                scope.spawn(move || {
                    stdin.write_all(batch).expect("write");
                    stdin.flush().expect("flush");
                });
                for _ in 0..BATCH {
                    line.clear();
                    s.stdout.read_line(&mut line).expect("read");
                }
            })
        })
    });
    g.finish();
    drop(s.stdin);
    let _ = s.child.wait();
}

criterion_group!(benches, serve);
criterion_main!(benches);
