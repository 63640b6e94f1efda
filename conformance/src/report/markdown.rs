//! The Markdown summary: one page a person reads where CI shows it (`$GITHUB_STEP_SUMMARY`, a
//! pull-request comment). The verdict and totals first, a table of what failed with the
//! level and the step, each failure's full explanation folded under it (the same text as
//! the human and JUnit reports), then the warnings, the baseline, and the passed and
//! skipped scenarios folded.
//!
//! Everything a server said is shown as text, never as Markdown or HTML: table cells are
//! escaped, explanations sit in code blocks whose fence is longer than any backtick run in
//! them. The page is bounded: at most [`MAX_DETAILS`] folded explanations.

use super::block::{display_line, failure_block, warning_block};
use super::human::{format_duration, summary_line};
use super::json::write_atomically;
use super::{Failure, RunReport, ScenarioResult, Status};
use crate::model::Level;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// Folded explanations shown at most (failures, then warnings); the rest are in the table
/// and in the JSON and JUnit reports. GitHub keeps 1 MiB of a step's summary.
pub const MAX_DETAILS: usize = 30;

/// Longest text of a table cell, in characters.
const CELL_CHARS: usize = 200;

/// The Markdown summary of a run.
pub fn to_markdown(report: &RunReport) -> String {
    let summary = report.summary();
    let verdict = if report.is_success() {
        "passed"
    } else {
        "FAILED"
    };
    let mut out = format!(
        "## mcp-conformance {verdict}: {}\n\n**{}** in {} (target file {})\n",
        cell(&report.target),
        summary_line(&summary),
        format_duration(report.duration),
        cell(&report.target_file),
    );
    let failed: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed)
        .collect();
    let mut details = MAX_DETAILS;
    if !failed.is_empty() {
        out.push_str(
            "\n### Failed\n\n| scenario | level | step | what went wrong |\n|---|---|---|---|\n",
        );
        for r in &failed {
            let mut level = r.failure.as_ref().map_or(r.level, |f| f.level).to_string();
            if r.baseline_expected_failure {
                level.push_str(" (expected: baseline)");
            }
            table_row(&mut out, r, &level, r.failure.as_ref());
        }
        out.push_str(
            "\nLevels: `must`, a requirement of the document or the specification; `beyond`, \
             a guarantee stronger than the documents (judged with `--beyond` or a target's \
             `beyond: true`); `should` fails only under `--strict`.\n",
        );
        fold(&mut out, &failed, &mut details, |r| vec![failure_block(r)]);
    }
    let warned = report.warned();
    if !warned.is_empty() {
        let _ = write!(
            out,
            "\n### Warnings ({}: level `{}`, they do not fail the run)\n\n\
             | scenario | level | step | what went wrong |\n|---|---|---|---|\n",
            summary.warnings,
            Level::Should
        );
        for r in &warned {
            for w in &r.warnings {
                table_row(&mut out, r, w.level.as_str(), Some(w));
            }
        }
        fold(&mut out, &warned, &mut details, |r| {
            r.warnings.iter().map(|w| warning_block(r, w)).collect()
        });
    }
    if !report.stale_baseline.is_empty() || !report.unknown_baseline.is_empty() {
        out.push_str("\n### Baseline\n\n");
        for name in &report.stale_baseline {
            let _ = writeln!(
                out,
                "- {} passed but is listed as an expected failure: remove it from the baseline (this fails the run)",
                cell(name)
            );
        }
        for name in &report.unknown_baseline {
            let _ = writeln!(out, "- {} names no scenario of this run", cell(name));
        }
    }
    if !report.not_judged.is_empty() {
        out.push_str("\n### Not judged\n\n");
        for line in &report.not_judged {
            let _ = writeln!(out, "- {}", cell(line));
        }
    }
    for (status, title) in [(Status::Passed, "Passed"), (Status::Skipped, "Skipped")] {
        let of: Vec<&ScenarioResult> = report
            .scenarios
            .iter()
            .filter(|r| r.status == status)
            .collect();
        if of.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "\n<details><summary>{title} ({})</summary>\n\n",
            of.len()
        );
        for r in of {
            let _ = write!(out, "- {}", cell(&r.name));
            match (&r.skip_reason, r.status) {
                (Some(reason), Status::Skipped) => {
                    let _ = write!(out, ": {}", cell(reason));
                }
                _ => {
                    let _ = write!(out, " ({})", format_duration(r.duration));
                }
            }
            out.push('\n');
        }
        out.push_str("\n</details>\n");
    }
    out
}

/// Writes the Markdown summary to `path` atomically (a reader never sees half of it).
///
/// # Errors
/// When the directory is missing or not writable, or `path` names a directory.
pub fn write_markdown(report: &RunReport, path: &Path) -> io::Result<()> {
    write_atomically(path, to_markdown(report).as_bytes())
}

/// One row of a failure or warning table.
fn table_row(out: &mut String, r: &ScenarioResult, level: &str, f: Option<&Failure>) {
    let step = f.map_or(String::new(), |f| {
        let mut step = f.step_label.as_deref().map(cell).unwrap_or_default();
        if let Some(p) = &f.position {
            let _ = write!(step, " ({})", cell(&format!("{}:{}", r.file, p.line)));
        }
        step
    });
    let why = f.map_or("no failure was recorded".to_owned(), |f| {
        cell(f.message.lines().next().unwrap_or(""))
    });
    let _ = writeln!(out, "| {} | {level} | {step} | {why} |", cell(&r.name));
}

/// The folded explanations of `of`, while `left` allows; says how many were left out.
fn fold(
    out: &mut String,
    of: &[&ScenarioResult],
    left: &mut usize,
    blocks: impl Fn(&ScenarioResult) -> Vec<String>,
) {
    let mut omitted = 0;
    for r in of {
        for block in blocks(r) {
            if *left == 0 {
                omitted += 1;
                continue;
            }
            *left -= 1;
            let _ = write!(
                out,
                "\n<details><summary>{}</summary>\n\n{}\n</details>\n",
                cell(&r.name),
                code_block(&block)
            );
        }
    }
    if omitted > 0 {
        let _ = writeln!(
            out,
            "\n{omitted} more not shown here: the human, JSON and JUnit reports have them all."
        );
    }
}

/// `text` as a fenced code block that nothing inside can close.
fn code_block(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}text\n{body}\n{fence}\n")
}

/// `text` as literal text in a table cell or a line: one line, control characters escaped,
/// bounded, and nothing Markdown or HTML would act on.
fn cell(text: &str) -> String {
    let line = display_line(text, CELL_CHARS);
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' | '(' | ')' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_literal_text() {
        assert_eq!(
            cell("a|b <script>&`x`*y*"),
            "a\\|b &lt;script&gt;&amp;\\`x\\`\\*y\\*"
        );
        // Rendered, the escaped backslash shows the escape as the other reports do: `\u{a}`.
        assert_eq!(cell("line\nbreak"), "line\\\\u{a}break");
        assert!(cell(&"x".repeat(1000)).chars().count() < 260);
    }

    #[test]
    fn no_backtick_run_closes_a_code_block() {
        let block = code_block("before ```` after\n");
        assert!(block.starts_with("`````text\n"), "{block}");
        assert!(block.ends_with("\n`````\n"), "{block}");
        assert_eq!(code_block("plain"), "```text\nplain\n```\n");
    }
}
