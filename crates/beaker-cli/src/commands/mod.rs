//! One module per subcommand that runs on an engine or a server: its arguments and what it does. `serve` is
//! `crate::serve`'s, the trace commands `crate::traces`'.

pub(crate) mod bench;
pub(crate) mod call;
pub(crate) mod compile;
pub(crate) mod data;
pub(crate) mod index;
pub(crate) mod run_plan;
pub(crate) mod run_text;
pub(crate) mod tools;
