//! `execute_code`: a program in one of the languages code-RL datasets use (C, C++, Java, JavaScript, Go, Rust,
//! Bash, Python), compiled and run as a native process in the jail of `beaker-jail`, with its stdin, and a
//! verdict (`ok`, `compile_error`, `runtime_error`, `time_limit`, `output_limit`) as a judge gives it.
//!
//! A compiled language is compiled once per distinct source: builds are kept in a cache keyed by the SHA-256 of
//! the language, the toolchain and the source ([`cache`]), so the thousand rollouts that submit one solution
//! against a thousand test inputs compile it once.
#![deny(missing_docs)]

mod cache;
mod judge;
mod languages;
mod native;
mod spec;

pub use native::NativePython;

use beaker_core::{CallContext, ErrorKind, Pool, Tool, ToolError, ToolSpec, Usage};
use beaker_jail::{Ending, Jail, JailError, JailLimits, Mount, Outcome, Program, Start, Warm};
use languages::{LanguageDef, Toolchain, LANGUAGES};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// What a compile may use, whatever the call's own limits (the compiler is ours, not the program).
const COMPILE_ADDRESS_SPACE: u64 = 4 << 30;
/// What a runtime bounded by its heap flag (the JVM, V8, Go's) may hold beside its heap.
const RUNTIME_OVERHEAD: u64 = 384 << 20;
/// Compiler messages kept.
const COMPILE_OUTPUT: u64 = 1 << 20;

/// The `execute_code` tool.
pub struct ExecuteCode {
    spec: ToolSpec,
    /// The jail, the toolchains and the build cache, set up at the first call: an engine built for other tools
    /// pays nothing.
    host: OnceLock<Arc<Host>>,
    /// Where builds are kept; `None`: the default folder, and the host shared by every tool of this process.
    cache_dir: Option<PathBuf>,
}

/// The host of the tools made without a cache folder of their own (`execute_code`, `code_test`'s judge and
/// `execute_python`'s native backend in a server): one jail, so one pool of warm launchers within one cap.
fn shared_host() -> Arc<Host> {
    static SHARED: OnceLock<Arc<Host>> = OnceLock::new();
    SHARED
        .get_or_init(|| Arc::new(Host::discover(cache::default_dir())))
        .clone()
}

/// What this host offers: its jail, each language's toolchain, and where builds are kept.
struct Host {
    jail: Result<Jail, JailError>,
    toolchains: Vec<Option<Toolchain>>,
    cache: cache::BuildCache,
    /// The native Python's virtual environment (numpy, scipy, ...), when installed where runs reach it.
    native_python: Option<PathBuf>,
    /// Sealed in-memory copies of recent builds' binaries, by build folder (see [`sealed_binary`]).
    sealed: std::sync::Mutex<Vec<(PathBuf, std::sync::Arc<std::fs::File>)>>,
}

/// Sealed binaries kept.
const SEALED: usize = 64;

/// The binary `main` of the build in `dir` as a sealed memfd: nothing can write, grow or shrink it, whoever
/// opens it. A run execs its binary by descriptor, so `/proc/self/exe` is that descriptor's file; the cached
/// file itself is its own user's, and a review rewrote it through `/proc/self/exe` for every later call.
fn sealed_binary(host: &Host, dir: &std::path::Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{fcntl_add_seals, memfd_create, MemfdFlags, SealFlags};
    let mut kept = host.sealed.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, f)) = kept.iter().find(|(d, _)| d == dir) {
        return f.try_clone();
    }
    let mut source = std::fs::File::open(dir.join("main"))?;
    let mut copy = std::fs::File::from(memfd_create(
        "beaker-build",
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    )?);
    std::io::copy(&mut source, &mut copy)?;
    fcntl_add_seals(
        &copy,
        SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL,
    )?;
    let copy = std::sync::Arc::new(copy);
    if kept.len() >= SEALED {
        kept.remove(0);
    }
    kept.push((dir.to_path_buf(), copy.clone()));
    copy.try_clone()
}

