//! Settings from a TOML file and flags (flags win).

use anyhow::Context;
use beaker_catalog::search::{self, Indexes};
use beaker_catalog::Catalog;
use beaker_core::Limits;
use beaker_engine::{Config, Engine};
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::Arc;

/// Default bound on calls in flight in `serve`: enough to keep every worker busy while responses are
/// written, small enough that a flood of requests is held back by the pipe instead of by memory.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;
/// Default cap on one request line (16 MiB): big enough for any params, refused without buffering beyond it.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 << 20;
/// Default budget of request bytes held by calls in flight (64 MiB, four full-size lines): parsed JSON takes
/// tens of times its text, so this is what bounds the server's memory for queued input.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 64 << 20;

/// Flags shared by every command that runs calls.
#[derive(clap::Args, Clone, Default)]
pub struct EngineArgs {
    /// A TOML configuration file (see docs/PROTOCOL.md).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Worker threads for native tools (default: the number of cores).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Worker threads for sandboxed tools (Python, guests), a pool of their own (default: the number of cores).
    #[arg(long)]
    pub sandbox_workers: Option<usize>,
    /// Default execution timeout per call, in milliseconds.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Also write images tools return (plots) into this directory and add `output_path` to their results.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// Also load the guest tools in this directory (`NAME.wasm` + `NAME.toml` manifests); a tool that fails
    /// to load is reported on stderr and the others still load.
    #[arg(long)]
    pub guest_dir: Vec<PathBuf>,
    /// A `web_search` index to serve, as NAME=DIR (a folder `beaker index build` wrote); repeatable. The
    /// first is the default index; the built-in `docs` is always there too.
    #[arg(long = "index", value_name = "NAME=DIR", value_parser = parse_index)]
    pub index: Vec<(String, PathBuf)>,
    /// Leave out the sandboxed Python tools (`execute_python`, `code_test`).
    #[arg(long)]
    pub no_python: bool,
    /// Python sessions open at once across every client (default 32; each holds an interpreter). When it is
    /// reached, the client holding the most gives up its least recently used idle one.
    #[arg(long)]
    pub max_sessions: Option<u32>,
    /// The memory budget every client-grown holder reserves from (interpreters and sessions, request bodies,
    /// answers waiting to be written): bytes, or with a unit (`2GiB`, `512MiB`). Default: three quarters of the
    /// machine's (or the cgroup's) memory.
    #[arg(long, value_parser = parse_bytes)]
    pub max_memory: Option<u64>,
    /// The data folder seed 002's health tools read datasets from (`beaker data import` fills it).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Bind this server's clients (stdio, MCP, HTTP without tokens) to one dataset: every call reads it, and a
    /// request naming another is refused.
    #[arg(long, value_name = "NAME")]
    pub dataset: Option<String>,
    /// Also register testing-only tools (`_block`).
    #[arg(long, hide = true)]
    pub test_tools: bool,
}

/// Flags of `beaker serve`.
#[derive(clap::Args, Clone)]
pub struct ServeArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Calls running or queued at once; beyond it the server stops reading stdin (backpressure).
    #[arg(long)]
    pub max_in_flight: Option<usize>,
    /// Longest request line in bytes; longer lines are refused with a parse_error.
    #[arg(long)]
    pub max_line_bytes: Option<usize>,
    /// Request bytes the calls in flight may hold at once (default 64 MiB); beyond it the server stops reading
    /// stdin until calls are answered, so large requests cannot pile up in memory.
    #[arg(long)]
    pub max_queued_bytes: Option<usize>,
    /// On SIGTERM or SIGINT, how long calls in flight may finish before they are answered `cancelled`
    /// (milliseconds; default 0: cancel at once).
    #[arg(long)]
    pub drain_ms: Option<u64>,
    /// Serve HTTP on this address instead of JSON Lines on stdio (`127.0.0.1:8080`; see docs/HTTP.md):
    /// `/v1/call`, `/v1/batch`, `/v1/tools`, `/healthz` and SandboxFusion's `/run_code`.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Serve the Model Context Protocol on stdio instead of JSON Lines (see docs/MCP.md): `tools/list` and
    /// `tools/call` for MCP clients (Claude Desktop, the MCP SDKs, agent frameworks).
    #[arg(long, conflicts_with = "http")]
    pub mcp: bool,
    /// With `--http`: a file of bearer tokens, one per line, each optionally with its limits
    /// (`TOKEN rate=200 burst=400 in_flight=64`); every route but `/healthz` then needs
    /// `Authorization: Bearer TOKEN`, and a token past its limits is answered 429.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub http_tokens: Option<PathBuf>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    workers: Option<usize>,
    sandbox_workers: Option<usize>,
    max_in_flight: Option<usize>,
    max_line_bytes: Option<usize>,
    max_queued_bytes: Option<usize>,
    drain_ms: Option<u64>,
    max_queued: Option<usize>,
    max_trajectories: Option<usize>,
    max_sessions: Option<u32>,
    max_memory: Option<String>,
    http_header_timeout_ms: Option<u64>,
    http_body_timeout_ms: Option<u64>,
    http_max_waiting: Option<usize>,
    http_max_wait_ms: Option<u64>,
    trajectory_idle_secs: Option<u64>,
    output_dir: Option<PathBuf>,
    #[serde(default)]
    guest_dirs: Vec<PathBuf>,
    #[serde(default)]
    python: Option<bool>,
    #[serde(default)]
    limits: Option<Limits>,
    #[serde(default)]
    max_limits: Option<Limits>,
    #[serde(default)]
    web_search: WebSearchFile,
    #[serde(default)]
    pubchem: PubchemFile,
    #[serde(default)]
    wolfram: WolframFile,
    #[serde(default)]
    workspace: WorkspaceFile,
    #[serde(default)]
    image: ImageFile,
    #[serde(default)]
    data: DataFile,
}

