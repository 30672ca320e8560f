//! How a guest frames its output, in one place: the locator a buffering guest begins a stream with (read here
//! when a run stops with output still in the guest's buffer) and the trailer a guest ends stdout with to hand
//! the host a report beside what the program printed (`beaker-python`'s driver uses both).

use crate::pipe::Captured;

/// What begins a stream whose guest buffers its output in its own memory, followed by three u32 addresses
/// (little-endian) of u32 values: the bytes waiting in the buffer, the buffer's address (read at the stop: the
/// buffer may move as it grows) and the bytes written to the stream before them. A run that fails (a limit, a
/// trap) may stop with output still in the buffer; the host reads it from memory, so nothing printed is lost
/// while the guest makes one host call per buffer instead of one per write. A flush writes out, empties the
/// buffer, then raises the written count, so the count tells a buffer already written out from one waiting.
pub const BUFFER_LOCATOR: &[u8] = b"\xffBKRL";

/// A stream as the guest meant it: the locator of a buffering guest removed and, when the run failed, the
/// bytes still in its buffer appended (only when the written count agrees with what reached the stream).
pub(crate) fn unbuffer(mut c: Captured, memory: Option<&[u8]>, failed: bool) -> Captured {
    let head = BUFFER_LOCATOR.len() + 12;
    let Some(locator) = c
        .bytes
        .strip_prefix(BUFFER_LOCATOR)
        .and_then(|rest| rest.first_chunk::<12>())
        .copied()
    else {
        return c;
    };
    c.bytes.drain(..head);
    c.total = c.total.saturating_sub(head as u64);
    let Some(memory) = memory.filter(|_| failed) else {
        return c;
    };
    let read = |at: usize| {
        memory
            .get(at..at.saturating_add(4))
            .and_then(|b| b.first_chunk::<4>())
            .map(|b| u32::from_le_bytes(*b) as usize)
    };
    let address = |i: usize| {
        u32::from_le_bytes([
            locator[4 * i],
            locator[4 * i + 1],
            locator[4 * i + 2],
            locator[4 * i + 3],
        ]) as usize
    };
    let (Some(waiting), Some(buffer), Some(written)) =
        (read(address(0)), read(address(1)), read(address(2)))
    else {
        return c;
    };
    if written as u64 != c.total {
        return c;
    }
    let room = c.cap.saturating_sub(c.bytes.len());
    if let Some(tail) = memory.get(buffer..buffer.saturating_add(waiting.min(room))) {
        c.bytes.extend_from_slice(tail);
        c.total = c.total.saturating_add(waiting as u64);
    }
    c
}

/// The trailer a guest ends stdout with (`driver.py` and `code_test.py` do), after its report and the report's length (u32, little-endian).
/// It starts with a byte no UTF-8 text has: what the program prints cannot forge it.
pub const TRAILER: &[u8] = b"\xffBKR";

/// A run's stdout split into what the program printed and the driver's report (`None` when the run ended
/// before the driver wrote one).
pub fn split_report(stdout: &[u8]) -> (&[u8], Option<&[u8]>) {
    let Some(rest) = stdout.strip_suffix(TRAILER) else {
        return (stdout, None);
    };
    let Some((rest, len)) = rest.split_last_chunk::<4>() else {
        return (stdout, None);
    };
    let len = u32::from_le_bytes(*len) as usize;
    match rest.len().checked_sub(len) {
        Some(at) => {
            let (printed, json) = rest.split_at(at);
            (printed, Some(json))
        }
        None => (stdout, None),
    }
}

#[cfg(test)]
mod tests {
    use super::{unbuffer, BUFFER_LOCATOR};
    use crate::pipe::Captured;

    /// Memory with the waiting count at 0, the buffer's address (32) at 4, the written count at 8, and "tail"
    /// in the buffer.
    fn memory(written: u32, waiting: u32) -> Vec<u8> {
        let mut m = vec![0u8; 64];
        m[0..4].copy_from_slice(&waiting.to_le_bytes());
        m[4..8].copy_from_slice(&32u32.to_le_bytes());
        m[8..12].copy_from_slice(&written.to_le_bytes());
        m[32..36].copy_from_slice(b"tail");
        m
    }

    fn stream(printed: &[u8]) -> Captured {
        let mut bytes = BUFFER_LOCATOR.to_vec();
        for w in [0u32, 4, 8] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes.extend_from_slice(printed);
        Captured {
            total: bytes.len() as u64,
            bytes,
            cap: 1 << 10,
        }
    }

    #[test]
    fn a_stopped_run_gets_what_waited_in_its_buffer() {
        let c = unbuffer(stream(b"head "), Some(&memory(5, 4)), true);
        assert_eq!(c.bytes, b"head tail");
        assert_eq!(c.total, 9);
    }

    #[test]
    fn a_buffer_written_out_just_before_the_stop_is_not_added_twice() {
        // The stream already holds the buffer's 4 bytes, but the counter was not updated yet.
        let c = unbuffer(stream(b"head tail"), Some(&memory(5, 4)), true);
        assert_eq!(c.bytes, b"head tail");
    }

    #[test]
    fn a_run_that_ended_normally_only_loses_the_locator() {
        let c = unbuffer(stream(b"all of it"), Some(&memory(9, 4)), false);
        assert_eq!(c.bytes, b"all of it");
        assert_eq!(c.total, 9);
    }

    #[test]
    fn streams_without_a_locator_and_bad_locators_are_left_alone() {
        let plain = Captured {
            bytes: b"plain".to_vec(),
            total: 5,
            cap: 1 << 10,
        };
        assert_eq!(unbuffer(plain, Some(&memory(5, 4)), true).bytes, b"plain");
        // Counts or a buffer outside the memory add nothing.
        assert_eq!(unbuffer(stream(b"x"), Some(&[0u8; 8]), true).bytes, b"x");
        assert_eq!(
            unbuffer(stream(b"x"), Some(&memory(1, 40)), true).bytes,
            b"x"
        );
        // More waiting than the stream has room for is cut at its cap.
        let mut small = stream(b"head ");
        small.cap = small.bytes.len() - BUFFER_LOCATOR.len() - 12 + 2;
        assert_eq!(unbuffer(small, Some(&memory(5, 4)), true).bytes, b"head ta");
    }
}
