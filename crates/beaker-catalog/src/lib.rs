//! The one list of Beaker's tools, and the engines built from it. Every tool, native, Python or operator guest,
//! enters an engine through a [`Catalog`]; the engine (`beaker-engine`, below this crate) knows no tool and
//! runs the ones it is handed.
//!
//! [`BUILTIN`] is the list itself: one [`Entry`] per tool family, named like the family's folder of test
//! data (`tests/data/NAME/`). Adding a tool is one module (or crate) plus one line in [`BUILTIN`]; the
//! conformance suite, the docs and the prompt catalogs discover it from here (see `docs/ADDING_A_TOOL.md`).
//!
//! ```
//! use beaker_catalog::Catalog;
//! use beaker_core::{Pool, ToolCall};
//! let loaded = Catalog::builtin()
//!     .without("python").without("code").without("wolfram").without("image")
//!     .load()
//!     .unwrap();
//! assert!(loaded.tools.iter().any(|t| t.spec().name == "calculator"));
//! assert!(loaded.tools.iter().all(|t| t.pool() == Pool::Native));
//! // Every built-in tool with the default configuration:
//! let engine = beaker_catalog::engine().unwrap();
//! let env = engine.call(ToolCall::new("calculator", serde_json::json!({"expression": "7 * 8"})));
//! assert_eq!(env.result.unwrap()["value"], "56");
//! ```
#![deny(missing_docs)]

mod testing;

use beaker_core::Tool;
use beaker_engine::{Config, Engine, EngineBuilder, EngineError};
use beaker_sandbox::SandboxError;

/// Memory the preloaded Python interpreter holds before a program runs, in MiB (`beaker_python::INTERPRETER_MIB`).
pub use beaker_python::INTERPRETER_MIB as PYTHON_INTERPRETER_MIB;
/// A guest tool that failed to load, naming its file.
pub use beaker_sandbox::LoadError;
/// The sandbox sandboxed tools run in, and how it is set up (for [`Catalog::sandbox`]).
pub use beaker_sandbox::{Sandbox, SandboxConfig};
use std::path::PathBuf;
use std::sync::Arc;

/// `web_search`'s indexes, for the front ends that build (`beaker index`), configure (`--index`) and serve
/// them (`/retrieve`): tools enter through the catalog, and so does what their front ends need of them.
pub mod search {
    pub use beaker_search::index::{DEFAULT_B, DEFAULT_K1};
    pub use beaker_search::{
        BuildOptions, CorpusReader, Indexes, Meta, Progress, Provider, ProviderConfig, SearchError,
        SearchIndex, BUILTIN, MAX_RESULTS, WEB,
    };
}

/// `pubchem`'s tables and live provider, for the front ends that configure them (`[pubchem]`).
pub mod pubchem {
    pub use beaker_pubchem::{
        default_dir, open, Provider, ProviderConfig, CHEMICALS_VERSION, IDENTITY_PROPERTIES,
    };
}

/// `wolfram`'s live provider, for the front ends that configure it (`[wolfram.provider]`).
pub mod wolfram {
    pub use beaker_wolfram::{Provider, ProviderConfig};
}

/// `generate_image`'s and `generate_gif`'s provider, for the front ends that configure it (`[image.provider]`).
pub mod image {
    pub use beaker_image::{Provider, ProviderConfig};
}

/// Seed 002's data layer, for the front ends that open a data folder (`--data`) and import into it.
pub use beaker_datasets as datasets;

/// One family of tools and how to build it.
pub struct Entry {
    /// The family's name: `tests/data/NAME/` holds its reference and adversarial data.
    pub name: &'static str,
    /// Whether its tools run in the WebAssembly sandbox (built once per process, then cached), or route to
    /// tools that do.
    pub sandboxed: bool,
    build: Build,
}

/// Builds a native family's tools, with the catalog's [`Options`].
pub type BuildNative = fn(&Options) -> Vec<Arc<dyn Tool>>;

/// What a catalog's families are built with, besides the sandbox.
#[derive(Clone, Default)]
pub struct Options {
    /// The indexes `web_search` searches (the built-in `docs`, and folders named by `--index NAME=DIR`).
    pub indexes: Arc<beaker_search::Indexes>,
    /// `pubchem`'s tables (default: the installer's folder) and live PUG REST provider (default: none).
    pub pubchem: Option<(PathBuf, Option<Arc<beaker_pubchem::Provider>>)>,
    /// `wolfram`'s live provider (the WolframAlpha LLM API; default: none).
    pub wolfram: Option<Arc<beaker_wolfram::Provider>>,
    /// `generate_image`'s and `generate_gif`'s provider (an OpenAI Images API; default: none, and they refuse).
    pub image: Option<Arc<beaker_image::Provider>>,
    /// The data folder seed 002's health tools read datasets from (`--data DIR`; default: none, and they say
    /// how to give one).
    pub data: Option<Arc<beaker_datasets::Datasets>>,
}

