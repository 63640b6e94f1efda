//! Redaction of log lines: the audit redactor applied to what the servers write on stderr.
//!
//! The MCP library under the servers logs whole messages at `debug` and `trace` (tool
//! arguments, argv, outputs), rendered with `Debug` rather than as JSON: a secret-keyed value
//! reads `"api_token": String("...")`, an argv pair `String("--password"), String("...")`, and
//! a tool's JSON text output appears escaped (`\"token\":\"...\"`). Those shapes are rewritten
//! first, then the whole line goes through [`redact_str`], the rules the audit log applies to
//! every string. The result: a log line at any level carries no more of a secret than the
//! audit log does.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::OnceLock;

use regex::Regex;

use super::{REDACTED, redact_str};

/// A secret-looking key or flag name (the audit log's markers, as a pattern).
const SECRET_NAME: &str = r"[A-Za-z0-9_.\-]*(?i:token|password|passwd|secret|api[_\-]?key|apikey|authorization|credential|private[_\-]?key|access[_\-]?key|cookie)[A-Za-z0-9_.\-]*";

/// A quoted string body up to the closing quote of either nesting level (`"` or `\"`).
const BODY: &str = r#"(?:[^"\\]|\\[^"])*"#;

fn shapes() -> &'static [(Regex, String)] {
    static P: OnceLock<Vec<(Regex, String)>> = OnceLock::new();
    P.get_or_init(|| {
        let specs = [
            // `"api_token": String("v")`, `Number(1)`, `Bool(true)`, a flat `Array [...]` or
            // `Object {...}`, and the escaped-JSON forms `\"token\": \"v\"` / `\"pin\": 1234`.
            (
                format!(
                    r#"(?P<pre>\\?"{SECRET_NAME}\\?"\s*:\s*)(?:String\("{BODY}"\)|Number\([^)]*\)|Bool\([^)]*\)|Array \[[^\[\]]*\]|Object \{{[^{{}}]*\}}|\\"{BODY}\\"|-?[0-9][0-9.eE+\-]*)"#
                ),
                format!("${{pre}}\"{REDACTED}\""),
            ),
            // argv: the element after a secret-looking flag, in Debug (`String("--password"),
            // String("v")`), JSON (`"--password","v"`) or escaped JSON.
            (
                format!(
                    r#"(?P<pre>(?:String\()?\\?"-{{1,2}}{SECRET_NAME}\\?"\)?\s*,\s*(?:String\()?\\?"){BODY}"#
                ),
                format!("${{pre}}{REDACTED}"),
            ),
        ];
        specs
            .into_iter()
            .filter_map(|(p, r)| Regex::new(&p).ok().map(|re| (re, r)))
            .collect()
    })
}

/// `line` with secret-keyed values, argv secrets and credential-looking substrings redacted,
/// whichever of the Debug, JSON or escaped-JSON renderings they appear in.
pub fn redact_log_text(line: &str) -> Cow<'_, str> {
    let mut out: Cow<'_, str> = Cow::Borrowed(line);
    for (re, rep) in shapes() {
        if re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, rep.as_str()).into_owned());
        }
    }
    // Debug and JSON renderings escape line breaks: make them real while the string rules
    // run (a `KEY=VALUE` ends at a line break, a PEM block spans them), then escape them again
    // so one event stays one line.
    let (body, end) = match out.strip_suffix('\n') {
        Some(body) => (body, "\n"),
        None => (out.as_ref(), ""),
    };
    if !body.contains("\\n") && !body.contains("\\r") && !body.contains(['\n', '\r']) {
        return match redact_str(&out) {
            Cow::Borrowed(_) => out,
            Cow::Owned(s) => Cow::Owned(s),
        };
    }
    let real = body.replace("\\n", "\n").replace("\\r", "\r");
    match redact_str(&real) {
        Cow::Borrowed(_) => out,
        Cow::Owned(redacted) => {
            Cow::Owned(redacted.replace('\n', "\\n").replace('\r', "\\r") + end)
        }
    }
}

/// A server's own redaction (the safe-mcp policy's `extra_patterns`), applied to every log
/// line after the built-in shapes once the server has read its configuration: one redactor
/// for the audit, the results and the logs.
type Extra = Box<dyn Fn(&str) -> Cow<'_, str> + Send + Sync>;

static EXTRA: std::sync::OnceLock<Extra> = std::sync::OnceLock::new();

