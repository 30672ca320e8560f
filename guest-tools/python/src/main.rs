//! The `execute_python` guest: RustPython 0.6 as a WASI command.
//!
//! stdin: `{"code": str, "stdin": str|null, "test": str|null, "max_output_bytes": int}`;
//! stdout: one JSON object (see guest-tools/README.md). The export
//! `wizer.initialize` builds the interpreter and pre-imports the stdlib so a
//! host can snapshot it; `_start` reuses that interpreter or builds it lazily.

use std::cell::{OnceCell, RefCell};
use std::io::{Read, Write};

use rustpython::vm::builtins::{PyInt, PyStr, PyStrRef, PyTuple};
use rustpython::vm::compiler::{ast, parser, Mode};
use rustpython::vm::{AsObject, Interpreter, PyObjectRef, PyResult, Settings, VirtualMachine};
use rustpython::InterpreterBuilderExt;
use serde_json::{json, Value};

/// The Python side of a run: output capture, cell splitting, exception reports.
const DRIVER: &str = include_str!("driver.py");

/// Python frames allowed before RecursionError (`sys.setrecursionlimit`).
/// Plain Python-to-Python calls use no native stack in RustPython 0.6, so
/// this only bounds heap use; recursion through native code (map, sorted,
/// __init__, repr, ==, ...) is stopped earlier by RustPython's stack guard on
/// the 2.5 MiB shadow stack (build.rs), before the host's 8 MiB wasm stack.
/// See README.md for the measured depths.
const RECURSION_LIMIT: usize = 5000;

/// Output cap used when the request does not give `max_output_bytes`.
const DEFAULT_MAX_OUTPUT_BYTES: u64 = 1 << 20;

/// The interpreter and the driver's `run` function.
struct Guest {
    interp: Interpreter,
    run: PyObjectRef,
}

thread_local! {
    // wasm32-wasip1 has one thread: this is a plain static the snapshot keeps.
    static GUEST: OnceCell<Guest> = const { OnceCell::new() };
    /// The run's captured sys.stdout and sys.stderr.
    static OUTPUT: RefCell<[Capture; 2]> = const { RefCell::new([Capture::new(), Capture::new()]) };
}

/// Text written by user code, capped at `cap` UTF-8 bytes; past the cap it is dropped.
struct Capture {
    text: String,
    cap: usize,
    truncated: bool,
}

impl Capture {
    const fn new() -> Self {
        Capture { text: String::new(), cap: 0, truncated: false }
    }

    fn reset(&mut self, cap: usize) {
        *self = Capture { text: String::new(), cap, truncated: false };
    }

    fn add(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.truncated {
            return;
        }
        let left = self.cap - self.text.len();
        if s.len() <= left {
            self.text.push_str(s);
            return;
        }
        // Keep what fits, never half a character, and drop everything after.
        let mut cut = left;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&s[..cut]);
        self.truncated = true;
    }
}

fn capture_write(index: usize, s: &PyStr) -> usize {
    OUTPUT.with(|out| {
        let mut out = out.borrow_mut();
        match s.to_str() {
            Some(text) => out[index].add(text),
            // Lone surrogates: written as U+FFFD.
            None => out[index].add(&s.to_string_lossy()),
        }
    });
    s.char_len()
}

/// `sys.stdout.write(s)` for the driver.
fn write_stdout(s: PyStrRef) -> usize {
    capture_write(0, &s)
}

/// `sys.stderr.write(s)` for the driver.
fn write_stderr(s: PyStrRef) -> usize {
    capture_write(1, &s)
}

/// One decoded request.
struct Request {
    code: String,
    stdin: Option<String>,
    test: Option<String>,
    max_output_bytes: u64,
}

/// Whether the last top-level statement of `source` is an expression (false when it does not parse).
fn ends_with_expression(source: &str) -> bool {
    parser::parse_module(source)
        .map(|parsed| matches!(parsed.syntax().body.last(), Some(ast::Stmt::Expr(_))))
        .unwrap_or(false)
}

