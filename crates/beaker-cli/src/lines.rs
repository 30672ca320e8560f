//! Reading newline-delimited requests with a cap on line length that never buffers past the cap.

use std::io::{self, BufRead};

/// One read.
pub enum Line {
    /// A complete line (without its newline).
    Data,
    /// A line longer than the cap; its bytes were skipped but the first [`TOO_LONG_PREFIX`] (for reading its
    /// id). Holds its length.
    TooLong(usize),
    /// End of input.
    Eof,
}

/// Bytes of a too-long line kept to read its id from.
pub const TOO_LONG_PREFIX: usize = 64 << 10;

/// Reads the next line into `buf` (cleared first), keeping at most `cap` bytes.
pub fn read_line_capped(r: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<Line> {
    buf.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (any, total > cap) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong(total),
                (true, false) => Line::Data,
            });
        }
        any = true;
        let (part, found) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..i], Some(i)),
            None => (chunk, None),
        };
        if total + part.len() <= cap {
            buf.extend_from_slice(part);
        } else {
            // Over the cap: keep only the line's first bytes, enough to read its id for the refusal.
            buf.truncate(TOO_LONG_PREFIX);
            let keep = TOO_LONG_PREFIX.saturating_sub(buf.len()).min(part.len());
            buf.extend_from_slice(&part[..keep]);
        }
        total += part.len();
        let used = found.map_or(chunk.len(), |i| i + 1);
        r.consume(used);
        if found.is_some() {
            return Ok(if total > cap {
                Line::TooLong(total)
            } else {
                Line::Data
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_skipped_and_the_next_one_is_read() {
        let input = format!("{}\nok\nlast", "x".repeat(100));
        let mut r = io::BufReader::with_capacity(7, input.as_bytes());
        let mut buf = Vec::new();
        assert!(matches!(
            read_line_capped(&mut r, &mut buf, 10).unwrap(),
            Line::TooLong(100)
        ));
        assert!(matches!(
            read_line_capped(&mut r, &mut buf, 10).unwrap(),
            Line::Data
        ));
        assert_eq!(buf, b"ok");
        assert!(matches!(
            read_line_capped(&mut r, &mut buf, 10).unwrap(),
            Line::Data
        ));
        assert_eq!(buf, b"last");
        assert!(matches!(
            read_line_capped(&mut r, &mut buf, 10).unwrap(),
            Line::Eof
        ));
    }
}
