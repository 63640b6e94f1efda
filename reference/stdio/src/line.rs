//! Bounded line reading, shared by the guard (the server's stdin) and by clients reading a
//! peer's stdout: an oversized line is consumed up to its newline in constant memory, never
//! buffered whole; only its first bytes are kept, so the reader can tell whose line it was.
//!
//! The limit is the same for every reference server: [`MAX_LINE_BYTES`] by default, or the
//! value of the [`LINE_LIMIT_ENV`] environment variable (see [`max_line_bytes`]).

use std::sync::OnceLock;

use serde_json::Value;
use tokio::io::AsyncBufReadExt;

/// Default longest accepted line, newline excluded (rmcp's own default): 16 MiB.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The environment variable that sets the line limit (decimal bytes).
pub const LINE_LIMIT_ENV: &str = "MCP_MAX_LINE_BYTES";

/// Smallest limit [`LINE_LIMIT_ENV`] may set (an `initialize` request must fit).
pub const MIN_LINE_BYTES: usize = 1024;

/// Largest limit [`LINE_LIMIT_ENV`] may set: 1 GiB.
pub const MAX_CONFIGURABLE_LINE_BYTES: usize = 1024 * 1024 * 1024;

/// How many first bytes of an oversized line [`read_bounded_line`] keeps.
pub const OVERSIZED_HEAD_BYTES: usize = 4096;

/// One read by [`read_bounded_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line (with its newline, if it had one) is in the buffer.
    Line,
    /// A line longer than the limit was consumed up to its newline; the buffer holds its
    /// first bytes only (at most [`OVERSIZED_HEAD_BYTES`], and never more than the limit).
    Oversized,
    /// End of input.
    Eof,
}

/// Reads one line of at most `max` bytes (its newline not counted) into `buf` (cleared
/// first). A final line without a newline is still a line. A longer line is consumed to its
/// end without being kept: `buf` then holds only its head. The caller is the only reader, so
/// cancellation safety is not needed.
pub async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    let mut line = Bounded::new(buf, max);
    loop {
        let available = reader.fill_buf().await?;
        let (taken, done) = line.take(available);
        reader.consume(taken);
        if let Some(read) = done {
            return Ok(read);
        }
    }
}

/// [`read_bounded_line`] over a blocking reader: for the threads that read a pipe by
/// blocking on it (the guard's stdin, an upstream's stdout in mcp-hub), where a readiness
/// loop would cost two more system calls and a wakeup per line.
pub fn read_bounded_line_blocking<R: std::io::BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    let mut line = Bounded::new(buf, max);
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (taken, done) = line.take(available);
        reader.consume(taken);
        if let Some(read) = done {
            return Ok(read);
        }
    }
}

/// One bounded line being read, whichever way its bytes arrive.
struct Bounded<'a> {
    buf: &'a mut Vec<u8>,
    max: usize,
    head: usize,
    oversized: bool,
}

impl<'a> Bounded<'a> {
    fn new(buf: &'a mut Vec<u8>, max: usize) -> Self {
        buf.clear();
        Self {
            buf,
            max,
            head: OVERSIZED_HEAD_BYTES.min(max),
            oversized: false,
        }
    }

    /// Takes what the line needs of `available` (empty: end of input): how many bytes to
    /// consume, and the outcome once the line is complete.
    fn take(&mut self, available: &[u8]) -> (usize, Option<LineRead>) {
        if available.is_empty() {
            let read = if self.oversized {
                LineRead::Oversized
            } else if self.buf.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            };
            return (0, Some(read));
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        let content = newline.map_or(take, |i| i);
        if !self.oversized {
            if self.buf.len() + content > self.max {
                self.oversized = true;
                let room = self.head.saturating_sub(self.buf.len());
                self.buf.extend_from_slice(&available[..content.min(room)]);
                self.buf.truncate(self.head);
            } else {
                self.buf.extend_from_slice(&available[..take]);
            }
        }
        let done = newline.map(|_| {
            if self.oversized {
                LineRead::Oversized
            } else {
                LineRead::Line
            }
        });
        (take, done)
    }
}

