//! Bounded capture of one output stream: a fixed-capacity prefix plus exact byte counters.
//!
//! The buffer is allocated once at its limit and never grows, so retained memory is O(1) in
//! the volume a child writes; everything past the cap is counted and discarded.

/// The marker text appended when output was discarded; `N` is inserted between the parts.
const MARKER_PREFIX: &str = "\n[ToolHub discarded ";
const MARKER_SUFFIX: &str = " output bytes]";

/// Fixed-capacity capture of one stream: keeps the first `limit` bytes, counts everything.
///
/// Exists so a child writing gigabytes can never grow the server's memory: the drain loop
/// pushes every chunk it reads, and only the prefix is copied.
#[derive(Debug)]
pub struct CaptureBuffer {
    buf: Vec<u8>,
    limit: usize,
    total: u64,
}

impl CaptureBuffer {
    /// Allocates `limit` bytes once; the buffer never grows beyond it.
    pub fn new(limit: usize) -> Self {
        Self {
            buf: Vec::with_capacity(limit),
            limit,
            total: 0,
        }
    }

    /// Counts `chunk` and keeps as much of it as still fits under the limit.
    pub fn push(&mut self, chunk: &[u8]) {
        self.total = self.total.saturating_add(chunk.len() as u64);
        let take = (self.limit - self.buf.len()).min(chunk.len());
        self.buf.extend_from_slice(&chunk[..take]);
    }

    /// Counts `n` bytes that were discarded without being read into memory (e.g. spliced
    /// to `/dev/null`). Only valid once the buffer is full, which the caller checks with
    /// [`CaptureBuffer::is_full`].
    pub fn count_discarded(&mut self, n: u64) {
        self.total = self.total.saturating_add(n);
    }

    /// True once the retained prefix reached the limit: further bytes are only counted.
    pub fn is_full(&self) -> bool {
        self.buf.len() >= self.limit
    }

    /// The final counters and the retained prefix.
    pub fn finish(self) -> Captured {
        let retained = self.buf.len() as u64;
        Captured {
            bytes: self.buf,
            total_bytes: self.total,
            retained_bytes: retained,
            dropped_bytes: self.total - retained,
        }
    }
}

/// What one stream produced: the retained prefix and exact counters for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// Retained bytes (at most the capture limit).
    pub bytes: Vec<u8>,
    /// Everything read from the pipe.
    pub total_bytes: u64,
    /// Equal to `bytes.len()`.
    pub retained_bytes: u64,
    /// `total_bytes - retained_bytes`.
    pub dropped_bytes: u64,
}

impl Captured {
    /// Retained text: bytes decoded as UTF-8 (invalid sequences -> U+FFFD), except that an
    /// incomplete UTF-8 sequence at the very end of a TRUNCATED buffer is dropped whole (its
    /// bytes count as discarded). When anything was discarded the text is followed by
    /// `"\n[ToolHub discarded N output bytes]"`, N = total_bytes - bytes represented in the
    /// text. Exists so callers report truncation deterministically and never show a
    /// replacement character that only the cap produced.
    pub fn text_with_marker(&self) -> String {
        let mut text = self.text();
        let n = self.discarded_bytes();
        if n > 0 {
            text.push_str(MARKER_PREFIX);
            text.push_str(&n.to_string());
            text.push_str(MARKER_SUFFIX);
        }
        text
    }

    /// N of the marker (0 when nothing discarded): total minus the bytes the text represents.
    pub fn discarded_bytes(&self) -> u64 {
        self.total_bytes - self.represented().len() as u64
    }

    /// Characters of retained text (before the marker), for audit character counts.
    pub fn retained_chars(&self) -> usize {
        self.text().chars().count()
    }

    /// The retained text without the marker.
    fn text(&self) -> String {
        String::from_utf8_lossy(self.represented()).into_owned()
    }

    /// The retained bytes minus an incomplete UTF-8 sequence cut by the cap.
    fn represented(&self) -> &[u8] {
        if self.dropped_bytes == 0 {
            return &self.bytes;
        }
        let cut = incomplete_tail_len(&self.bytes);
        &self.bytes[..self.bytes.len() - cut]
    }
}

