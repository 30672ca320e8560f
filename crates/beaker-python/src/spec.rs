//! The specs of `execute_python` and `code_test`: params and result schemas, examples, notes.

use crate::MAX_TESTS;
use beaker_core::{Example, ToolSpec};
use serde_json::json;

pub(crate) fn execute_python_spec() -> ToolSpec {
    ToolSpec {
        name: "execute_python".into(),
        description: "Run Python 3 code (CPython 3.15) in a sandbox with numpy, scipy, sympy, mpmath, pandas, \
            networkx and matplotlib already imported (no files, no network) and return its printed output, the \
            value of its last expression, any exception and the matplotlib figures it left open as PNG images."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "Python source; the value of a final expression is returned as `result`."},
                "stdin": {"type": ["string", "null"], "description": "Text the program reads from standard input."},
                "session": {"type": ["string", "null"], "minLength": 1, "maxLength": 128,
                            "description": "Keep one interpreter across the calls that name this session: variables, functions and imports carry over, like a notebook kernel. Opened by its first call."},
                "end_session": {"type": "boolean", "description": "End the session after this call (needs `session`)."},
                "files": {"type": ["object", "null"], "maxProperties": 64,
                          "additionalProperties": {"oneOf": [
                              {"type": "string"},
                              {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false},
                              {"type": "object", "properties": {"base64": {"type": "string"}}, "required": ["base64"], "additionalProperties": false}]},
                          "description": "Files the code can open by name (relative to /work, its working folder): name -> text, or {\"base64\": ...}."},
                "fetch_files": {"type": ["array", "null"], "items": {"type": "string"}, "maxItems": 64,
                                "description": "Names of files the code wrote (in /work or /tmp) to return base64-encoded in `files`."},
                "backend": {"enum": ["wasm", "native", null],
                            "description": "Where the code runs: `wasm` (CPython 3.15 in WebAssembly: deterministic, isolated from the host kernel; the default unless the server sets BEAKER_PYTHON_BACKEND) or `native` (CPython 3.11 on the 64-bit host in the native sandbox: 64-bit integers, threads, subprocesses, native speed; no sessions)."}
            },
            "required": ["code"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "stdout": {"type": "string"},
                "stderr": {"type": "string"},
                "result": {"type": ["string", "null"], "description": "repr() of the last expression's value, if any and not None."},
                "exception": {
                    "type": ["object", "null"],
                    "properties": {
                        "type": {"type": "string"},
                        "message": {"type": "string"},
                        "line": {"type": ["integer", "null"]},
                        "traceback": {"type": "string"},
                        "exit": {"type": "object", "description": "Only for a SystemExit: the process status CPython would exit with (`status`, 0 to 255) and what it would print to stderr (`printed`, or null).",
                                 "properties": {"status": {"type": "integer"}, "printed": {"type": ["string", "null"]}}}
                    }
                },
                "truncated": {"type": "boolean", "description": "stdout or stderr was cut at the output limit."},
                "files": {"type": "object", "additionalProperties": {"type": "string", "contentEncoding": "base64"},
                          "description": "With `fetch_files`: each fetched file's bytes, base64."},
                "files_omitted": {"type": "array", "items": {"type": "object"},
                                  "description": "With `fetch_files`: names not returned, each with why (missing, or past the output limit)."},
                "figures": {"type": "array", "items": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"},
                            "description": "Every matplotlib figure left open, as a base64 PNG (100 dpi), in figure-number order."},
                "backend": {"const": "native", "description": "Present when the code ran on the native backend."},
                "workspace": {"type": "object", "description": "In a trajectory (a tagged call): what the code did to the workspace, its working folder: files it wrote (`written`: path and size), deleted, and those the workspace refused, with why.",
                              "properties": {"written": {"type": "array"}, "deleted": {"type": "array"}, "refused": {"type": "array"}}}
            },
            "required": ["stdout", "stderr", "result", "exception", "truncated", "figures"]
        }),
        examples: vec![
            Example {
                params: json!({"code": "print(2**100)"}),
                result: json!({"stdout": "1267650600228229401496703205376\n", "stderr": "", "result": null, "exception": null, "truncated": false, "figures": []}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"code": "from fractions import Fraction\nFraction(1, 3) + Fraction(1, 6)"}),
                result: json!({"stdout": "", "stderr": "", "result": "Fraction(1, 2)", "exception": null, "truncated": false, "figures": []}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"code": "import sympy as sp\nx = sp.symbols('x')\nsp.integrate(x**2 * sp.sin(x), x)"}),
                result: json!({"stdout": "", "stderr": "", "result": "-x**2*cos(x) + 2*x*sin(x) + 2*cos(x)", "exception": null, "truncated": false, "figures": []}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"code": "import numpy as np\nnp.linalg.solve([[3, 1], [1, 2]], [9, 8])"}),
                result: json!({"stdout": "", "stderr": "", "result": "array([2., 3.])", "exception": null, "truncated": false, "figures": []}), elided: Vec::new(), workspace: Default::default(), dataset: None },
        ],
        notes: include_str!("execute_python.md").into(),
    }
}

