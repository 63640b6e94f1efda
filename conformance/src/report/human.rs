//! The human report: one line per scenario as it finishes, then a block per failure, baseline
//! notes and a closing totals line.
//!
//! Everything a server sends is untrusted text, so every section is bounded (a huge response
//! cannot flood a CI log) and control characters are shown as `\u{..}` escapes (a server cannot
//! recolour or rewrite the reader's terminal). The failure block is built by
//! [`failure_block`] alone (`block.rs`), so the JUnit and Markdown reports carry exactly the
//! same text.

use super::block::{
    BASELINE_NOTE, DEFAULT_LIMITS, Limits, VERBOSE_LIMITS, display_line, render_failure_block,
};
pub use super::block::{failure_block, warning_block};
use super::{RunReport, ScenarioResult, Status, Summary};
use crate::model::Level;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Duration;

/// Width of the status column (`ok`, `FAILED`, `skipped`), so names line up.
const STATUS_WIDTH: usize = 8;

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// Writes the human report to any [`Write`], so the runner can stream it to stdout and tests
/// can capture it in a `Vec<u8>`.
pub struct HumanReporter<W: Write> {
    out: W,
    color: bool,
    verbose: bool,
    name_width: usize,
}

impl<W: Write> HumanReporter<W> {
    /// Creates a reporter. `color` adds ANSI colours to status words and headers (never to the
    /// closing totals line); `verbose` raises the bounds of the failure blocks tenfold.
    pub fn new(out: W, color: bool, verbose: bool) -> Self {
        HumanReporter {
            out,
            color,
            verbose,
            name_width: 0,
        }
    }

    /// Pads scenario names to `width` characters so the durations line up too. Lines are
    /// printed as scenarios finish, so the reporter cannot know the longest name itself; a
    /// runner that knows every name up front passes the longest length here.
    #[must_use]
    pub fn with_name_width(mut self, width: usize) -> Self {
        self.name_width = width;
        self
    }

    /// Widens the name column to at least `width` characters (the longest name of a run,
    /// known when it starts).
    pub fn widen_names(&mut self, width: usize) {
        self.name_width = self.name_width.max(width);
    }