/// The packages of the native Python's virtual environment that its warm launchers import before a run, with
/// the submodules imported with them. A launcher imports those the program itself imports (found in its
/// `import` statements), so that a program pays nothing for its imports and a run forks no more memory than
/// it needs (a fork costs about 35 µs per MB the launcher holds: 0.4 ms bare, 11 ms with everything, measured on
/// this 2-core machine).
const PRELOADS: &[(&str, &[&str])] = &[
    // numpy.random loads at its first use (numpy 2), which every run makes (its global generator is reseeded).
    ("numpy", &["numpy", "numpy.random"]),
    ("mpmath", &["mpmath"]),
    (
        "scipy",
        &[
            "numpy",
            "numpy.random",
            "scipy",
            "scipy.linalg",
            "scipy.optimize",
            "scipy.special",
            "scipy.stats",
            "scipy.integrate",
        ],
    ),
    ("sympy", &["mpmath", "sympy"]),
    ("pandas", &["numpy", "numpy.random", "pandas"]),
    ("networkx", &["networkx"]),
    (
        "matplotlib",
        &["numpy", "numpy.random", "matplotlib", "matplotlib.pyplot"],
    ),
];

/// The modules a launcher for `code` imports first: those of [`PRELOADS`] whose package the code imports.
fn preload_for(code: &str) -> Vec<String> {
    let imported = languages::python_imports(code);
    let mut modules: Vec<String> = Vec::new();
    for (package, with) in PRELOADS {
        if imported.iter().any(|m| m == package) {
            for m in *with {
                if !modules.iter().any(|have| have == m) {
                    modules.push(m.to_string());
                }
            }
        }
    }
    modules
}

/// The warm launcher Python `code` runs from: the virtual environment `venv` with the packages the code imports
/// imported already, or, without it, the Python `toolchain` importing nothing.
fn python_warm(venv: Option<&std::path::Path>, toolchain: &Toolchain, code: &str) -> Warm {
    let base = JailLimits::default();
    let (python, preload, mut mounts) = match venv {
        Some(venv) => (
            venv.join("bin/python"),
            preload_for(code),
            vec![Mount::read_only(venv)],
        ),
        None => (toolchain.program.clone(), Vec::new(), Vec::new()),
    };
    mounts.extend(toolchain.mounts.iter().cloned());
    let python_def = &LANGUAGES[PYTHON];
    Warm {
        python,
        preload,
        mounts,
        // The spare child warms up what a Python run touches before its run comes (warm.py's `prepare`).
        env: python_def
            .env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([("BEAKER_WARM_UP".to_string(), "1".to_string())])
            .collect(),
        tmpfs_bytes: base.tmpfs_bytes,
        processes: base.processes,
    }
}

/// The warm launcher a program of language `def` (not Python) starts from: a plain Python that execs it.
fn exec_warm(def: &LanguageDef, toolchain: &Toolchain) -> Warm {
    let base = JailLimits::default();
    Warm {
        python: PathBuf::from("/usr/bin/python3"),
        preload: Vec::new(),
        mounts: toolchain.mounts.clone(),
        env: language_env(def),
        tmpfs_bytes: base.tmpfs_bytes,
        processes: base.processes,
    }
}

/// The environment of language `def`'s compiles and runs.
fn language_env(def: &LanguageDef) -> Vec<(String, String)> {
    (def.env.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Python's index in [`LANGUAGES`].
const PYTHON: usize = 0;

/// Where the native Python's virtual environment is installed (scripts/install-python-runtime.py follows the
/// same rule): `$BEAKER_NATIVE_PYTHON`, else `/var/lib/beaker/native-python` for root (runs' own user cannot
/// pass `/root`), else `native-python` in Beaker's cache folder.
pub fn native_python_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BEAKER_NATIVE_PYTHON") {
        return Some(PathBuf::from(dir));
    }
    if rustix::process::geteuid().is_root() {
        return Some(PathBuf::from("/var/lib/beaker/native-python"));
    }
    beaker_core::cache_dir().map(|d| d.join("native-python"))
}