/// `_beaker_compile_cell(source)` for the driver: `(code, returns_value)`.
///
/// A cell ending in an expression compiles in RustPython's `BlockExpr` mode,
/// whose code object returns that expression's value (like a REPL cell);
/// anything else compiles as a plain module. Compile errors are raised as
/// SyntaxError with filename `<code>`.
fn compile_cell(source: PyStrRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    let Some(source) = source.to_str() else {
        return Err(vm.new_value_error("source code cannot contain surrogates".to_owned()));
    };
    let returns_value = ends_with_expression(source);
    let mode = if returns_value { Mode::BlockExpr } else { Mode::Exec };
    let code = vm
        .compile(source, mode, "<code>")
        .map_err(|err| err.into_pyexception(vm, Some(source)))?;
    Ok(vm
        .ctx
        .new_tuple(vec![code.into(), vm.ctx.new_bool(returns_value).into()])
        .into())
}

fn build_guest() -> Result<Guest, String> {
    let mut settings = Settings::default();
    // A fixed hash seed: str/bytes hashes (and so set order) are the same on
    // every call, snapshot or not, and init draws no entropy.
    settings.hash_seed = Some(0);
    settings.import_site = false;
    settings.user_site_directory = false;
    settings.safe_path = true;
    settings.isolated = true;
    settings.argv = vec![String::new()];
    let interp = rustpython::InterpreterBuilder::new()
        .settings(settings)
        .init_stdlib()
        .interpreter();
    let run = interp.enter(|vm| {
        let loaded: PyResult<PyObjectRef> = (|| {
            let sys = vm.import("sys", 0)?;
            sys.get_attr("setrecursionlimit", vm)?
                .call((vm.ctx.new_int(RECURSION_LIMIT),), vm)?;
            let scope = vm.new_scope_with_builtins();
            scope.globals.set_item(
                "_beaker_compile_cell",
                vm.new_function("_beaker_compile_cell", compile_cell).into(),
                vm,
            )?;
            scope.globals.set_item(
                "_beaker_write_stdout",
                vm.new_function("write", write_stdout).into(),
                vm,
            )?;
            scope.globals.set_item(
                "_beaker_write_stderr",
                vm.new_function("write", write_stderr).into(),
                vm,
            )?;
            vm.run_string(scope.clone(), DRIVER, "<beaker>")?;
            scope.globals.get_item("run", vm)
        })();
        loaded.map_err(|exc| {
            let mut text = String::from("python guest: driver failed to load:\n");
            let _ = vm.write_exception(&mut text, &exc);
            text
        })
    })?;
    Ok(Guest { interp, run })
}

/// Runs `f` with the guest, building it first when no snapshot holds one.
fn with_guest<R>(f: impl FnOnce(&Guest) -> R) -> Result<R, String> {
    GUEST.with(|cell| {
        if cell.get().is_none() {
            let guest = build_guest()?;
            let _ = cell.set(guest);
        }
        match cell.get() {
            Some(guest) => Ok(f(guest)),
            None => Err("python guest: interpreter missing".to_owned()),
        }
    })
}

/// Pre-initialisation for wasmtime-wizer: build the interpreter, load the driver and the stdlib.
#[export_name = "wizer.initialize"]
pub extern "C" fn wizer_initialize() {
    if let Err(message) = with_guest(|_| ()) {
        fail(&message);
    }
}

/// The same pre-initialisation under wasmtime-wizer's default export name.
#[export_name = "wizer-initialize"]
pub extern "C" fn wizer_initialize_default() {
    wizer_initialize();
}

fn fail(message: &str) -> ! {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{message}");
    let _ = err.flush();
    std::process::exit(1)
}

fn optional_string(params: &Value, key: &str) -> Result<Option<String>, String> {
    match params.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("python guest: `{key}` must be a string or null")),
    }
}

fn parse_request(input: &[u8]) -> Result<Request, String> {
    let params: Value = serde_json::from_slice(input)
        .map_err(|e| format!("python guest: stdin is not valid JSON: {e}"))?;
    if !params.is_object() {
        return Err("python guest: stdin must be a JSON object".to_owned());
    }
    let code = match params.get("code") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err("python guest: `code` (a string) is required".to_owned()),
    };
    let max_output_bytes = match params.get("max_output_bytes") {
        None | Some(Value::Null) => DEFAULT_MAX_OUTPUT_BYTES,
        Some(v) => v.as_u64().ok_or_else(|| {
            "python guest: `max_output_bytes` must be a non-negative integer".to_owned()
        })?,
    };
    Ok(Request {
        code,
        stdin: optional_string(&params, "stdin")?,
        test: optional_string(&params, "test")?,
        max_output_bytes,
    })
}

