//! The languages `execute_code` runs, with SandboxFusion's names: where each one's toolchain is on this host,
//! how a source is compiled and how the program runs.

use beaker_jail::Mount;
use std::path::{Path, PathBuf};

/// A language as the tool knows it before looking at the host.
pub(crate) struct LanguageDef {
    /// Its name in calls (SandboxFusion's).
    pub name: &'static str,
    /// The program that must be on the host, looked up in `PATH` (or how to find it: see [`Toolchain::find`]).
    pub program: &'static str,
    /// What to install when it is missing.
    pub install: &'static str,
    /// The source file's name (Java's follows the public class).
    pub source: &'static str,
    /// The compile command (`{tool}` is the toolchain's program), run in `/build` where the source is, or none.
    pub compile: Option<&'static [&'static str]>,
    /// The run command (`{tool}`, `{heap_mib}`; `{class}` for Java).
    pub run: &'static [&'static str],
    /// Environment for both steps.
    pub env: &'static [(&'static str, &'static str)],
    /// Files Beaker writes into the run's `/tmp` beside the program, for its runtime (Node.js's stdio preload).
    pub support: &'static [(&'static str, &'static str)],
    /// Whether its runtime reserves far more address space than it uses (the JVM, V8, Go): bounded by its own
    /// heap flag and the process limit instead of `RLIMIT_AS`.
    pub reserves_address_space: bool,
}

/// Where Node.js runs find the preload that makes their stdout and stderr block (`node_stdio.js` says why).
const NODE_STDIO_PATH: &str = "/tmp/.beaker-node-stdio.js";

/// The preload itself, by the name it is written under in the run's `/tmp`.
const NODE_SUPPORT: &[(&str, &str)] = &[(".beaker-node-stdio.js", include_str!("node_stdio.js"))];

/// Every language, in the order docs list them.
pub(crate) const LANGUAGES: &[LanguageDef] = &[
    LanguageDef {
        name: "python",
        program: "/usr/bin/python3",
        install: "Debian's python3",
        source: "main.py",
        compile: None,
        run: &["{tool}", "/tmp/main.py"],
        env: &[("PYTHONDONTWRITEBYTECODE", "1"), ("PYTHONHASHSEED", "0")],
        support: &[],
        reserves_address_space: false,
    },
    LanguageDef {
        name: "c",
        program: "gcc",
        install: "Debian's gcc",
        source: "main.c",
        compile: Some(&[
            "{tool}",
            "-O2",
            "-std=gnu17",
            "-pipe",
            "-o",
            "main",
            "main.c",
            "-lm",
        ]),
        run: &["/build/main"],
        env: &[],
        support: &[],
        reserves_address_space: false,
    },
    LanguageDef {
        name: "cpp",
        program: "g++",
        install: "Debian's g++",
        source: "main.cpp",
        compile: Some(&[
            "{tool}",
            "-O2",
            "-std=gnu++17",
            "-pipe",
            "-o",
            "main",
            "main.cpp",
        ]),
        run: &["/build/main"],
        env: &[],
        support: &[],
        reserves_address_space: false,
    },
    LanguageDef {
        name: "rust",
        program: "rustc",
        install: "Debian's rustc, or a rustup toolchain in a folder every user may pass through",
        source: "main.rs",
        compile: Some(&["{tool}", "-O", "--edition", "2021", "-o", "main", "main.rs"]),
        run: &["/build/main"],
        env: &[],
        support: &[],
        reserves_address_space: false,
    },
    LanguageDef {
        name: "go",
        program: "go",
        install: "Debian's golang-go",
        source: "main.go",
        compile: Some(&["{tool}", "build", "-o", "main", "main.go"]),
        run: &["/build/main"],
        env: &[
            ("GOCACHE", "/tmp/.gocache"),
            ("GOPATH", "/tmp/.gopath"),
            ("GO111MODULE", "off"),
            ("CGO_ENABLED", "0"),
        ],
        support: &[],
        reserves_address_space: true,
    },
    LanguageDef {
        name: "java",
        program: "javac",
        install: "Debian's default-jdk-headless",
        source: "Main.java",
        compile: Some(&["{tool}", "-encoding", "UTF-8", "-d", ".", "{source}"]),
        run: &[
            "{java}",
            "-Xmx{heap_mib}m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xshare:auto",
            "-cp",
            "/build",
            "{class}",
        ],
        env: &[],
        support: &[],
        reserves_address_space: true,
    },
    LanguageDef {
        name: "nodejs",
        program: "node",
        install: "Debian's nodejs",
        source: "main.js",
        compile: None,
        run: &[
            "{tool}",
            "--max-old-space-size={heap_mib}",
            "-r",
            NODE_STDIO_PATH,
            "/tmp/main.js",
        ],
        env: &[],
        support: NODE_SUPPORT,
        reserves_address_space: true,
    },
    LanguageDef {
        name: "typescript",
        program: "esbuild",
        install: "Debian's nodejs, and esbuild (scripts/install-python-runtime.py installs it)",
        source: "main.ts",
        // SandboxFusion runs `tsx main.ts`: esbuild's transform, types stripped and not checked.
        compile: Some(&[
            "{tool}",
            "main.ts",
            "--outfile=main.js",
            "--format=cjs",
            "--platform=node",
            "--target=node18",
            "--log-level=warning",
            "--color=false",
        ]),
        run: &[
            "{node}",
            "--max-old-space-size={heap_mib}",
            "-r",
            NODE_STDIO_PATH,
            "/build/main.js",
        ],
        env: &[],
        support: NODE_SUPPORT,
        reserves_address_space: true,
    },
    LanguageDef {
        name: "bash",
        program: "bash",
        install: "Debian's bash",
        source: "main.sh",
        compile: None,
        run: &["{tool}", "/tmp/main.sh"],
        env: &[],
        support: &[],
        reserves_address_space: false,
    },
];

