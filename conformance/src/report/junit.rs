//! The JUnit XML report, for the test reporters of Jenkins, GitLab and GitHub Actions.
//!
//! One `<testsuite>` per scenario suite, one `<testcase>` per scenario. A failure the baseline
//! expects is reported as skipped (its text in `<system-out>`) so CI does not go red on a known
//! gap, and a stale baseline entry becomes a failing `baseline/<name>` test case so it does.
//! Every string is escaped for XML 1.0, so any name, message or server output yields a valid
//! document.

use super::human::{failure_block, warning_block};
use super::json::write_atomically;
use super::{FailureKind, RunReport, ScenarioResult, Status};
use crate::model::Level;
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::time::Duration;

/// Longest `message` attribute; the full text is in the element's content.
const MESSAGE_CHARS: usize = 400;

/// Name of the extra suite holding stale baseline entries.
const BASELINE_SUITE: &str = "baseline";

/// Counts of one `<testsuite>` (or of the whole `<testsuites>`).
#[derive(Default, Clone, Copy)]
struct Counts {
    tests: usize,
    failures: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, r: &ScenarioResult) {
        self.tests += 1;
        match r.status {
            Status::Passed => {}
            Status::Failed if r.baseline_expected_failure => self.skipped += 1,
            Status::Failed => self.failures += 1,
            Status::Skipped => self.skipped += 1,
        }
    }

    fn attrs(&self) -> String {
        format!(
            r#"tests="{}" failures="{}" skipped="{}" errors="0""#,
            self.tests, self.failures, self.skipped
        )
    }
}