/// Adds `redact` to what every [`RedactingWriter`] of this process applies (once: a second
/// call is ignored, the first configuration is the process's).
pub fn also_redact(redact: impl Fn(&str) -> Cow<'_, str> + Send + Sync + 'static) {
    let _ = EXTRA.set(Box::new(redact));
}

/// A writer that redacts each write before passing it on: give it to the log subscriber
/// (`with_writer(|| RedactingWriter::new(std::io::stderr()))`), which writes one whole event
/// per call, so a secret is never split across two writes.
#[derive(Debug)]
pub struct RedactingWriter<W: Write> {
    inner: W,
}

impl<W: Write> RedactingWriter<W> {
    /// Wraps `inner` (usually standard error).
    pub fn new(inner: W) -> Self {
        RedactingWriter { inner }
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let shaped = redact_log_text(&text);
        let line = match EXTRA.get() {
            Some(extra) => Cow::Owned(extra(&shaped).into_owned()),
            None => shaped,
        };
        self.inner.write_all(line.as_bytes()).map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each shape the MCP library's debug and trace lines were seen to carry, with a secret
    /// that must not survive.
    const LEAKS: &[(&str, &str)] = &[
        (
            r#"arguments: Some({"path": String("a.txt"), "api_token": String("S1-secret")})"#,
            "S1-secret",
        ),
        (r#"Object {"db_password": Number(987654)}"#, "987654"),
        (
            r#""env": Object {"API_TOKEN": String("S3-secret")}"#,
            "S3-secret",
        ),
        (
            r#""args": Array [String("--password"), String("S4-secret"), String("x")]"#,
            "S4-secret",
        ),
        (
            r#"String("--api-key"), String("S5 with spaces")"#,
            "S5 with spaces",
        ),
        (
            r#"text: "{\"outcome\":\"OK\",\"access_token\":\"S6-secret\"}""#,
            "S6-secret",
        ),
        (r#"{"client_secret":"S7-secret","ok":1}"#, "S7-secret"),
        (r#"["--token","S8-secret"]"#, "S8-secret"),
        (
            r#"content: String("password=S9-secret\napi_key: S9b-secret\n")"#,
            "S9-secret",
        ),
        (
            r#"String("curl -H 'Authorization: Bearer S10abcdefghij' x")"#,
            "S10abcdefghij",
        ),
        (r#"String("https://user:S11pass@example.com/x")"#, "S11pass"),
        (
            r#"String("sk-S12abcdefghijklmnopqrstuv")"#,
            "S12abcdefghijklmnopqrstuv",
        ),
    ];

    #[test]
    fn every_seen_shape_is_redacted() {
        for (line, secret) in LEAKS {
            let r = redact_log_text(line);
            assert!(!r.contains(secret), "{secret} leaked: {r}");
            assert!(r.contains(REDACTED), "{r}");
        }
        let r = redact_log_text(r#"content: String("password=S9-secret\napi_key: S9b-secret\n")"#);
        assert!(!r.contains("S9b-secret"), "{r}");
        let pem = "text: String(\"-----BEGIN RSA PRIVATE KEY-----\\nMIIEsecretbody\\n-----END RSA PRIVATE KEY-----\\n\")\n";
        let r = redact_log_text(pem);
        assert!(!r.contains("MIIEsecretbody"), "{r}");
        assert_eq!(r.matches('\n').count(), 1, "one event, one line: {r}");
    }

    #[test]
    fn harmless_lines_pass_unchanged() {
        let line = r#"DEBUG received request id=2 request=CallToolRequest { name: "filesystem.read_file", arguments: Some({"path": String("notes.txt")}) }"#;
        assert_eq!(redact_log_text(line), line);
    }

    #[test]
    fn the_writer_redacts_each_write_and_reports_the_whole_buffer_written() {
        let mut out = Vec::new();
        let line = b"x \"password\": String(\"hunter2\")\n";
        let n = RedactingWriter::new(&mut out)
            .write(line)
            .expect("write to a Vec");
        assert_eq!(n, line.len());
        let text = String::from_utf8(out).expect("utf-8");
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn a_flush_reaches_the_inner_writer() {
        // A buffered inner writer holds the event until it is flushed: the log subscriber's
        // flush must get through, or the last lines before an exit are lost.
        let mut out = Vec::new();
        {
            let mut writer = RedactingWriter::new(std::io::BufWriter::new(&mut out));
            writer.write_all(b"line\n").expect("write to a buffer");
            writer.flush().expect("flush to a Vec");
            assert_eq!(writer.inner.get_ref().as_slice(), b"line\n");
        }
    }
}