/// The `[data]` section: seed 002's datasets.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DataFile {
    /// The data folder (as `--data`).
    dir: Option<PathBuf>,
    /// The dataset every client is bound to (as `--dataset`).
    dataset: Option<String>,
    /// Months that ended more than this many days ago live in the object store (default 90).
    local_days: Option<u32>,
    /// An S3-compatible object store for history, encrypted (Storj's gateway, MinIO).
    object_store: Option<beaker_catalog::datasets::ObjectConfig>,
}

/// The `[image]` section.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ImageFile {
    /// The OpenAI Images API that draws generate_image's and generate_gif's images (they refuse without it).
    provider: Option<beaker_catalog::image::ProviderConfig>,
}

/// The `[workspace]` section: each trajectory's files (`write_file`, `execute_python`'s working folder).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct WorkspaceFile {
    /// Files one workspace may hold (default 256).
    max_files: Option<usize>,
    /// Bytes of content, all files together: a number or with a unit (`64MiB`; default 32 MiB).
    max_bytes: Option<String>,
    /// Folders deep a path may go (default 16).
    max_depth: Option<usize>,
    /// Bytes a path may have (default 1,024).
    max_path_bytes: Option<usize>,
}

/// The `[wolfram]` section.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct WolframFile {
    /// The WolframAlpha LLM API, asked the questions no offline route reads (off without it).
    provider: Option<beaker_catalog::wolfram::ProviderConfig>,
}

/// The `[pubchem]` section.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PubchemFile {
    /// The tables' folder (default: `$BEAKER_CHEMICALS_DIR`, else the installer's, in Beaker's cache).
    dir: Option<PathBuf>,
    /// PubChem PUG REST, asked for compounds the tables lack (off without it).
    provider: Option<beaker_catalog::pubchem::ProviderConfig>,
}

/// The `[web_search]` section.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct WebSearchFile {
    /// NAME = "DIR", served with the `--index` flags' (a flag's wins for the same name).
    #[serde(default)]
    indexes: toml::Table,
    /// The index a call that names none searches (default: the first `--index` flag's, else the first
    /// index here in name order, else `docs`).
    default: Option<String>,
    /// BM25's term-frequency saturation (default 0.9, Lucene's).
    k1: Option<f64>,
    /// Live web search, served as the index `web` (off without it).
    provider: Option<beaker_catalog::search::ProviderConfig>,
    /// BM25's length normalisation (default 0.4, Lucene's).
    b: Option<f64>,
}