/// Builds the JUnit XML document of a run (UTF-8, XML 1.0), so callers can embed or check it
/// without a file.
pub fn to_junit_xml(report: &RunReport) -> String {
    // Suites in order of first appearance, so the document follows the run's order.
    let mut suites: Vec<(&str, Vec<&ScenarioResult>)> = Vec::new();
    for r in &report.scenarios {
        match suites.iter_mut().find(|(name, _)| *name == r.suite) {
            Some((_, members)) => members.push(r),
            None => suites.push((&r.suite, vec![r])),
        }
    }

    let mut total = Counts::default();
    for r in &report.scenarios {
        total.add(r);
    }
    total.tests += report.stale_baseline.len();
    total.failures += report.stale_baseline.len();

    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        r#"<testsuites name="mcp-conformance" {} time="{}">"#,
        total.attrs(),
        seconds(report.duration)
    );
    for (suite, members) in &suites {
        let mut counts = Counts::default();
        let mut time = Duration::ZERO;
        for r in members {
            counts.add(r);
            time = time.saturating_add(r.duration);
        }
        let _ = writeln!(
            out,
            r#"  <testsuite name="{}" {} time="{}">"#,
            attr(suite),
            counts.attrs(),
            seconds(time)
        );
        for r in members {
            push_testcase(&mut out, r);
        }
        out.push_str("  </testsuite>\n");
    }
    if !report.stale_baseline.is_empty() {
        let n = report.stale_baseline.len();
        let counts = Counts {
            tests: n,
            failures: n,
            skipped: 0,
        };
        let _ = writeln!(
            out,
            r#"  <testsuite name="{BASELINE_SUITE}" {} time="0.000">"#,
            counts.attrs()
        );
        for name in &report.stale_baseline {
            let _ = writeln!(
                out,
                r#"    <testcase classname="{BASELINE_SUITE}" name="{}" time="0.000">"#,
                attr(&format!("{BASELINE_SUITE}/{name}"))
            );
            let _ = writeln!(
                out,
                r#"      <failure message="stale baseline entry" type="stale-baseline">{}</failure>"#,
                text(&format!(
                    "stale baseline entry (now passes): {name}\n\
                     The scenario passed although the baseline expects it to fail; \
                     remove it from the baseline.\n"
                ))
            );
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn push_testcase(out: &mut String, r: &ScenarioResult) {
    let _ = write!(
        out,
        r#"    <testcase classname="{}" name="{}" file="{}" time="{}""#,
        attr(&r.suite),
        attr(&r.name),
        attr(&r.file),
        seconds(r.duration)
    );
    let extras = levels_and_warnings(r);
    match r.status {
        Status::Passed if extras.is_empty() => out.push_str("/>\n"),
        Status::Passed => {
            out.push_str(">\n");
            out.push_str(&extras);
            out.push_str("    </testcase>\n");
        }
        Status::Skipped => {
            out.push_str(">\n");
            match &r.skip_reason {
                Some(reason) => {
                    let _ = writeln!(out, r#"      <skipped message="{}"/>"#, attr(reason));
                }
                None => out.push_str("      <skipped/>\n"),
            }
            out.push_str("    </testcase>\n");
        }
        Status::Failed if r.baseline_expected_failure => {
            out.push_str(">\n");
            out.push_str("      <skipped message=\"expected failure (baseline)\"/>\n");
            let _ = writeln!(
                out,
                "      <system-out>{}</system-out>",
                text(&failure_block(r))
            );
            out.push_str("    </testcase>\n");
        }
        Status::Failed => {
            let (message, kind) = match &r.failure {
                Some(f) => {
                    let first = f.message.lines().next().unwrap_or("");
                    let kind = match f.kind {
                        FailureKind::Assertion => "assertion",
                        FailureKind::Error => "error",
                    };
                    (clip(first, MESSAGE_CHARS), kind)
                }
                None => ("failed (no details recorded)".to_owned(), "error"),
            };
            out.push_str(">\n");
            out.push_str(&extras);
            let _ = writeln!(
                out,
                r#"      <failure message="{}" type="{kind}">{}</failure>"#,
                attr(&message),
                text(&failure_block(r))
            );
            out.push_str("    </testcase>\n");
        }
    }
}

/// The convention for levels and warnings, which JUnit has no element for: a test case whose
/// scenario or failure is not of level `must` carries `<property name="level">`; each warning
/// (a `should` check that did not hold) is a `<property name="warning">` with its first line,
/// and its whole text goes to `<system-out>`. The test case itself passes, as the run does;
/// under `--strict` a warning is a `<failure>` instead.
fn levels_and_warnings(r: &ScenarioResult) -> String {
    let mut properties = Vec::new();
    let level = r.failure.as_ref().map_or(r.level, |f| f.level);
    if level != Level::Must {
        properties.push(("level", level.to_string()));
    }
    for w in &r.warnings {
        let first = w.message.lines().next().unwrap_or("");
        properties.push(("warning", clip(first, MESSAGE_CHARS)));
    }
    if properties.is_empty() {
        return String::new();
    }
    let mut out = String::from("      <properties>\n");
    for (name, value) in properties {
        let _ = writeln!(
            out,
            r#"        <property name="{name}" value="{}"/>"#,
            attr(&value)
        );
    }
    out.push_str("      </properties>\n");
    if !r.warnings.is_empty() {
        let blocks: String = r.warnings.iter().map(|w| warning_block(r, w)).collect();
        let _ = writeln!(out, "      <system-out>{}</system-out>", text(&blocks));
    }
    out
}

/// Writes the JUnit report to `path` atomically (temporary file in the same directory, then
/// rename), so a CI step that collects it never reads half a document.
///
/// # Errors
/// When the directory is missing or not writable, or `path` names a directory.
pub fn write_junit(report: &RunReport, path: &Path) -> io::Result<()> {
    write_atomically(path, to_junit_xml(report).as_bytes())
}

/// Seconds with three decimals, the unit JUnit consumers expect.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// The first `max` characters of `s`, with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// True for characters XML 1.0 does not allow at all (most C0 controls, U+FFFE, U+FFFF) or
/// discourages (DEL and the C1 controls). Tab, newline and carriage return are allowed.
fn unwanted_in_xml(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}')
}

/// Escapes `s` for character data: the five special characters become entities (which also
/// defuses `]]>`), `\r` a character reference (so it is not normalized away), and characters
/// XML cannot carry the visible text `\u{..}`.
fn text(s: &str) -> String {
    escape(s, false)
}

/// Escapes `s` for a double- or single-quoted attribute value: as [`text`], plus tab, newline
/// and carriage return as character references, which attribute-value normalization would
/// otherwise turn into spaces.
fn attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if in_attribute => out.push_str("&#10;"),
            '\t' if in_attribute => out.push_str("&#9;"),
            c if unwanted_in_xml(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_invalid_characters() {
        assert_eq!(text("a<b&c\"d'e]]>f"), "a&lt;b&amp;c&quot;d&apos;e]]&gt;f");
        assert_eq!(
            text("x\u{0}y\u{1b}[31m\u{ffff}"),
            "x\\u{0}y\\u{1b}[31m\\u{ffff}"
        );
        assert_eq!(text("l1\nl2\r\n\t"), "l1\nl2&#13;\n\t");
        assert_eq!(attr("l1\nl2\r\n\t"), "l1&#10;l2&#13;&#10;&#9;");
    }

    #[test]
    fn seconds_have_three_decimals() {
        assert_eq!(seconds(Duration::ZERO), "0.000");
        assert_eq!(seconds(Duration::from_millis(12)), "0.012");
        assert_eq!(seconds(Duration::from_millis(61_234)), "61.234");
    }

    #[test]
    fn clip_cuts_on_char_boundaries() {
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("hé", 2), "hé");
    }
}
