//! Tests of the sweep's scenarios: what each tool gets, in which order, under which sentence.

#![allow(clippy::unwrap_used)]

use super::*;

fn tools() -> Vec<Value> {
    vec![
        json!({"name": "echo", "annotations": {"readOnlyHint": true},
               "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                               "required": ["text"]},
               "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                                "required": ["text"]}}),
        json!({"name": "delete", "inputSchema": {"type": "object"}}),
    ]
}

#[test]
fn every_case_is_a_valid_scenario_and_unannotated_tools_are_left_out() {
    let cases = cases(
        &tools(),
        &CaseOptions {
            cases: 3,
            edges: 24,
            include_mutating: false,
        },
        1,
    );
    let names: Vec<&str> = cases
        .scenarios
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(names.contains(&"sweep/tool/echo/valid"), "{names:?}");
    assert!(names.contains(&"sweep/tool/echo/invalid"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("delete")), "{names:?}");
    assert_eq!(cases.left_out.len(), 1);
    for s in &cases.scenarios {
        let text = serde_saphyr::to_string(s).unwrap();
        crate::model::parse_scenario(&text, "sweep.yaml")
            .unwrap_or_else(|e| panic!("{}: {e:?}\n{text}", s["name"]));
    }
    let all = super::cases(
        &tools(),
        &CaseOptions {
            cases: 3,
            edges: 24,
            include_mutating: true,
        },
        1,
    );
    assert!(all.left_out.is_empty());
}

#[test]
fn the_edge_cases_come_first_and_are_the_same_at_every_seed() {
    let options = CaseOptions {
        cases: 3,
        edges: 24,
        include_mutating: false,
    };
    let edge_steps = |seed: u64| -> Vec<Value> {
        let made = cases(&tools(), &options, seed);
        let valid = made
            .scenarios
            .iter()
            .find(|s| s["name"] == "sweep/tool/echo/valid")
            .unwrap();
        let steps = valid["steps"].as_array().unwrap();
        let labels: Vec<&str> = steps[1..]
            .iter()
            .filter_map(|s| s["label"].as_str())
            .collect();
        let first_seeded = labels.iter().position(|l| l.contains("(valid case 1)"));
        assert!(first_seeded.is_some_and(|i| i > 0), "{labels:?}");
        steps[1..]
            .iter()
            .take_while(|s| s["label"].as_str().is_some_and(|l| l.contains("(edge: ")))
            .cloned()
            .collect()
    };
    let first = edge_steps(1);
    assert_eq!(first[0]["label"], "call echo (edge: text empty string)");
    assert_eq!(first[0]["args"], json!({"text": ""}));
    for seed in 2..6 {
        assert_eq!(edge_steps(seed), first, "seed {seed}");
    }
}

#[test]
fn a_duplicate_name_is_named_under_the_uniqueness_sentence_and_swept_once() {
    let mut listed = tools();
    listed.push(listed[0].clone());
    let options = CaseOptions {
        cases: 1,
        edges: 2,
        include_mutating: false,
    };
    let made = cases(&listed, &options, 1);
    let unique = made
        .scenarios
        .iter()
        .find(|s| s["name"] == "sweep/surface/tool-names-unique")
        .unwrap();
    assert_eq!(
        unique["source"],
        json!([source(
            "Tool Names",
            "Tool names SHOULD be unique within a server."
        )])
    );
    assert_eq!(
        unique["steps"][1]["label"],
        "3 tools, 2 distinct names (listed more than once: \"echo\")"
    );
    let names = made
        .scenarios
        .iter()
        .filter(|s| s["name"] == "sweep/tool/echo/valid")
        .count();
    assert_eq!(names, 1);
    assert!(
        made.left_out
            .iter()
            .any(|l| l.starts_with("echo: listed more than once"))
    );
}

#[test]
fn a_result_is_judged_by_its_shape_and_the_declared_output_schema() {
    let output = json!({"type": "object", "required": ["text"]});
    let pattern = crate::matcher::Pattern::compile(&answer_pattern(Some(&output))).unwrap();
    // A call observation always holds the progress that came for its token (none here).
    let good = json!({"result": {"content": [{"type": "text", "text": "a"}],
                                 "structuredContent": {"text": "a"}},
                      "isError": false, "structured": {"text": "a"}, "progress": []});
    assert!(pattern.matches(&good).is_ok());
    let missing = json!({"result": {"content": []}, "isError": false, "progress": []});
    assert!(pattern.matches(&missing).is_err());
    let bad_block = json!({"result": {"content": [{"type": "image", "data": "x"}]},
                           "isError": true, "progress": []});
    assert!(pattern.matches(&bad_block).is_err());
    let refused = json!({"result": {"content": [{"type": "text", "text": "no"}], "isError": true},
                         "isError": true, "progress": []});
    assert!(pattern.matches(&refused).is_ok());
    let error = json!({"error": {"code": -32603, "message": "boom"}, "progress": []});
    assert!(pattern.matches(&error).is_ok());
    // Progress that does not increase fails the call, whatever its answer.
    let stuck = json!({"error": {"code": -32603, "message": "boom"},
                       "progress": [{"progress": 1}, {"progress": 1}]});
    assert!(pattern.matches(&stuck).is_err());
}