/// Parses a value of [`LINE_LIMIT_ENV`]: unset or empty gives the default, anything else
/// must be a decimal number of bytes from [`MIN_LINE_BYTES`] to
/// [`MAX_CONFIGURABLE_LINE_BYTES`].
pub fn parse_line_limit(value: Option<&str>) -> Result<usize, String> {
    let Some(raw) = value.filter(|v| !v.is_empty()) else {
        return Ok(MAX_LINE_BYTES);
    };
    let invalid = || {
        format!(
            "invalid {LINE_LIMIT_ENV} `{}`: expected a number of bytes from {MIN_LINE_BYTES} to \
             {MAX_CONFIGURABLE_LINE_BYTES}",
            raw.escape_default()
        )
    };
    if !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    match raw.parse::<usize>() {
        Ok(n) if (MIN_LINE_BYTES..=MAX_CONFIGURABLE_LINE_BYTES).contains(&n) => Ok(n),
        _ => Err(invalid()),
    }
}

/// The line limit of this process: [`LINE_LIMIT_ENV`] read once, or an error line naming
/// the bad value.
pub fn max_line_bytes() -> Result<usize, String> {
    static LIMIT: OnceLock<Result<usize, String>> = OnceLock::new();
    LIMIT
        .get_or_init(|| match std::env::var(LINE_LIMIT_ENV) {
            Ok(v) => parse_line_limit(Some(&v)),
            Err(std::env::VarError::NotPresent) => Ok(MAX_LINE_BYTES),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(format!("invalid {LINE_LIMIT_ENV}: not valid UTF-8"))
            }
        })
        .clone()
}

/// What the first bytes of an oversized line tell about it, read without trusting them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineHead {
    /// The head starts like a JSON value (`{` or `[` after whitespace) and is valid UTF-8
    /// (except for a character cut at its end): the whole line may be a valid message.
    pub maybe_json: bool,
    /// The top-level `id`, when it is an integer or a plain string written in full in the
    /// head (and no second `id` key follows within it).
    pub id: Option<Value>,
    /// A top-level `method` key was seen: a request or notification, not a response.
    pub has_method: bool,
    /// A top-level `result` or `error` key was seen: a response.
    pub has_outcome: bool,
}

/// Reads the head of an oversized line with a small, bounded scanner: only top-level keys of
/// an object are looked at, and any doubt gives no `id`.
pub fn scan_head(head: &[u8]) -> LineHead {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        // A multi-byte character cut by the head's end is not an encoding error.
        Err(e) => e.error_len().is_none(),
    };
    let mut s = Scanner { b: head, i: 0 };
    s.ws();
    let first = s.peek();
    let mut out = LineHead {
        maybe_json: utf8 && matches!(first, Some(b'{' | b'[')),
        ..LineHead::default()
    };
    if !out.maybe_json || first != Some(b'{') {
        return out;
    }
    s.i += 1;
    let mut ids = 0;
    let mut id = None;
    // Each member: key, colon, value; stop at the first thing not understood.
    loop {
        s.ws();
        let Some(key) = s.string() else { break };
        s.ws();
        if s.peek() != Some(b':') {
            break;
        }
        s.i += 1;
        s.ws();
        match key.as_str() {
            "id" => {
                ids += 1;
                id = s.scalar_id();
                if id.is_none() && !s.skip_value() {
                    break;
                }
            }
            k => {
                out.has_method |= k == "method";
                out.has_outcome |= k == "result" || k == "error";
                if !s.skip_value() {
                    break;
                }
            }
        }
        s.ws();
        if s.peek() != Some(b',') {
            break;
        }
        s.i += 1;
    }
    out.id = if ids == 1 { id } else { None };
    out
}

