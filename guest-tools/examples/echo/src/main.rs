//! Example Beaker guest: answers `{"echo": params}`.

fn main() {
    beaker_guest::run(|params| Ok(serde_json::json!({ "echo": params })));
}