/// Length of an incomplete (but so far valid) UTF-8 sequence at the end of `bytes`, or 0.
///
/// Only the last lead byte within the final three bytes matters: a sequence is at most four
/// bytes long, so an incomplete one has at most three. Genuinely invalid bytes are left for
/// the lossy decoder, because the child produced them, not the cut.
fn incomplete_tail_len(bytes: &[u8]) -> usize {
    let start = bytes.len().saturating_sub(3);
    let Some(lead) = (start..bytes.len())
        .rev()
        .find(|&i| bytes[i] & 0b1100_0000 != 0b1000_0000)
    else {
        return 0;
    };
    match std::str::from_utf8(&bytes[lead..]) {
        Err(e) if e.error_len().is_none() && e.valid_up_to() == 0 => bytes.len() - lead,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(limit: usize, chunks: &[&[u8]]) -> Captured {
        let mut c = CaptureBuffer::new(limit);
        for chunk in chunks {
            c.push(chunk);
        }
        c.finish()
    }

    #[test]
    fn utf8_char_split_at_cap_is_dropped_whole() {
        // "é" is two bytes; the cap keeps "ab" plus its first byte.
        let c = capture(3, &["abé".as_bytes(), b"xyz"]);
        assert_eq!(c.retained_bytes, 3);
        assert_eq!(c.dropped_bytes, 4);
        assert_eq!(c.discarded_bytes(), 5);
        assert_eq!(
            c.text_with_marker(),
            "ab\n[ToolHub discarded 5 output bytes]"
        );
        assert_eq!(c.retained_chars(), 2);
    }

    #[test]
    fn four_byte_char_split_at_every_position() {
        let smiley = "😀".as_bytes();
        for keep in 1..4 {
            let c = capture(2 + keep, &[b"ok", smiley, b"!"]);
            let text = c.text_with_marker();
            assert!(!text.contains('\u{FFFD}'), "{text:?}");
            assert_eq!(c.discarded_bytes(), 5, "keep {keep}");
            assert!(text.starts_with("ok\n[ToolHub discarded 5 output bytes]"));
        }
    }

    #[test]
    fn output_without_newline_is_kept_as_is() {
        let c = capture(100, &[b"no newline"]);
        assert_eq!(c.text_with_marker(), "no newline");
        assert_eq!(c.discarded_bytes(), 0);
    }

    #[test]
    fn exactly_at_limit_has_no_marker() {
        let c = capture(4, &[b"ab", b"cd"]);
        assert_eq!(c.dropped_bytes, 0);
        assert_eq!(c.text_with_marker(), "abcd");
        // An incomplete sequence that is the child's real last output is not a cut.
        let c = capture(3, &[b"a", &[0xC3]]);
        assert_eq!(c.text_with_marker(), "a\u{FFFD}");
    }

    #[test]
    fn invalid_bytes_before_the_cut_stay_replacement_characters() {
        let c = capture(3, &[&[b'a', 0xFF, b'b', b'c']]);
        assert_eq!(
            c.text_with_marker(),
            "a\u{FFFD}b\n[ToolHub discarded 1 output bytes]"
        );
        // An invalid byte right at the cap is the child's, not a cut sequence: kept.
        let c = capture(2, &[&[b'a', 0xFF, b'c']]);
        assert_eq!(
            c.text_with_marker(),
            "a\u{FFFD}\n[ToolHub discarded 1 output bytes]"
        );
        assert_eq!(c.discarded_bytes(), 1);
        // A lone continuation byte at the cap is invalid output, not a cut sequence.
        let c = capture(2, &[&[b'a', 0x80, b'c']]);
        assert_eq!(
            c.text_with_marker(),
            "a\u{FFFD}\n[ToolHub discarded 1 output bytes]"
        );
    }

    #[test]
    fn zero_limit_counts_everything() {
        let c = capture(0, &[b"abc"]);
        assert_eq!(c.text_with_marker(), "\n[ToolHub discarded 3 output bytes]");
    }
}