/// A language's toolchain as found on this host.
#[derive(Debug, Clone)]
pub(crate) struct Toolchain {
    /// The program, by the path the sandbox sees it at.
    pub program: PathBuf,
    /// Host paths outside [`beaker_jail::BASE_MOUNTS`] it needs (a rustup toolchain, the JDK's `/etc` config).
    pub mounts: Vec<Mount>,
    /// What runs the program it makes, when that is another program (TypeScript's Node.js: `{node}`).
    pub runner: Option<PathBuf>,
    /// What identifies this toolchain's builds (its real path and modification time): a new compiler misses
    /// the old builds in the cache.
    pub identity: String,
}

impl Toolchain {
    /// Finds `def`'s toolchain whose every path a run can reach (`reachable`: the jail's say), trying the one in
    /// `PATH` first, then Debian's in `/usr/bin` (a rustup toolchain under a root-only home is out of reach of
    /// the runs' own user); `None` when there is none.
    pub fn find(def: &LanguageDef, reachable: &dyn Fn(&Path) -> bool) -> Option<Toolchain> {
        let mut candidates = Vec::new();
        let mut runner = None;
        if def.name == "typescript" {
            // esbuild from Beaker's own install, and node to run what it makes.
            runner = Some(node().filter(|n| reachable(n))?);
            candidates.extend(typescript_dir().map(|d| d.join("bin").join(def.program)));
        } else if def.program.starts_with('/') {
            candidates.push(PathBuf::from(def.program));
        } else {
            candidates.extend(beaker_jail::find_in_path(def.program));
            candidates.push(Path::new("/usr/bin").join(def.program));
        }
        candidates
            .into_iter()
            .filter(|c| c.is_file())
            .filter_map(|c| Toolchain::at(def, &c))
            .find(|t| reachable(&t.program) && t.mounts.iter().all(|m| reachable(&m.host)))
            .map(|t| Toolchain { runner, ..t })
    }

