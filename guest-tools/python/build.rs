//! Links the guest with a large linear-memory (shadow) stack for deep Python recursion.
//!
//! Done here rather than in RUSTFLAGS so it holds whatever directory cargo
//! runs from and whatever RUSTFLAGS / CARGO_ENCODED_RUSTFLAGS a caller sets.

/// Shadow-stack size in bytes; see the recursion measurements in README.md.
const STACK_SIZE: u32 = 5 << 19; // 2.5 MiB

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-bins=-zstack-size={STACK_SIZE}");
    }
}
