//! The JUnit report: well-formed XML whose counts add up, and hostile strings that survive
//! its escaping.

use mcp_conformance::report::human::failure_block;
use mcp_conformance::report::junit::to_junit_xml;
use mcp_conformance::report::{RunReport, Status};
use serde_json::json;
use std::time::Duration;

use crate::common::xml;
use crate::{hostile, nested_mismatch, sample_report, scenario};

#[test]
fn junit_is_well_formed_and_counts_add_up() {
    let report = sample_report();
    let root = xml::parse(&to_junit_xml(&report)).expect("well-formed XML");
    assert_eq!(root.name, "testsuites");
    assert_eq!(root.attr("name"), Some("mcp-conformance"));
    // 4 scenarios + 1 stale entry; 1 real failure + 1 stale; 1 skip + 1 baselined failure.
    assert_eq!(root.attr("tests"), Some("5"));
    assert_eq!(root.attr("failures"), Some("2"));
    assert_eq!(root.attr("skipped"), Some("2"));
    assert_eq!(root.attr("errors"), Some("0"));
    assert_eq!(root.attr("time"), Some("2.345"));

    let suites: Vec<&xml::Element> = root.elements().collect();
    let names: Vec<&str> = suites.iter().filter_map(|s| s.attr("name")).collect();
    assert_eq!(names, ["lifecycle", "tools", "resources", "baseline"]);
    for s in &suites {
        let cases: Vec<&xml::Element> = s.elements().collect();
        let count = |child: &str| {
            cases
                .iter()
                .filter(|c| c.elements().any(|e| e.name == child))
                .count()
                .to_string()
        };
        assert_eq!(s.attr("tests"), Some(cases.len().to_string().as_str()));
        assert_eq!(s.attr("failures"), Some(count("failure").as_str()));
        assert_eq!(s.attr("skipped"), Some(count("skipped").as_str()));
        assert!(cases.iter().all(|c| c.name == "testcase"));
    }

    let tools: Vec<&xml::Element> = suites[1].elements().collect();
    let failure = tools[0].elements().next().expect("failure element");
    assert_eq!(failure.name, "failure");
    assert_eq!(failure.attr("type"), Some("assertion"));
    assert_eq!(
        failure.attr("message"),
        Some("result.content[0].text: expected \"written\", got \"permission denied\"")
    );
    assert_eq!(failure.text(), failure_block(&report.scenarios[1]));
    assert_eq!(tools[0].attr("time"), Some("1.234"));

    let baselined: Vec<&xml::Element> = tools[1].elements().collect();
    assert_eq!(baselined[0].name, "skipped");
    assert_eq!(
        baselined[0].attr("message"),
        Some("expected failure (baseline)")
    );
    assert_eq!(baselined[1].name, "system-out");
    assert_eq!(baselined[1].text(), failure_block(&report.scenarios[3]));

    let stale = suites[3].elements().next().expect("stale testcase");
    assert_eq!(stale.attr("name"), Some("baseline/cancel long call"));
    let f = stale.elements().next().expect("failure");
    assert_eq!(f.attr("message"), Some("stale baseline entry"));
}

#[test]
fn hostile_strings_survive_junit_escaping() {
    let h = hostile();
    // What XML can carry comes back exactly; what it cannot becomes visible `\u{..}` text.
    let carried = "a<b&c\"d'e]]>f\\u{0}g\\u{1b}[31mh\ni\r\nj\tk\\u{ffff}l";

    let mut failed = scenario("f", "s", Status::Failed, 1);
    failed.name = h.clone();
    failed.file = h.clone();
    failed.suite = h.clone();
    let mut f = nested_mismatch();
    f.message = format!("{h}\nsecond line");
    f.transcript = vec![h.clone()];
    f.stderr_tail = vec![h.clone(), "]]>".to_owned()];
    f.actual = Some(json!({ "text": h.clone() }));
    failed.failure = Some(f);

    let mut skipped = scenario("s", "s", Status::Skipped, 1);
    skipped.name = format!("{h} 2");
    skipped.skip_reason = Some(h.clone());

    let mut baselined = failed.clone();
    baselined.baseline_expected_failure = true;

    let report = RunReport {
        target: h.clone(),
        target_file: h.clone(),
        scenarios: vec![failed.clone(), skipped, baselined],
        duration: Duration::from_millis(5),
        stale_baseline: vec![h.clone()],
        unknown_baseline: vec![h.clone()],
        not_judged: vec![],
    };
    let doc = to_junit_xml(&report);
    let root = xml::parse(&doc).unwrap_or_else(|e| panic!("{e}\n{doc}"));

    let suite = root.elements().next().expect("suite");
    assert_eq!(suite.attr("name"), Some(carried));
    let cases: Vec<&xml::Element> = suite.elements().collect();
    for attr in ["classname", "name", "file"] {
        assert_eq!(cases[0].attr(attr), Some(carried), "{attr}");
    }
    let failure = cases[0].elements().next().expect("failure");
    // The message attribute is the first line of the message (up to the first `\n`).
    assert_eq!(
        failure.attr("message"),
        Some("a<b&c\"d'e]]>f\\u{0}g\\u{1b}[31mh")
    );
    assert_eq!(failure.text(), failure_block(&failed));
    // The baselined copy: skipped, with the same block as its output.
    let baselined: Vec<&xml::Element> = cases[1].elements().collect();
    assert_eq!(baselined[0].name, "skipped");
    assert_eq!(baselined[1].text(), failure_block(&report.scenarios[2]));

    let suites: Vec<&xml::Element> = root.elements().collect();
    assert_eq!(suites.len(), 3);
    let skipped_case = suites[1].elements().next().expect("skipped case");
    assert_eq!(
        skipped_case.attr("name"),
        Some(format!("{carried} 2").as_str())
    );
    let skipped = skipped_case.elements().next().expect("skipped");
    assert_eq!(skipped.attr("message"), Some(carried));
    let stale_case = suites[2].elements().next().expect("stale case");
    assert_eq!(
        stale_case.attr("name"),
        Some(format!("baseline/{carried}").as_str())
    );

    // The document itself holds no raw control character but the three XML allows.
    assert!(
        !doc.chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\n'))
    );
}
