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

mod literals;

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
    redact_log_text_with(line, redact_str)
}

/// [`redact_log_text`] with `strings` as the rules for plain strings instead of the built-in
/// ones: a server passes the redactor its audit uses, so a log line carries no more of a
/// secret than the audit does.
///
/// Three passes. The log-only shapes, on the line as written (they know the escaped forms).
/// Then every string literal of the line (`"..."`, as `Debug` and JSON write them, and the
/// literals of a JSON text inside one) goes through `strings` as the plain string it stands
/// for, escapes undone ([`literals`]): the audit redacts each string value, so a pattern
/// anchored at its start or end, spanning a line break or with a quote in it matches there
/// exactly as in the audit, and the literal is written back escaped as before. Last, the
/// whole line, with its escaped line breaks made real while `strings` runs (a `KEY=VALUE`
/// ends at a line break, a PEM block spans them) and escaped again so one event stays one
/// line.
pub fn redact_log_text_with<'a, F>(line: &'a str, strings: F) -> Cow<'a, str>
where
    F: for<'s> Fn(&'s str) -> Cow<'s, str>,
{
    let mut out: Cow<'a, str> = Cow::Borrowed(line);
    for (re, rep) in shapes() {
        if re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, rep.as_str()).into_owned());
        }
    }
    if let Cow::Owned(o) = literals::redact_literals(&out, &strings, literals::DEPTH) {
        out = Cow::Owned(o);
    }
    let (body, end) = match out.strip_suffix('\n') {
        Some(body) => (body, "\n"),
        None => (out.as_ref(), ""),
    };
    if !body.contains("\\n") && !body.contains("\\r") && !body.contains(['\n', '\r']) {
        return match strings(&out) {
            Cow::Borrowed(_) => out,
            Cow::Owned(s) => Cow::Owned(s),
        };
    }
    let real = body.replace("\\n", "\n").replace("\\r", "\r");
    match strings(&real) {
        Cow::Borrowed(_) => out,
        Cow::Owned(redacted) => {
            Cow::Owned(redacted.replace('\n', "\\n").replace('\r', "\\r") + end)
        }
    }
}

/// A server's own redaction (the safe-mcp policy's `Redactor`, its `extra_patterns` and the
/// built-in rules), used by every log line as its rules for plain strings once the server
/// has read its configuration: one redactor for the audit, the results and the logs.
type Extra = Box<dyn Fn(&str) -> Cow<'_, str> + Send + Sync>;

static EXTRA: std::sync::OnceLock<Extra> = std::sync::OnceLock::new();

/// Makes `redact` the rules for plain strings of every [`RedactingWriter`] of this process,
/// followed by the built-in ones (so a redactor that is switched off still leaves a log line
/// no less redacted than the built-in rules do). Once: a second call is ignored, the first
/// configuration is the process's.
pub fn also_redact(redact: impl Fn(&str) -> Cow<'_, str> + Send + Sync + 'static) {
    let _ = EXTRA.set(Box::new(redact));
}

/// `s` through the server's redactor (if one was given) and then the built-in rules.
fn server_rules(s: &str) -> Cow<'_, str> {
    let Some(extra) = EXTRA.get() else {
        return redact_str(s);
    };
    match extra(s) {
        Cow::Borrowed(_) => redact_str(s),
        Cow::Owned(e) => Cow::Owned(redact_str(&e).into_owned()),
    }
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
        let line = redact_log_text_with(&text, server_rules);
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

    /// A quoted `KEY="VALUE"` logged inside a `Debug` string has its quotes escaped (`\"`):
    /// the audit redacts the quoted value, so the log line must too.
    #[test]
    fn a_quoted_secret_value_behind_escaped_quotes_is_redacted() {
        let line = r#"arguments: Some({"command": String("echo password=\"S13-secret\" x password=\"S13-secret\"")})"#;
        let r = redact_log_text(line);
        assert!(!r.contains("S13-secret"), "{r}");
        assert!(r.contains(REDACTED), "{r}");
        assert!(r.contains("x password="), "the rest of the line stays: {r}");
    }

    /// Rules for plain strings (a server's own patterns) see the text before escaping: a
    /// pattern anchored at a line start, one with a quote in it, and the same in JSON inside
    /// `Debug` (two levels of escaping), each twice on one line.
    #[test]
    fn string_rules_see_the_text_before_it_was_escaped() {
        fn rules(s: &str) -> Cow<'_, str> {
            let pin = Regex::new(r"(?m)^PIN-[0-9]{4}$").expect("regex");
            let quoted = Regex::new(r#"code="[0-9]{5}""#).expect("regex");
            let once = pin.replace_all(s, REDACTED);
            match quoted.replace_all(&once, REDACTED) {
                Cow::Borrowed(_) => once,
                Cow::Owned(o) => Cow::Owned(o),
            }
        }
        for (line, secret) in [
            (r#"String("echo a\nPIN-4321\nb\nPIN-4321")"#, "PIN-4321"),
            (r#"String("echo code=\"98765\" x code=\"98765\"")"#, "98765"),
            (
                r#"text: "{\"stdout\":\"a\\nPIN-1234\\nPIN-1234\\n\"}""#,
                "PIN-1234",
            ),
        ] {
            let line = format!("{line}\n");
            let r = redact_log_text_with(&line, rules);
            assert!(!r.contains(secret), "{secret} leaked: {r}");
            assert_eq!(r.matches(REDACTED).count(), 2, "both: {r}");
            assert_eq!(r.matches('\n').count(), 1, "one event, one line: {r}");
            assert!(r.ends_with('\n'), "{r}");
        }
    }

    #[test]
    fn an_escaped_line_without_secrets_is_written_as_it_came() {
        let line = "DEBUG text: String(\"say \\\"hi\\\"\\nbye C:\\\\dir\")\n";
        assert!(matches!(redact_log_text(line), Cow::Borrowed(_)));
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