/// Builds a sandboxed family's tools over a sandbox (loading, and on first use snapshotting, its guest).
pub type BuildSandboxed = fn(&Sandbox) -> Result<Vec<Arc<dyn Tool>>, SandboxError>;

enum Build {
    Native(BuildNative),
    Sandboxed(BuildSandboxed),
}

impl Entry {
    /// A family of native (trusted, in-process) tools.
    pub const fn native(name: &'static str, build: BuildNative) -> Entry {
        Entry {
            name,
            sandboxed: false,
            build: Build::Native(build),
        }
    }

    /// A family of native tools that answer through the catalog's other tools ([`Tool::bind`]), some of them
    /// sandboxed: left out with the sandboxed families.
    pub const fn router(name: &'static str, build: BuildNative) -> Entry {
        Entry {
            name,
            sandboxed: true,
            build: Build::Native(build),
        }
    }

    /// A family of tools that run a guest in the sandbox.
    pub const fn sandboxed(name: &'static str, build: BuildSandboxed) -> Entry {
        Entry {
            name,
            sandboxed: true,
            build: Build::Sandboxed(build),
        }
    }
}

/// Runs this process as a worker process when `args` (the process's arguments) ask for one, and returns its
/// exit code; `None` when they do not. Front ends call it first thing: a family that isolates native code in
/// worker processes (`logic`: Z3) starts Beaker's own binary with its worker argument (and so does the protocol
/// for chat templates given as source: `beaker_protocol::run_worker`).
pub fn run_worker(args: &[std::ffi::OsString]) -> Option<i32> {
    match args.get(1).and_then(|a| a.to_str()) {
        Some(beaker_logic::worker::WORKER_ARG) => Some(beaker_logic::worker::main()),
        _ => None,
    }
}

/// Every tool Beaker ships, in the order catalogs list them. One line per family.
pub const BUILTIN: &[Entry] = &[
    Entry::native("calculator", |_| {
        vec![Arc::new(beaker_calculator::Calculator::new())]
    }),
    Entry::native("units", |_| {
        vec![Arc::new(beaker_units::UnitConverter::new())]
    }),
    Entry::native("plotter", |_| {
        vec![Arc::new(beaker_plotter::Plotter::new())]
    }),
    Entry::native("numerical", |_| {
        // `stats` is answered by the statistics tool, injected here so neither crate depends on the other.
        let stats: Arc<dyn Tool> = Arc::new(beaker_statistics::Statistics::new());
        vec![Arc::new(
            beaker_numerical::Numerical::new().with_stats(stats),
        )]
    }),
    Entry::native("statistics", |_| {
        vec![Arc::new(beaker_statistics::Statistics::new())]
    }),
    // execute_python's native backend and code_test's stdin/stdout judge are execute_code's jail, injected so
    // neither crate depends on the other.
    Entry::sandboxed("python", |sandbox| {
        let native = beaker_python::Native {
            python: Arc::new(beaker_code::NativePython::new()),
            judge: Arc::new(beaker_code::ExecuteCode::new(None)),
        };
        beaker_python::tools_with_native(sandbox, Some(native))
    }),
    Entry::native("code", |_| {
        vec![Arc::new(beaker_code::ExecuteCode::new(None))]
    }),
    Entry::native("logic", |_| {
        vec![Arc::new(beaker_logic::LogicSolver::new())]
    }),
    Entry::native("chemistry", |_| {
        vec![Arc::new(beaker_chemistry::Chemistry::new())]
    }),
    Entry::native("physics", |_| {
        vec![Arc::new(beaker_physics::Physics::new())]
    }),
    Entry::native("grading", |_| vec![Arc::new(beaker_grade::Grade::new())]),
    Entry::native("web_search", |o| {
        vec![Arc::new(beaker_search::WebSearch::new(o.indexes.clone()))]
    }),
    Entry::native("pubchem", |o| {
        let (dir, provider) = o
            .pubchem
            .clone()
            .unwrap_or_else(|| (beaker_pubchem::default_dir(), None));
        vec![Arc::new(beaker_pubchem::Pubchem::new(dir, provider))]
    }),
    // Routes questions to the tools above (symbolic_math among them, so it is a sandboxed family).
    Entry::native("files", |_| beaker_files::tools()),
    Entry::native("image", |o| beaker_image::tools(o.image.clone())),
    // Seed 002's health data; correlations and their p-values come from the statistics tool, injected here.
    Entry::native("health", |o| {
        let stats: Arc<dyn Tool> = Arc::new(beaker_statistics::Statistics::new());
        beaker_health::tools(o.data.clone(), stats)
    }),
    Entry::router("wolfram", |o| {
        vec![Arc::new(beaker_wolfram::Wolfram::new(o.wolfram.clone()))]
    }),
];

