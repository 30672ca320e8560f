//! The `beaker` binary; everything lives in `beaker-cli`.

fn main() -> std::process::ExitCode {
    beaker_cli::main()
}
