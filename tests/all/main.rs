//! The one integration test binary (it builds once): black-box tests over the `beaker` binary and the
//! public API, most of them driven by data files under `tests/data/`.
#![allow(
    clippy::unwrap_used,
    reason = "a test binary: a panic is a failed test"
)]

mod api;
mod bench;
mod calculator;
mod code;
mod conformance;
mod dialects;
mod domain;
mod grading;
mod health;
mod http;
mod image;
mod logic;
mod mcp;
mod memory;
mod numerical;
mod plans;
mod providers;
mod pubchem;
mod python;
mod python_package;
mod sandbox;
mod serve;
mod statistics;
mod support;
mod templates;
mod tenants;
mod text_mode;
mod tidy;
mod traces;
mod trajectories;
mod units;
mod web_search;
mod wolfram;
mod workspace;

fn main() {
    // Engines built in this process run Z3 in worker processes of the binary under test, as `beaker serve` does
    // (set before any thread starts; without it, this test binary is not Beaker's, and Z3 would run in-process).
    std::env::set_var("BEAKER_LOGIC_WORKER", env!("CARGO_BIN_EXE_beaker"));
    let args = libtest_mimic::Arguments::from_args();
    // pubchem's lookup is compiled from the installed tables once per machine; done here, before any trial's
    // call could wait for it past its timeout.
    pubchem::prepare();
    let mut trials = Vec::new();
    trials.extend(calculator::trials());
    trials.extend(health::trials());
    trials.extend(conformance::trials());
    trials.extend(dialects::trials());
    trials.extend(serve::trials());
    trials.extend(http::trials());
    trials.extend(mcp::trials());
    trials.extend(memory::trials());
    trials.extend(text_mode::trials());
    trials.extend(api::trials());
    trials.extend(tidy::trials());
    trials.extend(units::trials());
    trials.extend(web_search::trials());
    trials.extend(pubchem::trials());
    trials.extend(wolfram::trials());
    trials.extend(workspace::trials());
    trials.extend(image::trials());
    trials.extend(providers::trials());
    trials.extend(numerical::trials());
    trials.extend(statistics::trials());
    trials.extend(sandbox::trials());
    trials.extend(python::trials());
    trials.extend(python::symbolic_trials());
    trials.extend(python_package::trials());
    trials.extend(logic::trials());
    trials.extend(domain::trials());
    trials.extend(traces::trials());
    trials.extend(templates::trials());
    trials.extend(trajectories::trials());
    trials.extend(tenants::trials());
    trials.extend(grading::trials());
    trials.extend(plans::trials());
    trials.extend(code::trials());
    trials.extend(bench::trials());
    libtest_mimic::run(&args, trials).exit();
}
