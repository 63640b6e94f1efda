//! Generated output of an exact size: `--fill` repeated, cut at exactly N bytes, with an
//! optional `\n` after every L fill bytes.
//!
//! Scenarios about output capture and caps need huge, exactly-sized streams, so bytes are
//! produced in large chunks copied from a pre-repeated pattern, never all at once.

use std::io::{self, Write};

/// Size of one generated chunk (and of each write).
pub const CHUNK: usize = 256 * 1024;

/// A generator of exactly `total` bytes of repeated fill text.
#[derive(Debug, Clone)]
pub struct Fill {
    /// The fill text repeated so any `CHUNK`-long window starting within the first
    /// repetition is contiguous.
    rep: Vec<u8>,
    fill_len: usize,
    line_length: Option<usize>,
    /// Position within the fill text of the next fill byte.
    pos: usize,
    /// Fill bytes already on the current line.
    col: usize,
    remaining: u64,
}

impl Fill {
    /// A generator of `total` bytes; `fill` must not be empty and `line_length` not zero.
    pub fn new(fill: &[u8], total: u64, line_length: Option<usize>) -> Result<Self, String> {
        if fill.is_empty() {
            return Err("--fill must not be empty".into());
        }
        if line_length == Some(0) {
            return Err("--line-length must be at least 1".into());
        }
        let copies = (CHUNK + fill.len()).div_ceil(fill.len());
        Ok(Self {
            rep: fill.repeat(copies),
            fill_len: fill.len(),
            line_length,
            pos: 0,
            col: 0,
            remaining: total,
        })
    }

    /// Fills `buf` with the next chunk (at most [`CHUNK`] bytes); `false` once done.
    pub fn next_chunk(&mut self, buf: &mut Vec<u8>) -> bool {
        buf.clear();
        let want = usize::try_from(self.remaining).map_or(CHUNK, |r| r.min(CHUNK));
        while buf.len() < want {
            if self.line_length == Some(self.col) {
                buf.push(b'\n');
                self.col = 0;
                continue;
            }
            let mut run = want - buf.len();
            if let Some(line_length) = self.line_length {
                run = run.min(line_length - self.col);
            }
            buf.extend_from_slice(&self.rep[self.pos..self.pos + run]);
            self.pos = (self.pos + run) % self.fill_len;
            self.col += run;
        }
        self.remaining -= want as u64;
        want > 0
    }

    /// Writes every remaining byte to `out`, chunk by chunk.
    pub fn write_to<W: Write>(mut self, out: &mut W) -> io::Result<()> {
        let mut buf = Vec::with_capacity(CHUNK);
        while self.next_chunk(&mut buf) {
            out.write_all(&buf)?;
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious byte-at-a-time definition the chunked generator must match.
    fn reference(fill: &[u8], total: usize, line_length: Option<usize>) -> Vec<u8> {
        let mut out = Vec::with_capacity(total);
        let (mut pos, mut col) = (0, 0);
        while out.len() < total {
            if line_length == Some(col) {
                out.push(b'\n');
                col = 0;
            } else {
                out.push(fill[pos % fill.len()]);
                pos += 1;
                col += 1;
            }
        }
        out
    }

    fn generate(fill: &[u8], total: u64, line_length: Option<usize>) -> Vec<u8> {
        let mut out = Vec::new();
        Fill::new(fill, total, line_length)
            .expect("valid fill")
            .write_to(&mut out)
            .expect("writing to a Vec");
        out
    }

    #[test]
    fn matches_the_reference_for_many_sizes() {
        let fills: [&[u8]; 4] = [b"x", b"abc", "é∑".as_bytes(), &[b'q'; 1000]];
        let sizes = [
            0,
            1,
            2,
            3,
            7,
            100,
            1023,
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            3 * CHUNK + 17,
        ];
        let line_lengths = [None, Some(1), Some(2), Some(5), Some(80), Some(CHUNK + 3)];
        for fill in fills {
            for &n in &sizes {
                for line_length in line_lengths {
                    let got = generate(fill, n as u64, line_length);
                    assert_eq!(got.len(), n, "fill {fill:?} n {n} line {line_length:?}");
                    assert!(
                        got == reference(fill, n, line_length),
                        "content differs: fill {fill:?} n {n} line {line_length:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn lines_have_exactly_the_requested_length() {
        let out = generate(b"ab", 1000, Some(7));
        let text = String::from_utf8(out).expect("ascii");
        let mut lines: Vec<&str> = text.split('\n').collect();
        let last = lines.pop().unwrap_or_default();
        assert!(lines.iter().all(|l| l.len() == 7));
        assert!(last.len() <= 7);
    }

    #[test]
    fn multibyte_fill_is_cut_mid_character() {
        let out = generate("é".as_bytes(), 3, None);
        assert_eq!(out, [0xc3, 0xa9, 0xc3]);
    }

    #[test]
    fn invalid_settings_are_rejected() {
        assert!(Fill::new(b"", 1, None).is_err());
        assert!(Fill::new(b"x", 1, Some(0)).is_err());
    }
}