pub(crate) fn code_test_spec() -> ToolSpec {
    ToolSpec {
        name: "code_test".into(),
        description: "Run Python code against assert-style tests, each test in a fresh sandboxed interpreter \
            after the code, and report which pass."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "Python source defining what the tests use; with stdin/stdout tests, a whole program in `language`."},
                "tests": {"type": "array", "maxItems": MAX_TESTS,
                          "items": {"oneOf": [
                              {"type": "string"},
                              {"type": "object", "properties": {"stdin": {"type": "string"}, "expected_stdout": {"type": "string"}},
                               "required": ["expected_stdout"], "additionalProperties": false}]},
                          "description": "Snippets such as `assert f(2) == 4`, each run after the code; or stdin/stdout cases {stdin, expected_stdout}, the program run once per case (competitive-programming form)."},
                "language": {"enum": ["python", "c", "cpp", "rust", "go", "java", "nodejs", "typescript", "bash"],
                             "description": "With stdin/stdout tests: the program's language (default python)."},
                "compare": {"enum": ["tokens", "lines", "exact"],
                            "description": "With stdin/stdout tests: how stdout is compared (default tokens, numbers within `tolerance`)."},
                "tolerance": {"type": "number", "minimum": 0, "description": "With stdin/stdout tests and `compare: tokens`: the absolute or relative error two numbers may differ by."},
                "stop_on_failure": {"type": "boolean", "description": "With stdin/stdout tests: stop at the first failing test."},
                "backend": {"enum": ["wasm", "native", null],
                            "description": "`wasm` for assert-style tests (the default for them), `native` for stdin/stdout tests (the default for them, and the only backend they run on)."}
            },
            "required": ["code", "tests"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "passed": {"type": "integer"},
                "failed": {"type": "integer"},
                "status": {"type": "string", "description": "With stdin/stdout tests: accepted, or the first failing test's verdict (wrong_answer, runtime_error, time_limit, memory_limit, output_limit, compile_error)."},
                "results": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "test": {"type": "string", "description": "The test's snippet, or its stdin."},
                        "passed": {"type": "boolean"},
                        "error": {"type": ["string", "null"]}
                    },
                    "required": ["test", "passed", "error"]
                }}
            },
            "required": ["passed", "failed", "results"]
        }),
        examples: vec![Example {
            params: json!({"code": "def square(x):\n    return x * x", "tests": ["assert square(3) == 9", "assert square(-2) == 5"]}),
            result: json!({"passed": 1, "failed": 1, "results": [
                {"test": "assert square(3) == 9", "passed": true, "error": null},
                {"test": "assert square(-2) == 5", "passed": false, "error": "AssertionError (test line 1)"}
            ]}), elided: Vec::new(), workspace: Default::default(), dataset: None }],
        notes: include_str!("code_test.md").into(),
    }
}
