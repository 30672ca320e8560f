//! The `beaker` binary; everything lives in `beaker-cli`.

/// Rust allocations of the binary go to mimalloc: per-thread heaps, so a call allocated on the reader's
/// thread and freed on a worker's takes no arena lock (docs/PERFORMANCE.md, "Allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    beaker_cli::main()
}