    /// The toolchain whose program is `found`.
    fn at(def: &LanguageDef, found: &Path) -> Option<Toolchain> {
        let found = found.to_path_buf();
        let real = std::fs::canonicalize(&found).ok()?;
        let mut mounts = Vec::new();
        let program = if def.name == "rust" {
            // A rustup proxy in ~/.cargo/bin: the toolchain it runs lives in its sysroot, outside /usr.
            let sysroot = std::process::Command::new(&found)
                .args(["--print", "sysroot"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))?;
            let rustc = sysroot.join("bin/rustc");
            if !sysroot.starts_with("/usr") {
                mounts.push(Mount::read_only(sysroot));
            }
            rustc
        } else if real.starts_with("/usr") || real.starts_with("/bin") {
            real.clone()
        } else {
            mounts.push(Mount::read_only(real.parent()?.to_path_buf()));
            real.clone()
        };
        if def.name == "java" {
            // The JDK's conf/ links into /etc/java-N-openjdk.
            if let Ok(dir) = std::fs::read_dir("/etc") {
                for e in dir.filter_map(Result::ok) {
                    let name = e.file_name();
                    if name.to_str().is_some_and(|n| n.starts_with("java-")) {
                        mounts.push(Mount::read_only(e.path()));
                    }
                }
            }
        }
        let modified = std::fs::metadata(&program)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        Some(Toolchain {
            identity: format!("{}@{modified}", program.display()),
            program,
            mounts,
            runner: None,
        })
    }
}

/// Node.js, which runs TypeScript once esbuild has made it JavaScript.
fn node() -> Option<PathBuf> {
    beaker_jail::find_in_path("node")
        .or_else(|| Some(PathBuf::from("/usr/bin/node")))
        .filter(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// Where esbuild is installed (scripts/install-python-runtime.py follows the same rule): `$BEAKER_TYPESCRIPT`,
/// else `/var/lib/beaker/typescript` for root (runs' own user cannot pass `/root`), else `typescript` in
/// Beaker's cache folder.
pub(crate) fn typescript_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BEAKER_TYPESCRIPT") {
        return Some(PathBuf::from(dir));
    }
    if rustix::process::geteuid().is_root() {
        return Some(PathBuf::from("/var/lib/beaker/typescript"));
    }
    beaker_core::cache_dir().map(|d| d.join("typescript"))
}

/// The `java` launcher beside a `javac`.
pub(crate) fn java_beside(javac: &Path) -> PathBuf {
    javac.with_file_name("java")
}

/// The public class a Java source declares (its file must be named after it), else `Main`.
pub(crate) fn java_class(source: &str) -> String {
    let mut words = source
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty());
    while let Some(w) = words.next() {
        if w == "public" {
            let mut next = words.next();
            while matches!(next, Some("final" | "abstract" | "static" | "strictfp")) {
                next = words.next();
            }
            if next == Some("class") {
                if let Some(name) = words.next() {
                    return name.to_string();
                }
            }
        }
    }
    "Main".to_string()
}

/// The top-level packages a Python source imports in `import a.b, c` and `from a.b import c` statements (at
/// any indentation, after `;`), in order of first appearance; relative imports are left out.
pub(crate) fn python_imports(source: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        let top = name.trim().split('.').next().unwrap_or("").trim();
        if !top.is_empty()
            && top.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !found.iter().any(|f| f == top)
        {
            found.push(top.to_string());
        }
    };
    for statement in source.lines().flat_map(|l| l.split(';')) {
        let s = statement.trim_start();
        if let Some(rest) = s.strip_prefix("import ") {
            for part in rest.split(',') {
                add(part.split_whitespace().next().unwrap_or(""));
            }
        } else if let Some(rest) = s.strip_prefix("from ") {
            let module = rest.split_whitespace().next().unwrap_or("");
            if !module.starts_with('.') {
                add(module);
            }
        }
    }
    found
}