impl ExecuteCode {
    /// The tool over this host's jail and toolchains (looked up at the first call); builds cached under
    /// `cache_dir` (`None`: the default, `$BEAKER_CACHE_DIR`, `$XDG_CACHE_HOME/beaker` or `~/.cache/beaker`, then
    /// `builds/`).
    pub fn new(cache_dir: Option<PathBuf>) -> ExecuteCode {
        ExecuteCode {
            spec: spec::spec(),
            host: OnceLock::new(),
            cache_dir,
        }
    }

    fn host(&self) -> &Host {
        self.host.get_or_init(|| match &self.cache_dir {
            None => shared_host(),
            Some(dir) => Arc::new(Host::discover(Some(dir.clone()))),
        })
    }
}

impl Host {
    /// This host's jail, toolchains, build cache (under `cache_dir`) and native Python.
    fn discover(cache_dir: Option<PathBuf>) -> Host {
        let jail = Jail::discover();
        let reachable = |p: &std::path::Path| match &jail {
            Ok(j) => j.reachable(p),
            Err(_) => p.exists(),
        };
        let toolchains = LANGUAGES
            .iter()
            .map(|def| Toolchain::find(def, &reachable))
            .collect();
        let cache = cache::BuildCache::new(cache_dir, &reachable);
        let native_python = native_python_dir()
            .filter(|d| d.join("LOCK").is_file() && d.join("bin/python").exists())
            .filter(|d| reachable(d));
        Host {
            jail,
            toolchains,
            cache,
            native_python,
            sealed: std::sync::Mutex::new(Vec::new()),
        }
    }
}

/// The params, as the schema gives them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    language: String,
    code: String,
    #[serde(default)]
    stdin: String,
    #[serde(default)]
    run_timeout_ms: Option<u64>,
    #[serde(default)]
    tests: Option<Vec<TestCase>>,
    #[serde(default)]
    compare: judge::Compare,
    #[serde(default)]
    tolerance: Option<f64>,
    #[serde(default)]
    stop_on_failure: bool,
    #[serde(default)]
    files: std::collections::BTreeMap<String, FileContent>,
}

/// A file's content as given: text, `{"text": ...}` or `{"base64": ...}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileContent {
    Text(String),
    Tagged {
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        base64: Option<String>,
    },
}

impl FileContent {
    /// Its length as given (text, or base64 before decoding).
    fn len(&self) -> usize {
        match self {
            FileContent::Text(t) => t.len(),
            FileContent::Tagged { text, base64 } => {
                text.as_ref().or(base64.as_ref()).map_or(0, String::len)
            }
        }
    }

    fn bytes(&self, name: &str) -> Result<Vec<u8>, ToolError> {
        use base64::Engine as _;
        match self {
            FileContent::Text(t)
            | FileContent::Tagged {
                text: Some(t),
                base64: None,
            } => Ok(t.clone().into_bytes()),
            FileContent::Tagged {
                text: None,
                base64: Some(b),
            } => base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(|e| ToolError::invalid_params(format!("`files.{name}.base64`: {e}"))),
            _ => Err(ToolError::invalid_params(format!(
                "`files.{name}` must be text, {{\"text\": ...}} or {{\"base64\": ...}}"
            ))),
        }
    }
}

/// Whether `name` is a plain file name for the program's folder: no folder, no `..`, nothing hidden by the
/// source's own name.
fn valid_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name != "."
        && name != ".."
        && !name.contains(['/', '\0'])
}

/// A stdin/stdout test.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TestCase {
    #[serde(default)]
    stdin: String,
    expected_stdout: String,
}

impl Tool for ExecuteCode {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn pool(&self) -> Pool {
        Pool::Sandboxed
    }