fn py_opt_str(vm: &VirtualMachine, s: Option<&str>) -> PyObjectRef {
    match s {
        Some(s) => vm.ctx.new_str(s).into(),
        None => vm.ctx.none(),
    }
}

/// A str (or None) from the driver's tuple, as JSON.
fn json_str(vm: &VirtualMachine, obj: &PyObjectRef) -> Value {
    if vm.is_none(obj) {
        return Value::Null;
    }
    match obj.downcast_ref::<PyStr>() {
        Some(s) => Value::String(s.to_string_lossy().into_owned()),
        None => Value::Null,
    }
}

fn execute(guest: &Guest, request: &Request, seed: &[u8]) -> Result<Value, String> {
    guest.interp.enter(|vm| {
        let cap = request.max_output_bytes.min(i64::MAX as u64);
        let cap_bytes = usize::try_from(cap).unwrap_or(usize::MAX);
        OUTPUT.with(|out| {
            for capture in out.borrow_mut().iter_mut() {
                capture.reset(cap_bytes);
            }
        });
        let args = (
            vm.ctx.new_bytes(seed.to_vec()),
            vm.ctx.new_str(request.code.as_str()),
            py_opt_str(vm, request.stdin.as_deref()),
            py_opt_str(vm, request.test.as_deref()),
            vm.ctx.new_int(cap),
        );
        let outcome = guest.run.call(args, vm).map_err(|exc| {
            let mut text = String::from("python guest: driver failed:\n");
            let _ = vm.write_exception(&mut text, &exc);
            text
        })?;
        let tuple = outcome
            .downcast_ref::<PyTuple>()
            .ok_or_else(|| "python guest: driver returned a non-tuple".to_owned())?;
        let items = tuple.as_slice();
        if items.len() != 7 {
            return Err("python guest: driver returned a tuple of the wrong size".to_owned());
        }
        let exception = if vm.is_none(&items[1]) {
            Value::Null
        } else {
            let line = items[3]
                .downcast_ref::<PyInt>()
                .and_then(|i| i.try_to_primitive::<i64>(vm).ok())
                .map_or(Value::Null, Value::from);
            json!({
                "type": json_str(vm, &items[1]),
                "message": json_str(vm, &items[2]),
                "line": line,
                "traceback": json_str(vm, &items[4]),
            })
        };
        let (stdout, stderr, output_truncated) = OUTPUT.with(|out| {
            let mut out = out.borrow_mut();
            let truncated = out[0].truncated || out[1].truncated;
            let [o, e] = &mut *out;
            (std::mem::take(&mut o.text), std::mem::take(&mut e.text), truncated)
        });
        Ok(json!({
            "stdout": stdout,
            "stderr": stderr,
            "result": json_str(vm, &items[0]),
            "exception": exception,
            "phase": json_str(vm, &items[5]),
            "truncated": output_truncated || items[6].is(&vm.ctx.true_value),
        }))
    })
}

fn main() {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        fail(&format!("python guest: cannot read stdin: {e}"));
    }
    let request = parse_request(&input).unwrap_or_else(|m| fail(&m));
    // The run's entropy, drawn before a lazily built interpreter draws any:
    // the same WASI random stream gives the same `random` numbers with or
    // without a snapshot.
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut seed) {
        fail(&format!("python guest: random_get failed: {e}"));
    }
    let response = match with_guest(|guest| execute(guest, &request, &seed)) {
        Ok(Ok(response)) => response,
        Ok(Err(message)) | Err(message) => fail(&message),
    };
    let mut out = std::io::stdout().lock();
    let written = serde_json::to_writer(&mut out, &response)
        .map_err(|e| e.to_string())
        .and_then(|()| out.flush().map_err(|e| e.to_string()));
    if let Err(e) = written {
        fail(&format!("python guest: cannot write the response: {e}"));
    }
    drop(out);
    // No interpreter finalisation: atexit handlers and __del__ of user code must
    // not run after the response.
    std::process::exit(0);
}