/// Tools that exist only to test front ends (`beaker serve --test-tools`); never in [`BUILTIN`].
pub const TESTING: &[Entry] = &[Entry::native("testing", |_| {
    vec![Arc::new(testing::Block::new())]
})];

/// A catalog that cannot be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// A family name that neither [`BUILTIN`] nor [`TESTING`] has.
    #[error("no tool family `{name}` (known: {known})")]
    UnknownFamily {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: String,
    },
    /// The sandbox, or a sandboxed family's guest, could not be set up.
    #[error("sandbox: {0}")]
    Sandbox(#[from] SandboxError),
}

/// An engine that could not be built from a catalog.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The catalog could not be loaded (the sandbox or a sandboxed tool's guest failed to set up).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The engine refused the configuration or the tools.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// An engine with every built-in tool ([`Catalog::builtin`]) and the default configuration.
pub fn engine() -> Result<Engine, BuildError> {
    Catalog::builtin().engine()
}

/// The tools an engine starts with: families from [`BUILTIN`] (and [`TESTING`]), tools an embedder adds,
/// and directories of operator guests (`NAME.wasm` + `NAME.toml`).
#[derive(Clone, Default)]
pub struct Catalog {
    families: Vec<&'static Entry>,
    tools: Vec<Arc<dyn Tool>>,
    guest_dirs: Vec<PathBuf>,
    sandbox: Option<Sandbox>,
    options: Options,
}

/// What [`Catalog::load`] built.
pub struct Loaded {
    /// Every tool, in catalog order: families, then added tools, then guest directories.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Guest tools that failed to load, each naming its file (the others still load).
    pub load_errors: Vec<LoadError>,
}

impl Loaded {
    /// An engine builder handed these tools, its workers declaring their stacks to the sandbox.
    pub fn engine_builder(self) -> EngineBuilder {
        Engine::builder()
            .tools(self.tools)
            .on_worker_start(Arc::new(beaker_sandbox::declare_thread_stack))
    }
}

impl Catalog {
    /// Every built-in family: the native tools and the Python tools.
    pub fn builtin() -> Catalog {
        Catalog {
            families: BUILTIN.iter().collect(),
            ..Catalog::default()
        }
    }

    /// A catalog with no tools.
    pub fn empty() -> Catalog {
        Catalog::default()
    }

    /// Adds a family by name, from [`BUILTIN`] or [`TESTING`] (a no-op if it is already in).
    pub fn with(mut self, family: &str) -> Result<Catalog, CatalogError> {
        let entry = BUILTIN
            .iter()
            .chain(TESTING)
            .find(|e| e.name == family)
            .ok_or_else(|| CatalogError::UnknownFamily {
                name: family.into(),
                known: family_names().collect::<Vec<_>>().join(", "),
            })?;
        if !self.families.iter().any(|e| e.name == family) {
            self.families.push(entry);
        }
        Ok(self)
    }

    /// Leaves out a family (`"python"` for a catalog without the sandbox's Python tools).
    pub fn without(mut self, family: &str) -> Catalog {
        self.families.retain(|e| e.name != family);
        self
    }

    /// The same catalog without the families and guests that run in the sandbox: what a call of a native tool
    /// needs, built without loading (or compiling) any guest.
    pub fn natives_only(mut self) -> Catalog {
        self.families.retain(|e| !e.sandboxed);
        self.guest_dirs.clear();
        self
    }

    /// Adds one tool of the embedder's own.
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Catalog {
        self.tools.push(tool);
        self
    }

    /// Adds every guest tool in `dir` (`NAME.wasm` or `.wat` plus `NAME.toml`).
    pub fn guest_dir(mut self, dir: impl Into<PathBuf>) -> Catalog {
        self.guest_dirs.push(dir.into());
        self
    }

    /// Searches these indexes with `web_search` (default: the built-in `docs` alone).
    pub fn indexes(mut self, indexes: Arc<beaker_search::Indexes>) -> Catalog {
        self.options.indexes = indexes;
        self
    }

    /// Reads `pubchem`'s tables from `dir` and asks `provider` (PubChem PUG REST) for compounds they lack.
    pub fn pubchem(
        mut self,
        dir: PathBuf,
        provider: Option<Arc<beaker_pubchem::Provider>>,
    ) -> Catalog {
        self.options.pubchem = Some((dir, provider));
        self
    }

    /// Asks `provider` (the WolframAlpha LLM API) the `wolfram` questions no offline route reads.
    pub fn wolfram(mut self, provider: Option<Arc<beaker_wolfram::Provider>>) -> Catalog {
        self.options.wolfram = provider;
        self
    }