    /// Finds the host's jail and toolchains, and starts the launchers of the commonest runs: Python printing,
    /// Python importing numpy, and compiled C, C++ and Rust programs (which share one kind).
    fn warm_up(&self) {
        let host = self.host();
        let Ok(jail) = &host.jail else {
            return;
        };
        if let Some(python) = &host.toolchains[PYTHON] {
            for code in ["", "import numpy"] {
                jail.prestart(&python_warm(host.native_python.as_deref(), python, code));
            }
        }
        let c = LANGUAGES.iter().position(|l| l.name == "c");
        if let Some((def, Some(toolchain))) = c.map(|i| (&LANGUAGES[i], &host.toolchains[i])) {
            jail.prestart(&exec_warm(def, toolchain));
        }
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: Params = beaker_core::params::parse(params)?;
        let Some(index) = LANGUAGES.iter().position(|l| l.name == p.language) else {
            return Err(ToolError::invalid_params(format!(
                "`language` must be one of {}, got `{}`",
                LANGUAGES
                    .iter()
                    .map(|l| l.name)
                    .collect::<Vec<_>>()
                    .join(", "),
                p.language
            )));
        };
        let def = &LANGUAGES[index];
        if p.tests.is_some() && !p.stdin.is_empty() {
            return Err(ToolError::invalid_params(
                "`stdin` and `tests` do not go together: each test has its own stdin",
            ));
        }
        let host = self.host();
        let jail = host.jail.as_ref().map_err(|e| {
            ToolError::new(
                ErrorKind::ToolError,
                format!("`{}` cannot run: {e}", def.name),
            )
        })?;
        let toolchain = host.toolchains[index].as_ref().ok_or_else(|| {
            ToolError::new(
                ErrorKind::ToolError,
                format!(
                    "`{}` is not installed on this server (install {})",
                    def.name, def.install
                ),
            )
        })?;
        let tests_len: usize = (p.tests.iter().flatten())
            .map(|t| t.stdin.len() + t.expected_stdout.len())
            .sum();
        let files_len: usize = p.files.iter().map(|(n, c)| n.len() + c.len()).sum();
        let input = (p.code.len() + p.stdin.len() + tests_len + files_len) as u64;
        if input > ctx.limits.max_input_bytes {
            return Err(ToolError::limit(format!(
                "the code, stdin, tests and files are {input} bytes; the limit is max_input_bytes = {}",
                ctx.limits.max_input_bytes
            )));
        }
        Run {
            host,
            jail,
            def,
            toolchain,
            cache: &host.cache,
            native_python: host.native_python.as_deref(),
            ctx,
        }
        .run(&p)
    }
}

/// One call's work.
struct Run<'a> {
    host: &'a Host,
    jail: &'a Jail,
    def: &'static LanguageDef,
    toolchain: &'a Toolchain,
    cache: &'a cache::BuildCache,
    native_python: Option<&'a std::path::Path>,
    ctx: &'a CallContext,
}

/// How the program is started in its warm launcher.
struct Launch {
    warm: Warm,
    /// A compiled program's binary, passed by descriptor (the launcher's sandbox does not see the cache).
    binary: Option<std::fs::File>,
    python: bool,
}

