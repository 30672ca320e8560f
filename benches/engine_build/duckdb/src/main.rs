//! One query through DuckDB, so the build links its engine.
fn main() -> duckdb::Result<()> {
    let conn = duckdb::Connection::open_in_memory()?;
    let n: i64 = conn.query_row("SELECT count(*) FROM range(1000)", [], |r| r.get(0))?;
    println!("{n}");
    Ok(())
}
