//! The `execute_code` tool's `ToolSpec`: params and result schemas, examples, and the notes in `code.md`.

use crate::languages::LANGUAGES;
use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The tool's spec.
pub(crate) fn spec() -> ToolSpec {
    let names: Vec<&str> = LANGUAGES.iter().map(|l| l.name).collect();
    let run = |what: &str| json!({"type": ["string", "null"], "description": what});
    ToolSpec {
        name: "execute_code".into(),
        description: "Compile and run a program in C, C++, Java, JavaScript (nodejs), TypeScript, Go, Rust, Bash or Python as a \
            native process in a sandbox (no network, no host files, limited time, memory, processes and output), \
            with the given stdin. Returns a judge's verdict (`status`: ok, compile_error, runtime_error, \
            time_limit, memory_limit, output_limit), the exit code, stdout and stderr, and the compiler's report. Java's class \
            is the source's public class (else `Main`)."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "language": {"enum": names, "description": "The language (SandboxFusion's names)."},
                "code": {"type": "string", "description": "The program's source."},
                "stdin": {"type": "string", "description": "What the program reads on stdin (default none)."},
                "run_timeout_ms": {"type": "integer", "minimum": 1, "description": "The program's own time limit per run: past it the verdict is `time_limit` (default: the call's timeout, past which the call fails with `timeout`)."},
                "tests": {"type": "array", "maxItems": 1000, "items": {"type": "object", "properties": {"stdin": {"type": "string"}, "expected_stdout": {"type": "string"}}, "required": ["expected_stdout"], "additionalProperties": false}, "description": "Judge the program: compiled once, run once per test with its stdin, its stdout compared with `expected_stdout`. Not with `stdin`."},
                "compare": {"enum": ["tokens", "lines", "exact"], "description": "tests: how output is compared: whitespace-separated tokens (default), lines ignoring trailing whitespace and blank lines, or byte for byte."},
                "tolerance": {"type": "number", "minimum": 0, "description": "tests with `tokens`: numbers match within this absolute or relative difference (testlib's), e.g. 1e-6."},
                "stop_on_failure": {"type": "boolean", "description": "tests: stop at the first test that does not pass (default false)."},
                "files": {"type": "object", "maxProperties": 64, "additionalProperties": {"oneOf": [
                    {"type": "string"},
                    {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false},
                    {"type": "object", "properties": {"base64": {"type": "string"}}, "required": ["base64"], "additionalProperties": false}]},
                    "description": "Files in the program's working folder (/tmp) before it runs: name (no `/`) -> text, or {\"base64\": ...}."}
            },
            "required": ["language", "code"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "language": {"type": "string"},
                "status": {"enum": ["ok", "accepted", "wrong_answer", "compile_error", "runtime_error", "time_limit", "memory_limit", "output_limit"], "description": "The verdict: `ok` is exit code 0; with `tests`, `accepted` when every test passed, else the first failing test's verdict."},
                "exit_code": {"type": ["integer", "null"], "description": "The exit code, or 128 + the signal that killed the program; null when it did not run to its end."},
                "stdout": run("What it wrote to stdout (up to max_output_bytes; invalid UTF-8 replaced)."),
                "stderr": run("What it wrote to stderr."),
                "passed": {"type": "integer", "description": "tests: how many passed."},
                "total": {"type": "integer", "description": "tests: how many there were."},
                "tests": {"type": "array", "description": "tests: each test's verdict (`passed`, `wrong_answer`, `runtime_error`, `time_limit`, `memory_limit`, `output_limit`) and exit code, with the first 4 KiB of its stdout and stderr when it did not pass; up to the first failure with `stop_on_failure`.", "items": {"type": "object", "properties": {"status": {"type": "string"}, "exit_code": {"type": ["integer", "null"]}, "stdout": {"type": "string"}, "stderr": {"type": "string"}}, "required": ["status", "exit_code"]}},
                "compile": {"type": "object", "description": "Compiled languages: the compiler's exit code and messages (a successful compile reports none, cached or not).", "properties": {"exit_code": {"type": ["integer", "null"]}, "stdout": {"type": "string"}, "stderr": {"type": "string"}}}
            },
            "required": ["language", "status"]
        }),
        examples: vec![
            Example {
                params: json!({"language": "cpp", "code": "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }", "stdin": "2 40\n"}),
                result: json!({"language": "cpp", "status": "ok", "exit_code": 0, "stdout": "42\n", "stderr": "", "compile": {"exit_code": 0, "stdout": "", "stderr": ""}}),
                elided: vec![], workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"language": "c", "code": "#include <stdio.h>\nint main(void) { double r; scanf(\"%lf\", &r); printf(\"%.9f\\n\", 3.141592653589793 * r * r); }", "tests": [{"stdin": "1", "expected_stdout": "3.14159265"}, {"stdin": "2", "expected_stdout": "12.5663706"}, {"stdin": "10", "expected_stdout": "314.2"}], "tolerance": 1e-6}),
                result: json!({"language": "c", "compile": {"exit_code": 0, "stdout": "", "stderr": ""}, "status": "wrong_answer", "passed": 2, "total": 3, "tests": [{"status": "passed", "exit_code": 0}, {"status": "passed", "exit_code": 0}, {"status": "wrong_answer", "exit_code": 0, "stdout": "314.159265359\n", "stderr": ""}]}),
                elided: vec![], workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"language": "python", "code": "import sys\nprint(sys.maxsize, sum(i * i for i in range(100000)))"}),
                result: json!({"language": "python", "status": "ok", "exit_code": 0, "stdout": "9223372036854775807 333328333350000\n", "stderr": ""}),
                elided: vec![], workspace: Default::default(),
                dataset: None,
            },
        ],
        notes: include_str!("code.md").into(),
    }
}