impl Run<'_> {
    fn run(&self, p: &Params) -> Result<Value, ToolError> {
        let started = Instant::now();
        let class = (self.def.name == "java").then(|| languages::java_class(&p.code));
        let source = match &class {
            Some(c) => format!("{c}.java"),
            None => self.def.source.to_string(),
        };
        // Bad files are refused before anything is compiled.
        let mut files = Vec::new();
        for (name, content) in &p.files {
            if !valid_file_name(name) || *name == source {
                return Err(ToolError::invalid_params(format!(
                    "`files`: `{name}` is not a file name the program's folder can hold (no `/`, not `..`, not the source's `{source}`)"
                )));
            }
            if self.def.support.iter().any(|(support, _)| support == name) {
                return Err(ToolError::invalid_params(format!(
                    "`files`: `{name}` is the name of a file Beaker writes for {}'s runtime; choose another",
                    self.def.name
                )));
            }
            files.push((name.clone(), content.bytes(name)?, false));
        }
        for (name, content) in self.def.support {
            files.push((name.to_string(), content.as_bytes().to_vec(), false));
        }
        let mut result = json!({"language": self.def.name});
        let mounts = self.toolchain.mounts.clone();
        let build = match self.def.compile {
            Some(compile) => match self.compile(compile, &source, &p.code)? {
                Compiled::Built(dir, report) => {
                    result["compile"] = report;
                    Some(dir)
                }
                Compiled::Failed(report) => {
                    result["compile"] = report;
                    result["status"] = json!("compile_error");
                    match &p.tests {
                        Some(tests) => {
                            result["passed"] = json!(0);
                            result["total"] = json!(tests.len());
                            result["tests"] = json!([]);
                        }
                        None => {
                            for k in ["exit_code", "stdout", "stderr"] {
                                result[k] = Value::Null;
                            }
                        }
                    }
                    self.record_total(started);
                    return Ok(result);
                }
            },
            None => None,
        };
        if self.def.compile.is_none() {
            files.push((source.clone(), p.code.clone().into_bytes(), false));
        }
        let mut argv = self.argv(self.def.run, &source, class.as_deref());
        let mut binary = None;
        if let Some(dir) = &build {
            if matches!(self.def.name, "java" | "typescript") {
                // The classes (the JavaScript) go into the run's /tmp: the launcher's sandbox does not see the
                // cache.
                for entry in std::fs::read_dir(dir.path()).map_err(internal("reading the build"))? {
                    let entry = entry.map_err(internal("reading the build"))?;
                    let bytes =
                        std::fs::read(entry.path()).map_err(internal("reading the build"))?;
                    files.push((
                        entry.file_name().to_string_lossy().into_owned(),
                        bytes,
                        false,
                    ));
                }
                for a in &mut argv {
                    if let Some(rest) = a.strip_prefix("/build") {
                        *a = format!("/tmp{rest}");
                    }
                }
            } else {
                binary = Some(
                    sealed_binary(self.host, dir.path()).map_err(internal("sealing the build"))?,
                );
                argv[0] = "./main".into();
            }
        }
        let launch = Launch {
            warm: self.warm(&p.code),
            binary,
            python: self.def.name == "python",
        };
        let program = Program {
            argv,
            env: self.env(),
            mounts,
            files,
            cwd: "/tmp".into(),
            stdin: Vec::new(),
            limits: JailLimits::default(),
        };
        let result = match &p.tests {
            None => self.single(program, &launch, p, result)?,
            Some(tests) => self.judge(program, &launch, p, tests, result)?,
        };
        drop(build);
        self.record_total(started);
        Ok(result)
    }

    /// Runs the program once with the call's stdin: its verdict, exit code and output.
    fn single(
        &self,
        mut program: Program,
        launch: &Launch,
        p: &Params,
        mut result: Value,
    ) -> Result<Value, ToolError> {
        program.stdin = p.stdin.clone().into_bytes();
        let cap = self.ctx.limits.max_output_bytes;
        let run = self.run_once(&mut program, launch, p.run_timeout_ms, cap)?;
        result["status"] = json!(run.verdict);
        result["exit_code"] = json!(run.out.exit_code);
        result["stdout"] = json!(text(&run.out.stdout));
        result["stderr"] = json!(text(&run.out.stderr));
        fit(&mut result, cap);
        Ok(result)
    }

    /// Runs the program once per test, compares its stdout with the test's, and gives each test's verdict and
    /// the first failing one's as the call's (`accepted` when all pass).
    fn judge(
        &self,
        mut program: Program,
        launch: &Launch,
        p: &Params,
        tests: &[TestCase],
        mut result: Value,
    ) -> Result<Value, ToolError> {
        // Each run keeps what the answer can hold of it; the answer lists a test's output only when it failed.
        let cap = self.ctx.limits.max_output_bytes;
        let mut verdicts = Vec::with_capacity(tests.len());
        let mut overall = "accepted";
        let mut passed = 0;
        for test in tests {
            program.stdin = test.stdin.clone().into_bytes();
            let run = self.run_once(&mut program, launch, p.run_timeout_ms, cap)?;
            let stdout = text(&run.out.stdout);
            let verdict = match run.verdict {
                "ok" if judge::matches(p.compare, &stdout, &test.expected_stdout, p.tolerance) => {
                    passed += 1;
                    "passed"
                }
                "ok" => "wrong_answer",
                other => other,
            };
            let mut entry = json!({"status": verdict, "exit_code": run.out.exit_code});
            if verdict != "passed" {
                // Only the start of a failing test's output is kept: a thousand tests of a full output each
                // would hold gigabytes until the answer is cut (a review found it).
                entry["stdout"] = json!(prefix(&stdout, FAILED_TEST_OUTPUT));
                entry["stderr"] = json!(prefix(&text(&run.out.stderr), FAILED_TEST_OUTPUT));
                if overall == "accepted" {
                    overall = verdict;
                }
            }
            verdicts.push(entry);
            if verdict != "passed" && p.stop_on_failure {
                break;
            }
        }
        result["status"] = json!(overall);
        result["passed"] = json!(passed);
        result["total"] = json!(tests.len());
        result["tests"] = Value::Array(verdicts);
        fit_tests(&mut result, cap);
        Ok(result)
    }

    /// One run of the program: its outcome and verdict (`ok`, `runtime_error`, `time_limit`, `memory_limit`,
    /// `output_limit`); a run stopped by the call's own deadline or cancel fails the call.
    fn run_once(
        &self,
        program: &mut Program,
        launch: &Launch,
        run_timeout_ms: Option<u64>,
        output_cap: u64,
    ) -> Result<Ran, ToolError> {
        let call_left = self.time_left()?;
        let (wall, own_limit) = match run_timeout_ms.map(Duration::from_millis) {
            Some(t) if t < call_left => (t, true),
            _ => (call_left, false),
        };
        program.limits = self.limits(wall, output_cap, self.memory(), self.total_memory());
        let start = match (&launch.binary, launch.python) {
            (_, true) => Start::Python { report: false },
            (Some(b), _) => Start::Exec(Some(b.try_clone().map_err(internal("the build"))?)),
            (None, _) => Start::Exec(None),
        };
        let out = self
            .jail
            .run_warm(&launch.warm, program, start, &self.ctx.cancel)
            .map_err(jail_error)?;
        self.record(&out);
        let verdict = match out.ending {
            Ending::Exited if out.exit_code == Some(0) => "ok",
            Ending::Exited => "runtime_error",
            Ending::OutputLimit => "output_limit",
            Ending::MemoryLimit => "memory_limit",
            Ending::TimedOut if own_limit => "time_limit",
            Ending::TimedOut | Ending::Cancelled => {
                return Err(self.stopped().with_partial(
                    json!({"stdout": text(&out.stdout), "stderr": text(&out.stderr)}),
                ))
            }
        };
        Ok(Ran { out, verdict })
    }

    /// Compiles `code`, or finds its build in the cache.
    fn compile(&self, command: &[&str], source: &str, code: &str) -> Result<Compiled, ToolError> {
        let key = cache::key(&[self.def.name, &self.toolchain.identity, source, code]);
        if let Some(dir) = self.cache.get(&key) {
            return Ok(Compiled::Built(
                dir,
                json!({"exit_code": 0, "stdout": "", "stderr": ""}),
            ));
        }
        let work = self
            .cache
            .workspace()
            .map_err(|e| ToolError::new(ErrorKind::Internal, format!("a build directory: {e}")))?;
        std::fs::write(work.path().join(source), code)
            .map_err(|e| ToolError::new(ErrorKind::Internal, format!("writing the source: {e}")))?;
        let mut mounts = self.toolchain.mounts.clone();
        mounts.push(Mount {
            host: work.path().to_path_buf(),
            sandbox: "/build".into(),
            writable: true,
        });
        let program = Program {
            argv: self.argv(command, source, None),
            env: self.env(),
            mounts,
            files: Vec::new(),
            cwd: "/build".into(),
            stdin: Vec::new(),
            limits: self.limits(
                self.time_left()?,
                COMPILE_OUTPUT,
                Some(COMPILE_ADDRESS_SPACE),
                Some(COMPILE_ADDRESS_SPACE),
            ),
        };
        let out = self
            .jail
            .run(&program, &self.ctx.cancel)
            .map_err(jail_error)?;
        let report = json!({
            "exit_code": out.exit_code,
            "stdout": text(&out.stdout),
            "stderr": text(&out.stderr),
        });
        match out.ending {
            Ending::Exited if out.exit_code == Some(0) => {
                // Compiler warnings are not kept with the build: a cached build reports none, so neither
                // does a fresh one (the same source gives the same answer).
                let _ = std::fs::remove_file(work.path().join(source));
                let dir = self.cache.put(&key, work);
                Ok(Compiled::Built(
                    dir,
                    json!({"exit_code": 0, "stdout": "", "stderr": ""}),
                ))
            }
            Ending::Exited | Ending::OutputLimit | Ending::MemoryLimit => {
                Ok(Compiled::Failed(report))
            }
            Ending::TimedOut | Ending::Cancelled => {
                Err(self.stopped().with_partial(json!({"compile": report})))
            }
        }
    }

    /// The warm launcher the language's runs start from: the native Python's virtual environment with the
    /// packages `code` imports imported already, for Python; Debian's Python importing nothing, for the others, which it only
    /// forks and `execve`s.
    fn warm(&self, code: &str) -> Warm {
        if self.def.name == "python" {
            return python_warm(self.native_python, self.toolchain, code);
        }
        exec_warm(self.def, self.toolchain)
    }

    /// The time left before the call's deadline.
    fn time_left(&self) -> Result<Duration, ToolError> {
        let left = match self.ctx.deadline {
            Some(d) => d.saturating_duration_since(Instant::now()),
            None => Duration::from_millis(self.ctx.limits.timeout_ms),
        };
        if left.is_zero() {
            return Err(self.stopped());
        }
        Ok(left)
    }

    /// The error of a call stopped by its deadline or its client.
    fn stopped(&self) -> ToolError {
        (self.ctx.checkpoint().err()).unwrap_or_else(|| self.ctx.timeout_error())
    }

    /// The address-space limit of the program: the call's memory limit, except for runtimes whose heap flag
    /// bounds them instead.
    fn memory(&self) -> Option<u64> {
        (!self.def.reserves_address_space).then_some(self.ctx.limits.max_memory_bytes)
    }

    /// The memory of all the program's processes together: the call's memory limit, plus what a runtime whose
    /// heap flag is that limit needs beside its heap (the JVM's metaspace and code cache, V8's).
    fn total_memory(&self) -> Option<u64> {
        let limit = self.ctx.limits.max_memory_bytes;
        Some(match self.def.reserves_address_space {
            true => limit.saturating_add(RUNTIME_OVERHEAD),
            false => limit,
        })
    }

    fn limits(
        &self,
        wall: Duration,
        output: u64,
        address_space: Option<u64>,
        memory_bytes: Option<u64>,
    ) -> JailLimits {
        JailLimits {
            wall,
            address_space,
            memory_bytes,
            output_bytes: output,
            ..JailLimits::default()
        }
    }

    fn env(&self) -> Vec<(String, String)> {
        language_env(self.def)
    }

    /// A command with its placeholders filled in.
    fn argv(&self, template: &[&str], source: &str, class: Option<&str>) -> Vec<String> {
        let heap = (self.ctx.limits.max_memory_bytes >> 20).max(16).to_string();
        let tool = self.toolchain.program.display().to_string();
        let java = languages::java_beside(&self.toolchain.program)
            .display()
            .to_string();
        let node = (self.toolchain.runner.as_deref())
            .map(|r| r.display().to_string())
            .unwrap_or_default();
        template
            .iter()
            .map(|a| {
                a.replace("{tool}", &tool)
                    .replace("{java}", &java)
                    .replace("{node}", &node)
                    .replace("{source}", source)
                    .replace("{class}", class.unwrap_or("Main"))
                    .replace("{heap_mib}", &heap)
            })
            .collect()
    }

    /// Records a run's peak memory (where the host gives runs a memory cgroup; 0 otherwise) and output.
    fn record(&self, out: &Outcome) {
        self.ctx.usage.record(Usage {
            fuel: 0,
            peak_memory_bytes: out.peak_memory_bytes.unwrap_or(0),
            wall_us: 0,
            output_bytes: out.output_bytes,
        });
    }

    /// Records the call's wall time, compile and runs together.
    fn record_total(&self, started: Instant) {
        self.ctx.usage.record(Usage {
            wall_us: started.elapsed().as_micros() as u64,
            ..Usage::default()
        });
    }
}