/// Everything a front end needs to start.
pub struct Settings {
    pub config: Config,
    pub guest_dirs: Vec<PathBuf>,
    pub python: bool,
    /// Python sessions open at once, when not the sandbox's default.
    pub max_sessions: Option<u32>,
    pub test_tools: bool,
    pub max_in_flight: usize,
    pub max_line_bytes: usize,
    pub max_queued_bytes: usize,
    pub drain_ms: u64,
    /// With `--http`: how long a request's head and its body may take to arrive (milliseconds).
    pub http_timeouts_ms: (Option<u64>, Option<u64>),
    /// With `--http`: requests that may wait for a slot past `max_in_flight`, and for how long (milliseconds).
    pub http_waiting: (Option<usize>, Option<u64>),
    /// `web_search`'s indexes (each configured folder already opened) and live provider.
    pub indexes: Arc<Indexes>,
    /// `pubchem`'s tables and live provider (built once, here).
    pub pubchem: (PathBuf, Option<Arc<beaker_catalog::pubchem::Provider>>),
    /// `wolfram`'s live provider (built once, here).
    pub wolfram: Option<Arc<beaker_catalog::wolfram::Provider>>,
    /// `generate_image`'s and `generate_gif`'s provider (built once, here).
    pub image: Option<Arc<beaker_catalog::image::Provider>>,
    /// The data folder (opened once, here).
    pub data: Option<Arc<beaker_catalog::datasets::Datasets>>,
    /// The dataset the default tenant is bound to.
    pub dataset: Option<String>,
}

