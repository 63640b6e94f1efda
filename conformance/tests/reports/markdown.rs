//! The Markdown report: what a server said stays text, and the page stays bounded.

use mcp_conformance::report::Status;
use mcp_conformance::report::markdown::{MAX_DETAILS, to_markdown};

use crate::{hostile, sample_report};

#[test]
fn markdown_shows_what_a_server_said_as_text() {
    let mut report = sample_report();
    let evil = "x</summary></details><img src=q onerror=alert(1)> | `` ```` [link](http://e) *b*";
    report.target = evil.to_owned();
    for r in &mut report.scenarios {
        r.name = format!("{} {evil}", r.name);
        if let Some(f) = &mut r.failure {
            f.message = format!("{evil}\n```` fence {}", hostile());
        }
    }
    let md = to_markdown(&report);
    // Outside the code blocks (where text is literal), nothing a server said is markup; every
    // code block closes with the fence it opened with, longer than any backtick run inside.
    let mut fence: Option<String> = None;
    let mut outside = String::new();
    for line in md.lines() {
        match &fence {
            Some(f) if line == f => fence = None,
            Some(_) => {}
            None if line.starts_with("```") => {
                fence = Some(line.trim_end_matches("text").to_owned());
            }
            None => {
                outside.push_str(line);
                outside.push('\n');
            }
        }
    }
    assert!(fence.is_none(), "a code block is left open: {md}");
    assert!(!outside.contains("<img"), "{outside}");
    assert!(!outside.contains("</summary></details><"), "{outside}");
    assert!(!outside.contains("[link](http"), "{outside}");
    assert_eq!(
        outside.matches("<details>").count(),
        outside.matches("</details>").count()
    );
    assert!(!md.contains('\u{1b}'), "no raw escape reaches the page");
}

#[test]
fn markdown_is_bounded() {
    let mut report = sample_report();
    let failed = report
        .scenarios
        .iter()
        .find(|r| r.status == Status::Failed)
        .expect("the sample has a failure")
        .clone();
    for i in 0..200 {
        let mut r = failed.clone();
        r.name = format!("failing {i}");
        report.scenarios.push(r);
    }
    let md = to_markdown(&report);
    assert!(md.matches("<details><summary>failing").count() <= MAX_DETAILS);
    assert!(md.contains("more not shown here"), "{md}");
    assert!(md.len() < 1024 * 1024);
}
