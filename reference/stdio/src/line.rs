//! Bounded line reading, shared by the guard (the server's stdin) and by clients reading a
//! peer's stdout: one oversized line is discarded, never buffered without limit.

use tokio::io::AsyncBufReadExt;

/// Longest accepted input line (rmcp's own default).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One read by [`read_bounded_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line (with its newline, if it had one) is in the buffer.
    Line,
    /// A line longer than the limit was discarded up to its newline.
    Oversized,
    /// End of input.
    Eof,
}

/// Reads one line of at most `max` bytes into `buf` (cleared first). A final line without a
/// newline is still a line. The caller is the only reader, so cancellation safety is not
/// needed.
pub async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    buf.clear();
    let mut oversized = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if oversized {
                LineRead::Oversized
            } else if buf.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        if !oversized {
            if buf.len() + take > max {
                oversized = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&available[..take]);
            }
        }
        reader.consume(take);
        if newline.is_some() {
            return Ok(if oversized {
                LineRead::Oversized
            } else {
                LineRead::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_oversized_lines_and_a_final_partial_line() {
        let input: &[u8] = b"ab\ntoo long line\ncd";
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut seen = Vec::new();
        loop {
            match read_bounded_line(&mut reader, &mut buf, 8).await {
                Ok(LineRead::Eof) => break,
                Ok(read) => seen.push((read, String::from_utf8_lossy(&buf).into_owned())),
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(
            seen,
            [
                (LineRead::Line, "ab\n".to_owned()),
                (LineRead::Oversized, String::new()),
                (LineRead::Line, "cd".to_owned()),
            ]
        );
    }
}