impl Settings {
    pub fn load_engine(args: &EngineArgs) -> anyhow::Result<Settings> {
        let file: File = match &args.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("reading {}", path.display()))?;
                toml::from_str(&text).with_context(|| format!("in {}", path.display()))?
            }
            None => File::default(),
        };
        let mut config = Config::default();
        if let Some(w) = args.workers.or(file.workers) {
            config.workers = w;
        }
        if let Some(w) = args.sandbox_workers.or(file.sandbox_workers) {
            config.sandbox_workers = w;
        }
        if let Some(q) = file.max_queued {
            config.max_queued = q;
        }
        if let Some(n) = file.max_trajectories {
            anyhow::ensure!(n > 0, "max_trajectories must be at least 1");
            config.max_trajectories = n;
        }
        if let Some(m) = args.max_memory {
            config.max_memory = m;
        } else if let Some(m) = &file.max_memory {
            config.max_memory = parse_bytes(m).map_err(|e| anyhow::anyhow!("max_memory: {e}"))?;
        }
        anyhow::ensure!(config.max_memory > 0, "max_memory must be at least 1 byte");
        let w = &file.workspace;
        if let Some(n) = w.max_files {
            config.workspace.max_files = n;
        }
        if let Some(b) = &w.max_bytes {
            config.workspace.max_bytes =
                parse_bytes(b).map_err(|e| anyhow::anyhow!("workspace.max_bytes: {e}"))?;
        }
        if let Some(n) = w.max_depth {
            anyhow::ensure!(n > 0, "workspace.max_depth must be at least 1");
            config.workspace.max_depth = n;
        }
        if let Some(n) = w.max_path_bytes {
            anyhow::ensure!(n > 0, "workspace.max_path_bytes must be at least 1");
            config.workspace.max_path_bytes = n;
        }
        if let Some(s) = file.trajectory_idle_secs {
            config.trajectory_idle = std::time::Duration::from_secs(s);
        }
        config.output_dir = args.output_dir.clone().or(file.output_dir);
        if let Some(l) = file.limits {
            config.defaults = l;
        }
        if let Some(l) = file.max_limits {
            config.maxima = l;
        }
        if let Some(t) = args.timeout_ms {
            config.defaults.timeout_ms = t;
            config.maxima.timeout_ms = config.maxima.timeout_ms.max(t);
        }
        config
            .defaults
            .validate_against(&config.maxima)
            .context("invalid limits")?;
        let mut guest_dirs = file.guest_dirs;
        guest_dirs.extend(args.guest_dir.iter().cloned());
        // The flags' first, so the first flag is the default index.
        let mut indexes: Vec<(String, PathBuf)> = args.index.clone();
        for (name, dir) in &file.web_search.indexes {
            if indexes.iter().any(|(n, _)| n == name) {
                continue;
            }
            let dir = dir
                .as_str()
                .ok_or_else(|| anyhow::anyhow!("[web_search] indexes.{name} is a folder's path"))?;
            indexes.push((name.clone(), PathBuf::from(dir)));
        }
        let bm25 = (
            file.web_search.k1.unwrap_or(search::DEFAULT_K1),
            file.web_search.b.unwrap_or(search::DEFAULT_B),
        );
        anyhow::ensure!(
            bm25.0.is_finite() && bm25.0 >= 0.0 && (0.0..=1.0).contains(&bm25.1),
            "[web_search] k1 is a number >= 0 and b a number from 0 to 1"
        );
        let names: Vec<String> = indexes.iter().map(|(n, _)| n.clone()).collect();
        let mut served = Indexes::new(indexes).with_bm25(bm25.0, bm25.1);
        if let Some(p) = &file.web_search.provider {
            // Its key is read from the environment now: a server that cannot search stops at start.
            served = served.with_provider(search::Provider::new(p)?);
        }
        if let Some(d) = &file.web_search.default {
            served = served
                .with_default(d)
                .map_err(|_| anyhow::anyhow!("[web_search] default = {d:?} names no index"))?;
        }
        // A folder that is not an index stops the server at start, not at its first search; opened here, it is
        // not opened again.
        for name in &names {
            served
                .get(Some(name))
                .map_err(|e| anyhow::anyhow!("{}", e.message))?;
        }
        // A provider whose url is wrong stops the server at start.
        let provider = match &file.pubchem.provider {
            Some(p) => Some(Arc::new(
                beaker_catalog::pubchem::Provider::new(p).map_err(|e| anyhow::anyhow!("{e}"))?,
            )),
            None => None,
        };
        let pubchem = (
            file.pubchem
                .dir
                .clone()
                .unwrap_or_else(beaker_catalog::pubchem::default_dir),
            provider,
        );
        let wolfram = match &file.wolfram.provider {
            Some(p) => Some(Arc::new(
                beaker_catalog::wolfram::Provider::new(p).map_err(|e| anyhow::anyhow!("{e}"))?,
            )),
            None => None,
        };
        let image = match &file.image.provider {
            Some(p) => Some(Arc::new(
                beaker_catalog::image::Provider::new(p).map_err(|e| anyhow::anyhow!("{e}"))?,
            )),
            None => None,
        };
        let data = match args.data.clone().or(file.data.dir.clone()) {
            Some(dir) => {
                let mut d = beaker_catalog::datasets::Datasets::open(&dir)
                    .with_context(|| format!("opening the data folder {}", dir.display()))?;
                if let Some(store) = &file.data.object_store {
                    d = d.with_object_store(store, file.data.local_days.unwrap_or(90))?;
                }
                Some(Arc::new(d))
            }
            None => None,
        };
        let dataset = args.dataset.clone().or(file.data.dataset.clone());
        if let Some(name) = &dataset {
            beaker_catalog::datasets::check_name(name)?;
            anyhow::ensure!(data.is_some(), "--dataset needs a data folder (--data DIR)");
        }
        Ok(Settings {
            config,
            guest_dirs,
            python: !args.no_python && file.python.unwrap_or(true),
            max_sessions: args.max_sessions.or(file.max_sessions),
            test_tools: args.test_tools,
            max_in_flight: file.max_in_flight.unwrap_or(DEFAULT_MAX_IN_FLIGHT),
            max_line_bytes: file.max_line_bytes.unwrap_or(DEFAULT_MAX_LINE_BYTES),
            max_queued_bytes: file.max_queued_bytes.unwrap_or(DEFAULT_MAX_QUEUED_BYTES),
            drain_ms: file.drain_ms.unwrap_or(0),
            http_timeouts_ms: (file.http_header_timeout_ms, file.http_body_timeout_ms),
            http_waiting: (file.http_max_waiting, file.http_max_wait_ms),
            indexes: Arc::new(served),
            pubchem,
            wolfram,
            image,
            data,
            dataset,
        })
    }

    pub fn load(args: &ServeArgs) -> anyhow::Result<Settings> {
        let mut s = Self::load_engine(&args.engine)?;
        if let Some(n) = args.max_in_flight {
            s.max_in_flight = n;
        }
        if let Some(n) = args.max_line_bytes {
            s.max_line_bytes = n;
        }
        if let Some(n) = args.max_queued_bytes {
            s.max_queued_bytes = n;
        }
        if let Some(n) = args.drain_ms {
            s.drain_ms = n;
        }
        anyhow::ensure!(s.max_in_flight > 0, "max_in_flight must be at least 1");
        anyhow::ensure!(s.max_line_bytes > 0, "max_line_bytes must be at least 1");
        anyhow::ensure!(
            s.max_queued_bytes > 0,
            "max_queued_bytes must be at least 1"
        );
        Ok(s)
    }

    /// The families and guest directories these settings ask for.
    fn catalog(&self) -> anyhow::Result<Catalog> {
        let mut catalog = Catalog::builtin()
            .indexes(self.indexes.clone())
            .pubchem(self.pubchem.0.clone(), self.pubchem.1.clone())
            .wolfram(self.wolfram.clone())
            .image(self.image.clone())
            .data(self.data.clone());
        if !self.python {
            catalog = catalog.without("python");
        }
        if self.test_tools {
            catalog = catalog.with("testing")?;
        }
        for d in &self.guest_dirs {
            catalog = catalog.guest_dir(d.clone());
        }
        Ok(catalog)
    }

    /// An engine for one call of `tool`: the native tools alone when `tool` is one of them (no guest is loaded, so
    /// `beaker call calculator` answers in milliseconds), else [`Settings::engine`].
    pub fn engine_for(&self, tool: &str) -> anyhow::Result<Engine> {
        let native = self
            .catalog()?
            .natives_only()
            .engine_with(self.config.clone())?;
        if native.spec(tool).is_some() {
            return Ok(self.bound(native));
        }
        drop(native);
        self.engine()
    }

    /// Builds the engine; guest tools that fail to load are reported on stderr, naming their files.
    pub fn engine(&self) -> anyhow::Result<Engine> {
        Ok(self.engine_and_load_errors()?.0)
    }

    /// Builds the engine, and says which guest tools failed to load (also reported on stderr).
    pub fn engine_and_load_errors(
        &self,
    ) -> anyhow::Result<(Engine, Vec<beaker_catalog::LoadError>)> {
        let mut catalog = self.catalog()?;
        if let Some(n) = self.max_sessions {
            anyhow::ensure!(n > 0, "max_sessions must be at least 1");
            let sandbox = beaker_catalog::Sandbox::new(beaker_catalog::SandboxConfig {
                max_sessions: n,
                ..Default::default()
            })?;
            catalog = catalog.sandbox(sandbox);
        }
        let mut loaded = catalog.load()?;
        let load_errors = std::mem::take(&mut loaded.load_errors);
        let engine = loaded
            .engine_builder()
            .config(self.config.clone())
            .build()?;
        for e in &load_errors {
            eprintln!("beaker: guest tool not loaded: {e}");
        }
        Ok((self.bound(engine), load_errors))
    }

    /// The engine acting for the default tenant bound to `--dataset`, when given.
    fn bound(&self, engine: Engine) -> Engine {
        match &self.dataset {
            Some(name) => {
                let tenant = engine.tenant().clone().bound_to(name.as_str());
                engine.for_tenant(tenant)
            }
            None => engine,
        }
    }
}