    /// Answers `generate_image` and `generate_gif` through this provider (without one they refuse, naming the
    /// setting).
    pub fn image(mut self, provider: Option<Arc<beaker_image::Provider>>) -> Catalog {
        self.options.image = provider;
        self
    }

    /// Reads seed 002's health datasets from this data folder (`--data DIR`).
    pub fn data(mut self, data: Option<Arc<beaker_datasets::Datasets>>) -> Catalog {
        self.options.data = data;
        self
    }

    /// Runs sandboxed tools in this sandbox instead of the process-wide [`Sandbox::shared`] one.
    pub fn sandbox(mut self, sandbox: Sandbox) -> Catalog {
        self.sandbox = Some(sandbox);
        self
    }

    /// Loads the catalog and builds an engine of its tools with the default configuration (a guest that fails
    /// to load is logged and left out; [`Catalog::load`] returns them).
    pub fn engine(&self) -> Result<Engine, BuildError> {
        self.engine_with(Config::default())
    }

    /// [`Catalog::engine`] with `config`.
    pub fn engine_with(&self, config: Config) -> Result<Engine, BuildError> {
        Ok(self.load()?.engine_builder().config(config).build()?)
    }

    /// The families in this catalog, in order.
    pub fn families(&self) -> impl Iterator<Item = &'static Entry> + '_ {
        self.families.iter().copied()
    }

    /// Builds every tool. The sandbox is set up only when a sandboxed family or a guest directory needs it;
    /// a guest that fails to load is reported in [`Loaded::load_errors`], not as an error.
    pub fn load(&self) -> Result<Loaded, CatalogError> {
        let mut loaded = Loaded {
            tools: Vec::new(),
            load_errors: Vec::new(),
        };
        for entry in &self.families {
            match &entry.build {
                Build::Native(build) => loaded.tools.extend(build(&self.options)),
                Build::Sandboxed(build) => loaded.tools.extend(build(&self.sandbox_for_load()?)?),
            }
        }
        loaded.tools.extend(self.tools.iter().cloned());
        for dir in &self.guest_dirs {
            let (tools, errors) = beaker_sandbox::load_dir(&self.sandbox_for_load()?, dir);
            for e in &errors {
                tracing::warn!("guest tool not loaded: {e}");
            }
            loaded.load_errors.extend(errors);
            loaded
                .tools
                .extend(tools.into_iter().map(|t| Arc::new(t) as Arc<dyn Tool>));
        }
        // Routers (`wolfram`) answer through the tools of this catalog, and only those.
        for tool in &loaded.tools {
            tool.bind(&loaded.tools);
        }
        Ok(loaded)
    }

    /// The sandbox given, else the process-wide one (set up on first use only).
    fn sandbox_for_load(&self) -> Result<Sandbox, SandboxError> {
        match &self.sandbox {
            Some(s) => Ok(s.clone()),
            None => Sandbox::shared(),
        }
    }
}

/// The names of every family there is ([`BUILTIN`], then [`TESTING`]).
pub fn family_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().chain(TESTING).map(|e| e.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_families_build_tools_with_unique_names() {
        let loaded = Catalog::builtin().without("python").with("testing");
        let loaded = loaded.and_then(|c| c.load()).map_err(|e| e.to_string());
        let Ok(loaded) = loaded else {
            panic!("{loaded:?}", loaded = loaded.err())
        };
        let mut names: Vec<&str> = loaded
            .tools
            .iter()
            .map(|t| t.spec().name.as_str())
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "two tools share a name: {names:?}");
        assert!(names.contains(&"_block"));
    }

    #[test]
    fn natives_only_loads_no_guest() {
        let c = Catalog::builtin().guest_dir("/nonexistent").natives_only();
        assert!(c.families().all(|e| !e.sandboxed));
        assert!(c.families().any(|e| e.name == "calculator"));
        let loaded = c.load().map_err(|e| e.to_string());
        let Ok(loaded) = loaded else {
            panic!("{loaded:?}", loaded = loaded.err())
        };
        assert!(loaded.load_errors.is_empty());
        // execute_code runs in the sandboxed pool but loads no guest (its jail is a host process); generate_image
        // and generate_gif wait there for their provider.
        let slow = ["execute_code", "generate_image", "generate_gif"];
        assert!(loaded.tools.iter().all(
            |t| t.pool() == beaker_core::Pool::Native || slow.contains(&t.spec().name.as_str())
        ));
    }

    #[test]
    fn unknown_family_names_the_known_ones() {
        let err = Catalog::empty()
            .with("alchemy")
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("calculator") && e.contains("python")));
    }
}
