//! Reading a trace file in bounded pieces: lines (capped) and records (the lines of one example).

use crate::MAX_RECORD_BYTES;
use std::io::{self, BufRead};

/// The UTF-8 byte order mark some editors put at the start of a file: not part of the first line's text.
pub(crate) const BOM: &[u8] = b"\xef\xbb\xbf";

/// Reads one line (through its `\n`) into `buf`, keeping at most `cap` bytes and skipping the rest of a
/// longer line. Returns the bytes the line had (0 at the end of input) and whether it was cut.
pub(crate) fn read_line_capped(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<(usize, bool)> {
    buf.clear();
    let mut total = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((total, total > buf.len()));
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len()).min(take);
        buf.extend_from_slice(&chunk[..room]);
        total += take;
        reader.consume(take);
        if done {
            return Ok((total, total > buf.len()));
        }
    }
}

/// One example of a text trace: the lines from a starter line (`Q:`, `User:`) to the next, or the lines
/// before the first starter (the file's header).
#[derive(Debug, Default)]
pub(crate) struct Record {
    /// The line number of the record's first line (from 1).
    pub first_line: usize,
    /// The record's text (invalid UTF-8 replaced).
    pub text: String,
    /// Byte offsets in `text` where each line starts.
    line_starts: Vec<usize>,
    /// Lines (file line numbers) that were not valid UTF-8.
    pub bad_utf8: Vec<usize>,
    /// Whether the record was longer than [`MAX_RECORD_BYTES`] (its text is then cut).
    pub too_long: bool,
    /// Whether this is the part before the first starter line.
    pub preamble: bool,
}

impl Record {
    /// Line and column (characters, from 1) of byte `at` of the text.
    pub fn pos(&self, at: usize) -> (usize, usize) {
        let i = self.line_starts.partition_point(|&s| s <= at).max(1) - 1;
        let start = self.line_starts.get(i).copied().unwrap_or(0);
        let at = at.min(self.text.len());
        let col = self
            .text
            .get(start..at)
            .map_or(1, |s| s.chars().count() + 1);
        (self.first_line + i, col)
    }

    /// The lines of the record, each with its file line number and its byte offset in `text`.
    pub fn lines(&self) -> impl Iterator<Item = (usize, usize, &str)> + '_ {
        self.line_starts.iter().enumerate().map(move |(i, &s)| {
            let end = self
                .line_starts
                .get(i + 1)
                .copied()
                .unwrap_or(self.text.len());
            (self.first_line + i, s, &self.text[s..end])
        })
    }

    fn push_line(&mut self, line_no: usize, bytes: &[u8]) {
        if self.line_starts.is_empty() {
            self.first_line = line_no;
        }
        if self.text.len() + bytes.len() > MAX_RECORD_BYTES {
            self.too_long = true;
            return;
        }
        self.line_starts.push(self.text.len());
        match std::str::from_utf8(bytes) {
            Ok(s) => self.text.push_str(s),
            Err(_) => {
                self.bad_utf8.push(line_no);
                self.text.push_str(&String::from_utf8_lossy(bytes));
            }
        }
    }
}

/// Splits a text trace into [`Record`]s, one line read at a time.
pub(crate) struct Records<R> {
    reader: R,
    starters: &'static [&'static str],
    line_no: usize,
    /// A starter line read ahead: it opens the next record.
    ahead: Option<(usize, Vec<u8>)>,
    started: bool,
    done: bool,
    buf: Vec<u8>,
}

impl<R: BufRead> Records<R> {
    /// Records of `reader`, each starting at a line that begins with one of `starters`.
    pub fn new(reader: R, starters: &'static [&'static str]) -> Self {
        Records {
            reader,
            starters,
            line_no: 0,
            ahead: None,
            started: false,
            done: false,
            buf: Vec::new(),
        }
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> usize {
        self.line_no
    }

    fn is_starter(&self, line: &[u8]) -> bool {
        self.starters.iter().any(|s| line.starts_with(s.as_bytes()))
    }

    /// The next record, or `None` at the end of the input.
    pub fn next_record(&mut self) -> io::Result<Option<Record>> {
        if self.done && self.ahead.is_none() {
            return Ok(None);
        }
        let mut rec = Record::default();
        match self.ahead.take() {
            Some((n, line)) => rec.push_line(n, &line),
            None => rec.preamble = !self.started,
        }
        loop {
            if self.done {
                break;
            }
            let (n, cut) = read_line_capped(&mut self.reader, &mut self.buf, MAX_RECORD_BYTES)?;
            if n == 0 {
                self.done = true;
                break;
            }
            self.line_no += 1;
            if self.line_no == 1 && self.buf.starts_with(BOM) {
                self.buf.drain(..BOM.len());
            }
            if cut {
                rec.too_long = true;
            }
            if self.is_starter(&self.buf) {
                self.started = true;
                if !rec.line_starts.is_empty() || rec.too_long {
                    self.ahead = Some((self.line_no, std::mem::take(&mut self.buf)));
                    break;
                }
                rec.preamble = false;
            }
            let line = std::mem::take(&mut self.buf);
            rec.push_line(self.line_no, &line);
            self.buf = line;
        }
        if rec.line_starts.is_empty() && !rec.too_long {
            return Ok(None);
        }
        Ok(Some(rec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str) -> Vec<(usize, bool, String)> {
        let mut r = Records::new(text.as_bytes(), &["Q:"]);
        let mut out = Vec::new();
        while let Some(rec) = r.next_record().expect("read") {
            out.push((rec.first_line, rec.preamble, rec.text));
        }
        out
    }

    #[test]
    fn splits_at_starters_and_keeps_the_header_apart() {
        assert_eq!(
            records("\"\"\"h\"\"\"\n\nQ: a\nA: b\nQ: c\nA: d"),
            vec![
                (1, true, "\"\"\"h\"\"\"\n\n".into()),
                (3, false, "Q: a\nA: b\n".into()),
                (5, false, "Q: c\nA: d".into()),
            ]
        );
        assert_eq!(
            records("Q: a\nA: b\n"),
            vec![(1, false, "Q: a\nA: b\n".into())]
        );
        assert!(records("").is_empty());
    }

    #[test]
    fn positions_count_characters() {
        let mut r = Records::new("Q: é<x>\nA: <y>".as_bytes(), &["Q:"]);
        let rec = r.next_record().expect("read").expect("record");
        let at = rec.text.find("<x>").expect("x");
        assert_eq!(rec.pos(at), (1, 5));
        let at = rec.text.find("<y>").expect("y");
        assert_eq!(rec.pos(at), (2, 4));
    }

    #[test]
    fn a_long_line_is_cut_not_held() {
        let mut buf = Vec::new();
        let text = format!("{}\nnext\n", "x".repeat(100));
        let mut reader = text.as_bytes();
        assert_eq!(
            read_line_capped(&mut reader, &mut buf, 10).expect("read"),
            (101, true)
        );
        assert_eq!(buf.len(), 10);
        assert_eq!(
            read_line_capped(&mut reader, &mut buf, 10).expect("read"),
            (5, false)
        );
        assert_eq!(buf, b"next\n");
    }
}