/// The data folder `dir` (or the config file's `[data] dir`), with the config file's object store.
pub fn open_data(
    dir: Option<PathBuf>,
    config: Option<&std::path::Path>,
) -> anyhow::Result<beaker_catalog::datasets::Datasets> {
    let file: File = match config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            toml::from_str(&text).with_context(|| format!("in {}", path.display()))?
        }
        None => File::default(),
    };
    let dir = dir
        .or(file.data.dir)
        .context("no data folder: give --data DIR (or `dir` in the config file's [data])")?;
    let mut d = beaker_catalog::datasets::Datasets::open(&dir)
        .with_context(|| format!("opening the data folder {}", dir.display()))?;
    if let Some(store) = &file.data.object_store {
        d = d.with_object_store(store, file.data.local_days.unwrap_or(90))?;
    }
    Ok(d)
}

/// An index flag's `NAME=DIR`.
fn parse_index(text: &str) -> Result<(String, PathBuf), String> {
    let (name, dir) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=DIR"))?;
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    if !ok || dir.is_empty() {
        return Err(format!(
            "`{text}` is not NAME=DIR (a name of letters, digits, `_`, `-`, `.`)"
        ));
    }
    Ok((name.to_string(), PathBuf::from(dir)))
}

/// A size in bytes: a whole number, optionally with a unit (`KiB`, `MiB`, `GiB`, `TiB`, or `K`, `M`, `G`, `T`
/// meaning the same powers of 1024; `KB`, `MB`, `GB`, `TB` are powers of 1000).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| {
        format!("`{text}` is not a size (a whole number of bytes, or with a unit: 2GiB)")
    })?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{text}` (KiB, MiB, GiB, TiB)"
            ))
        }
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_read_with_and_without_units() {
        assert_eq!(parse_bytes("1024"), Ok(1024));
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("3g"), Ok(3 << 30));
        assert_eq!(parse_bytes("5MB"), Ok(5_000_000));
        for bad in ["", "GiB", "2 parsecs", "-1", "99999999999TiB", "1.5GiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }
}