    /// Gives the writer back, e.g. the captured bytes in a test.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn limits(&self) -> &'static Limits {
        if self.verbose {
            &VERBOSE_LIMITS
        } else {
            &DEFAULT_LIMITS
        }
    }

    fn paint(&self, text: &str, color: &str) -> String {
        if self.color {
            format!("{color}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }

    /// Prints one scenario's line as soon as it finishes, so a long run shows progress even
    /// when nobody watches a terminal (CI logs):
    /// `ok      <name>  (12 ms)`, `FAILED  <name>  (1.2 s)` or `skipped <name>: <reason>`.
    ///
    /// # Errors
    /// Any error of the underlying writer (e.g. a closed pipe).
    pub fn scenario_finished(&mut self, r: &ScenarioResult) -> io::Result<()> {
        let limits = self.limits();
        let name = display_line(&r.name, limits.line_chars);
        let (word, color) = match r.status {
            Status::Passed if !r.warnings.is_empty() => ("warning", YELLOW),
            Status::Passed => ("ok", GREEN),
            Status::Failed => ("FAILED", RED),
            Status::Skipped => ("skipped", YELLOW),
        };
        let pad = " ".repeat(STATUS_WIDTH.saturating_sub(word.len()).max(1));
        let mut line = format!("{}{pad}", self.paint(word, color));
        match r.status {
            Status::Skipped => {
                line.push_str(&name);
                if let Some(reason) = &r.skip_reason {
                    line.push_str(": ");
                    line.push_str(&display_line(reason, limits.line_chars));
                }
            }
            Status::Passed | Status::Failed => {
                let width = self.name_width;
                let _ = write!(line, "{name:<width$}  ({})", format_duration(r.duration));
                if let Some(f) = r.failure.as_ref().filter(|f| f.level != Level::Must) {
                    let _ = write!(line, "  [{}]", f.level);
                }
                if !r.warnings.is_empty() {
                    let n = r.warnings.len();
                    let plural = if n == 1 { "" } else { "s" };
                    let _ = write!(line, "  [{n} warning{plural}]");
                }
                if r.status == Status::Failed && r.baseline_expected_failure {
                    line.push_str("  ");
                    line.push_str(BASELINE_NOTE);
                }
            }
        }
        line.push('\n');
        self.out.write_all(line.as_bytes())?;
        self.out.flush()
    }

    /// Prints the end of the report: a failure block per failed scenario, the baseline notes,
    /// and last, alone on its line and without colour, `N passed, N failed, N skipped`, the
    /// exact shape CI tools parse.
    ///
    /// # Errors
    /// Any error of the underlying writer (e.g. a closed pipe).
    pub fn finish(&mut self, report: &RunReport) -> io::Result<()> {
        let limits = self.limits();
        let failed = |level: Level| {
            report.scenarios.iter().filter(move |r| {
                r.status == Status::Failed && r.failure.as_ref().map(|f| f.level) == Some(level)
            })
        };
        for r in report.scenarios.iter().filter(|r| {
            r.status == Status::Failed
                && r.failure.as_ref().is_none_or(|f| f.level != Level::Beyond)
        }) {
            self.write_block(&render_failure_block(r, r.failure.as_ref(), limits), RED)?;
        }
        let beyond: Vec<&ScenarioResult> = report
            .scenarios
            .iter()
            .filter(|r| {
                r.level == Level::Beyond
                    || r.failure.as_ref().map(|f| f.level) == Some(Level::Beyond)
            })
            .collect();
        if !beyond.is_empty() {
            write!(
                self.out,
                "\n{}\n",
                self.paint(
                    "== Beyond the documents: guarantees stronger than the documents require \
                     (the reference makes them; judged with --beyond or a target's `beyond: true`)",
                    YELLOW
                )
            )?;
            for r in &beyond {
                let word = match r.status {
                    Status::Passed => "ok",
                    Status::Failed => "FAILED",
                    Status::Skipped => "skipped",
                };
                writeln!(
                    self.out,
                    "{word:<STATUS_WIDTH$}{}",
                    display_line(&r.name, limits.line_chars)
                )?;
            }
            for r in failed(Level::Beyond) {
                self.write_block(&render_failure_block(r, r.failure.as_ref(), limits), RED)?;
            }
        }
        let warned = report.warned();
        if !warned.is_empty() {
            write!(
                self.out,
                "\n{}\n",
                self.paint(
                    "== Warnings: recommendations (level should) not met; --strict makes them fail",
                    YELLOW
                )
            )?;
            for r in warned {
                for w in &r.warnings {
                    self.write_block(&render_failure_block(r, Some(w), limits), YELLOW)?;
                }
            }
        }

        let mut notes = Vec::new();
        for r in &report.scenarios {
            if r.status == Status::Failed && r.baseline_expected_failure {
                notes.push(format!(
                    "expected failure (baseline): {}",
                    display_line(&r.name, limits.line_chars)
                ));
            }
        }
        for name in &report.stale_baseline {
            notes.push(format!(
                "{}: {}",
                self.paint("stale baseline entry (now passes)", RED),
                display_line(name, limits.line_chars)
            ));
        }
        for name in &report.unknown_baseline {
            notes.push(format!(
                "{} unknown baseline entry (no scenario of this run has that name): {}",
                self.paint("warning:", YELLOW),
                display_line(name, limits.line_chars)
            ));
        }
        if !notes.is_empty() {
            writeln!(self.out)?;
            for note in notes {
                writeln!(self.out, "{note}")?;
            }
        }

        if !report.not_judged.is_empty() {
            writeln!(self.out)?;
            for line in &report.not_judged {
                writeln!(
                    self.out,
                    "not judged: {}",
                    display_line(line, limits.line_chars)
                )?;
            }
        }
        let s = report.summary();
        write!(self.out, "\n{}\n", summary_line(&s))?;
        self.out.flush()
    }

    /// Writes one failure or warning block, its header line coloured.
    fn write_block(&mut self, block: &str, color: &str) -> io::Result<()> {
        let (header, rest) = block.split_once('\n').unwrap_or((block, ""));
        let header = self.paint(header, color);
        write!(self.out, "\n{header}\n{rest}")
    }
}

/// The closing line CI tools parse: `N passed, N failed, N skipped`, then `, N warnings`
/// when any `should` check did not hold (the first three stay exactly as they always were).
pub fn summary_line(s: &Summary) -> String {
    let mut line = format!(
        "{} passed, {} failed, {} skipped",
        s.passed, s.failed, s.skipped
    );
    if s.warnings > 0 {
        let _ = write!(line, ", {} warnings", s.warnings);
    }
    line
}

/// `12 ms` under a second, `1.2 s` from there on: precise where it matters, short always.
pub(super) fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        format!("{ms} ms")
    } else {
        let tenths = ms / 100;
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(format_duration(Duration::from_micros(300)), "0 ms");
        assert_eq!(format_duration(Duration::from_millis(12)), "12 ms");
        assert_eq!(format_duration(Duration::from_millis(999)), "999 ms");
        assert_eq!(format_duration(Duration::from_millis(1_234)), "1.2 s");
        assert_eq!(format_duration(Duration::from_secs(75)), "75.0 s");
    }
}
