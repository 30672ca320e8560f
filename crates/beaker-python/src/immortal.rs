//! Marks the objects alive in the snapshot immortal (PEP 683), so that a call's reference-count updates on
//! them stop writing to the snapshot's pages.
//!
//! Why: a fresh call runs in a copy-on-write image of the snapshot, and every page it writes costs a fault and
//! a copy, then a reset when the pool slot is reused; wasmtime 48 restores at most 32 dirty regions in place
//! and unmaps the rest, so scattered writes are paid for again by the next call (docs/PERFORMANCE.md). Most of
//! a small program's scattered writes were reference counts of the preloaded modules' objects: functions,
//! dicts, strings, types. CPython skips the increments and decrements of an immortal object, and on wasm32 an
//! object is immortal when its `ob_refcnt` (its first 4 bytes) is at least 2^30; objects the runtime
//! promotes get 5 * 2^28 (`_Py_IMMORTAL_INITIAL_REFCNT` in CPython's `Include/refcount.h`).
//!
//! The driver (`snapshot_end.py`) lists the addresses of every object alive at the end of start-up and keeps
//! them alive; [`immortalize`] writes their counts. Python code cannot write a count itself.

/// What precedes the list on the start-up code's stdout.
const MARKER: &[u8] = b"\0beaker-immortalize\0";

/// The least reference count CPython (32-bit) treats as immortal.
const IMMORTAL_MINIMUM: u32 = 1 << 30;

/// The count CPython gives an object it makes immortal at run time (32-bit).
const IMMORTAL_INITIAL: u32 = 5 << 28;

/// The edit, for the reactor's [`beaker_sandbox::Prepare`].
pub(crate) fn prepare() -> beaker_sandbox::Prepare {
    beaker_sandbox::Prepare {
        name: "cpython-immortalize-v2",
        edit: immortalize,
    }
}

/// Writes an immortal count into each object listed after [`MARKER`] in `stdout` (an object listed twice is
/// counted once as already immortal); returns a summary.
pub(crate) fn immortalize(memory: &mut [u8], stdout: &[u8]) -> Result<String, String> {
    let at = stdout
        .windows(MARKER.len())
        .rposition(|w| w == MARKER)
        .ok_or("the start-up code did not list its objects")?;
    let rest = &stdout[at + MARKER.len()..];
    let (count, addresses) = rest
        .split_first_chunk::<4>()
        .ok_or("the object list has no count")?;
    let count = u32::from_le_bytes(*count) as usize;
    if addresses.len() != count.saturating_mul(4) {
        return Err(format!(
            "the object list says {count} objects but holds {} bytes",
            addresses.len()
        ));
    }
    let read = |memory: &[u8], a: usize| -> Result<u32, String> {
        match memory.get(a..a + 4).filter(|_| a.is_multiple_of(4)) {
            Some(f) => Ok(u32::from_le_bytes([f[0], f[1], f[2], f[3]])),
            None => Err(format!("object address {a:#x} is not in the memory")),
        }
    };
    let listed = addresses
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize);
    // Every entry is checked before any is written: a bad list leaves the memory as it was.
    for a in listed.clone() {
        if read(memory, a)? == 0 {
            return Err(format!("the object at {a:#x} has a reference count of 0"));
        }
    }
    let (mut marked, mut already) = (0usize, 0usize);
    for a in listed {
        if read(memory, a)? >= IMMORTAL_MINIMUM {
            already += 1;
            continue;
        }
        memory[a..a + 4].copy_from_slice(&IMMORTAL_INITIAL.to_le_bytes());
        marked += 1;
    }
    Ok(format!(
        "{marked} objects marked immortal ({already} already were)"
    ))
}

#[cfg(test)]
mod tests {
    use super::{immortalize, IMMORTAL_INITIAL, MARKER};

    fn request(addresses: &[u32]) -> Vec<u8> {
        let mut out = b"printed first".to_vec();
        out.extend_from_slice(MARKER);
        out.extend_from_slice(&(addresses.len() as u32).to_le_bytes());
        for a in addresses {
            out.extend_from_slice(&a.to_le_bytes());
        }
        out
    }

    #[test]
    fn listed_counts_become_immortal_and_nothing_else_changes() {
        let mut memory = vec![0u8; 64];
        memory[8..12].copy_from_slice(&3u32.to_le_bytes());
        memory[16..20].copy_from_slice(&(7u32 << 28).to_le_bytes());
        memory[24..28].copy_from_slice(&1u32.to_le_bytes());
        let summary = immortalize(&mut memory, &request(&[8, 16])).unwrap();
        assert_eq!(summary, "1 objects marked immortal (1 already were)");
        assert_eq!(memory[8..12], IMMORTAL_INITIAL.to_le_bytes());
        assert_eq!(memory[16..20], (7u32 << 28).to_le_bytes());
        assert_eq!(memory[24..28], 1u32.to_le_bytes());
    }

    #[test]
    fn a_bad_list_is_refused_before_anything_is_written() {
        let mut memory = vec![0u8; 64];
        memory[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(immortalize(&mut memory, b"no list").is_err());
        assert!(immortalize(&mut memory, &request(&[62])).is_err());
        assert!(immortalize(&mut memory, &request(&[9])).is_err());
        assert!(immortalize(&mut memory, &request(&[4096])).is_err());
        assert!(
            immortalize(&mut memory, &request(&[32])).is_err(),
            "a count of 0 is not an object"
        );
        assert!(immortalize(&mut memory, &request(&[8, 32])).is_err());
        let mut short = request(&[8]);
        short.pop();
        assert!(immortalize(&mut memory, &short).is_err());
        assert_eq!(memory[8..12], 3u32.to_le_bytes());
    }
}