/// A compile's end.
enum Compiled {
    /// The build's directory and the compile's report.
    Built(cache::Build, Value),
    /// The compiler refused the source.
    Failed(Value),
}

/// One run and its verdict.
struct Ran {
    out: Outcome,
    verdict: &'static str,
}

/// The bytes of a failing test's stdout and stderr the answer keeps, each.
const FAILED_TEST_OUTPUT: usize = 4096;

/// At most the first `max` bytes of `s`, cut on a character boundary.
fn prefix(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// Bytes as text, invalid UTF-8 replaced.
fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Cuts a single run's answer to `cap` bytes of JSON: the output cap counts raw bytes and the answer holds them
/// escaped. What does not fit is cut from the end of the longer stream, and the verdict says so.
fn fit(result: &mut Value, cap: u64) {
    loop {
        let over = beaker_core::json_len(result).saturating_sub(cap) as usize;
        if over == 0 {
            return;
        }
        result["status"] = json!("output_limit");
        result["exit_code"] = Value::Null;
        let longer = if result["stdout"].as_str().map_or(0, str::len)
            >= result["stderr"].as_str().map_or(0, str::len)
        {
            "stdout"
        } else {
            "stderr"
        };
        if !cut(&mut result[longer], over) {
            return;
        }
    }
}

/// Cuts a judged answer to `cap` bytes of JSON: failed tests' outputs are cut, the longest first (their
/// verdicts stay).
fn fit_tests(result: &mut Value, cap: u64) {
    loop {
        let over = beaker_core::json_len(result).saturating_sub(cap) as usize;
        if over == 0 {
            return;
        }
        let Some(tests) = result["tests"].as_array_mut() else {
            return;
        };
        let longest = tests
            .iter_mut()
            .flat_map(|t| {
                let t = t.as_object_mut().into_iter().flatten();
                t.filter(|(k, _)| *k == "stdout" || *k == "stderr")
                    .map(|(_, v)| v)
            })
            .max_by_key(|v| v.as_str().map_or(0, str::len));
        match longest {
            Some(v) => {
                if !cut(v, over) {
                    return;
                }
            }
            None => return,
        }
    }
}

/// Cuts at least `over` bytes (64 at least, on a character boundary) from the end of the string `v`; false
/// when it is empty already.
fn cut(v: &mut Value, over: usize) -> bool {
    let s = v.as_str().unwrap_or_default();
    if s.is_empty() {
        return false;
    }
    *v = json!(prefix(s, s.len().saturating_sub(over.max(64))));
    true
}

/// An internal error while doing `what`.
fn internal(what: &'static str) -> impl Fn(std::io::Error) -> ToolError {
    move |e| ToolError::new(ErrorKind::Internal, format!("{what}: {e}"))
}

fn jail_error(e: JailError) -> ToolError {
    ToolError::new(ErrorKind::Internal, e.to_string())
}

#[cfg(test)]
mod tests;