/// A cursor over the head.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }

    /// A complete string at the cursor, decoded; `None` (cursor unspecified) otherwise.
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        self.skip_string()?;
        serde_json::from_slice::<String>(&self.b[start..self.i]).ok()
    }

    /// Moves past a complete string.
    fn skip_string(&mut self) -> Option<()> {
        if self.peek() != Some(b'"') {
            return None;
        }
        self.i += 1;
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => self.i += 2,
                _ => self.i += 1,
            }
        }
    }

    /// An integer or string `id` value that ends (`,` or `}` follows) inside the head; the
    /// cursor is back at the value's start when there is none.
    fn scalar_id(&mut self) -> Option<Value> {
        let start = self.i;
        let value = self.scalar_id_at();
        if value.is_none() {
            self.i = start;
        }
        value
    }

    fn scalar_id_at(&mut self) -> Option<Value> {
        let start = self.i;
        let value = match self.peek()? {
            b'"' => Value::String(self.string()?),
            b'-' | b'0'..=b'9' => {
                while matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                    self.i += 1;
                }
                let n = serde_json::from_slice::<Value>(&self.b[start..self.i]).ok()?;
                if !(n.is_i64() || n.is_u64()) {
                    return None;
                }
                n
            }
            _ => return None,
        };
        let end = self.i;
        self.ws();
        let terminated = matches!(self.peek(), Some(b',' | b'}'));
        self.i = end;
        terminated.then_some(value)
    }

    /// Moves past a complete value; false when it does not end inside the head.
    fn skip_value(&mut self) -> bool {
        let mut depth = 0usize;
        loop {
            let Some(b) = self.peek() else { return false };
            match b {
                b'"' => {
                    if self.skip_string().is_none() {
                        return false;
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' => {
                    if depth == 0 {
                        return true;
                    }
                    depth -= 1;
                    self.i += 1;
                }
                b',' if depth == 0 => return true,
                _ => self.i += 1,
            }
            if depth == 0 && matches!(self.peek(), Some(b',' | b'}')) {
                return true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::test_io::Interrupted;

    /// Lines, an oversized one (its head kept, bounded by the limit), one of exactly the
    /// limit (newline not counted) and a final partial one, through a 4-byte buffer.
    const INPUT: &[u8] = b"ab\ntoo long line\n12345678\ncd";

    fn expected() -> Vec<(LineRead, String)> {
        vec![
            (LineRead::Line, "ab\n".to_owned()),
            (LineRead::Oversized, "too long".to_owned()),
            (LineRead::Line, "12345678\n".to_owned()),
            (LineRead::Line, "cd".to_owned()),
        ]
    }

    /// Records each read until the end of input.
    fn record(
        seen: &mut Vec<(LineRead, String)>,
        read: std::io::Result<LineRead>,
        buf: &[u8],
    ) -> bool {
        match read {
            Ok(LineRead::Eof) => false,
            Ok(read) => {
                seen.push((read, String::from_utf8_lossy(buf).into_owned()));
                true
            }
            Err(e) => panic!("{e}"),
        }
    }

    /// Every line the blocking reader reads from `input`, through a 4-byte buffer.
    fn read_all_blocking(input: impl std::io::Read) -> Vec<(LineRead, String)> {
        let mut reader = std::io::BufReader::with_capacity(4, input);
        let (mut buf, mut seen) = (Vec::new(), Vec::new());
        while record(
            &mut seen,
            read_bounded_line_blocking(&mut reader, &mut buf, 8),
            &buf,
        ) {}
        seen
    }

    #[tokio::test]
    async fn lines_oversized_lines_and_a_final_partial_line() {
        let mut reader = tokio::io::BufReader::with_capacity(4, INPUT);
        let (mut buf, mut seen) = (Vec::new(), Vec::new());
        while record(
            &mut seen,
            read_bounded_line(&mut reader, &mut buf, 8).await,
            &buf,
        ) {}
        assert_eq!(seen, expected());
    }

    #[test]
    fn the_blocking_reader_reads_the_same_lines() {
        assert_eq!(read_all_blocking(INPUT), expected());
    }

    #[test]
    fn an_interrupted_read_is_retried() {
        let input = Interrupted::new(INPUT, None);
        assert_eq!(read_all_blocking(input), expected());
    }

    #[test]
    fn any_other_read_error_is_returned() {
        let input = Interrupted::new(INPUT, Some(std::io::ErrorKind::BrokenPipe));
        let mut reader = std::io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let read = read_bounded_line_blocking(&mut reader, &mut buf, 8).map_err(|e| e.kind());
        assert_eq!(read, Err(std::io::ErrorKind::BrokenPipe));
    }

    #[tokio::test]
    async fn an_oversized_line_keeps_only_its_head() {
        let mut line = br#"{"jsonrpc":"2.0","id":7,"params":""#.to_vec();
        line.resize(100_000, b'x');
        line.extend_from_slice(b"\"}\n{}\n");
        let mut reader = tokio::io::BufReader::with_capacity(512, &line[..]);
        let mut buf = Vec::new();
        let read = read_bounded_line(&mut reader, &mut buf, 10_000).await;
        assert_eq!(read.expect("read"), LineRead::Oversized);
        assert_eq!(buf.len(), OVERSIZED_HEAD_BYTES);
        assert_eq!(scan_head(&buf).id, Some(json!(7)));
        let read = read_bounded_line(&mut reader, &mut buf, 10_000).await;
        assert_eq!(read.expect("read"), LineRead::Line);
        assert_eq!(buf, b"{}\n");
    }

    #[test]
    fn the_limit_comes_from_a_checked_value() {
        assert_eq!(parse_line_limit(None), Ok(MAX_LINE_BYTES));
        assert_eq!(parse_line_limit(Some("")), Ok(MAX_LINE_BYTES));
        assert_eq!(parse_line_limit(Some("65536")), Ok(65536));
        // The default is 16 MiB; a set limit is 1,024 bytes to 1 GiB, both ends included.
        assert_eq!(MAX_LINE_BYTES, 16_777_216);
        assert_eq!(parse_line_limit(Some("1024")), Ok(1024));
        assert_eq!(parse_line_limit(Some("1073741824")), Ok(1_073_741_824));
        for bad in [
            "1023",
            "1073741825",
            "abc",
            "-1",
            "+5",
            "1e6",
            "100",
            "99999999999999999999999",
            " 4096",
        ] {
            let e = parse_line_limit(Some(bad)).expect_err(bad);
            assert!(e.starts_with("invalid MCP_MAX_LINE_BYTES"), "{e}");
        }
    }

    #[test]
    fn the_head_gives_an_id_only_when_sure() {
        let cases: &[(&[u8], Option<Value>)] = &[
            (
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"xx"#,
                Some(json!(7)),
            ),
            (
                br#"{"jsonrpc":"2.0","id":"a\"b","method":"x"#,
                Some(json!("a\"b")),
            ),
            (
                br#"{"params":{"id":3,"x":[1,{"y":"}"}]},"id":-4,"method"#,
                Some(json!(-4)),
            ),
            (br#"  {"id" : 5 , "m"#, Some(json!(5))),
            // Not sure: the number may go on past the head.
            (br#"{"id":12"#, None),
            (br#"{"id":1.5,"x"#, None),
            (br#"{"id":null,"x"#, None),
            (br#"{"id":1,"id":2,"x"#, None),
            (br#"{"params":{"big":"xxxx"#, None),
            (br#"[{"id":1,"x"#, None),
        ];
        for (head, id) in cases {
            assert_eq!(&scan_head(head).id, id, "{}", String::from_utf8_lossy(head));
        }
        let head = scan_head(br#"{"jsonrpc":"2.0","method":"x","params":{"#);
        assert!(head.maybe_json && head.has_method && !head.has_outcome);
        let head = scan_head(br#"{"jsonrpc":"2.0","result":{"#);
        assert!(head.has_outcome && !head.has_method);
        // An id that is not a scalar is skipped over, and the keys after it still count.
        let head = scan_head(br#"{"id":{"a":[1]},"method":"x","params":{"#);
        assert!(head.id.is_none() && head.has_method);
        assert!(!scan_head(b"not json").maybe_json);
        assert!(!scan_head(b"{\"a\":\"\xff\xfe").maybe_json);
        // A character cut at the end of the head is not an encoding error.
        assert!(scan_head(b"{\"a\":\"\xc3").maybe_json);
    }
}
