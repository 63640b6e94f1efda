//! Shards of one run put back together: the CI matrix is the distributed engine (`run --shard
//! K/N` on N machines, each writing `--json`), and `mcp-conformance merge` turns their JSON
//! reports into the report of the whole run, in every format.
//!
//! The merged report is the unsharded run's, scenario for scenario: a shard takes every N-th
//! scenario in name order, so sorting by name restores the order; the baseline is judged the
//! same way (an entry passed in some shard is stale; an entry is unknown only if no shard has
//! its scenario). Only the timings differ: the run's duration is the longest shard's, the wall
//! time of a matrix whose shards run side by side.

use super::{Failure, RunReport, ScenarioResult, Status};
use crate::model::{Level, Source};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::time::Duration;

/// Why shards cannot be merged.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    /// A file is not a JSON report of `mcp-conformance run`.
    #[error("{file}: not a JSON report of mcp-conformance run: {reason}")]
    NotAReport { file: String, reason: String },
    /// Shards of different targets (or target files) are different runs.
    #[error("{file}: a run against {found}, not {expected}: shards of one run share a target")]
    OtherTarget {
        file: String,
        found: String,
        expected: String,
    },
    /// Two shards report the same scenario: they overlap, or one file was given twice.
    #[error("{file}: scenario {name} is in another shard too: shards must not overlap")]
    Overlap { file: String, name: String },
    /// Nothing to merge.
    #[error("no report to merge")]
    Empty,
}

/// The JSON report as `json::to_json` writes it (its field names are the public interface).
#[derive(Deserialize)]
struct ReportDoc {
    target: String,
    target_file: String,
    duration_ms: u64,
    scenarios: Vec<ScenarioDoc>,
    baseline: BaselineDoc,
    /// Absent in reports written before it existed.
    #[serde(default)]
    not_judged: Vec<String>,
}

#[derive(Deserialize)]
struct BaselineDoc {
    stale: Vec<String>,
    unknown: Vec<String>,
}

#[derive(Deserialize)]
struct ScenarioDoc {
    name: String,
    file: String,
    suite: String,
    tags: Vec<String>,
    status: Status,
    duration_ms: u64,
    skip_reason: Option<String>,
    failure: Option<Failure>,
    baseline_expected_failure: bool,
    level: Level,
    warnings: Vec<Failure>,
    source: Vec<Source>,
}

/// Reads the JSON report `text` of a run (named `file` in errors).
///
/// # Errors
/// When `text` is not such a report.
pub fn from_json(text: &str, file: &str) -> Result<RunReport, MergeError> {
    let doc: ReportDoc = serde_json::from_str(text).map_err(|e| MergeError::NotAReport {
        file: file.to_owned(),
        reason: e.to_string(),
    })?;
    let scenarios = doc
        .scenarios
        .into_iter()
        .map(|s| ScenarioResult {
            name: s.name,
            file: s.file,
            suite: s.suite,
            tags: s.tags,
            status: s.status,
            duration: Duration::from_millis(s.duration_ms),
            skip_reason: s.skip_reason,
            failure: s.failure,
            baseline_expected_failure: s.baseline_expected_failure,
            level: s.level,
            warnings: s.warnings,
            sources: s.source,
        })
        .collect();
    Ok(RunReport {
        target: doc.target,
        target_file: doc.target_file,
        scenarios,
        duration: Duration::from_millis(doc.duration_ms),
        stale_baseline: doc.baseline.stale,
        unknown_baseline: doc.baseline.unknown,
        not_judged: doc.not_judged,
    })
}

/// The report of the whole run from its shards' reports, each with the file it came from.
///
/// # Errors
/// No shard, shards of different targets, or shards that overlap.
pub fn merge(shards: Vec<(String, RunReport)>) -> Result<RunReport, MergeError> {
    let mut shards = shards.into_iter();
    let (_, first) = shards.next().ok_or(MergeError::Empty)?;
    let mut merged = first;
    let mut names: BTreeSet<String> = merged.scenarios.iter().map(|s| s.name.clone()).collect();
    let mut stale: BTreeSet<String> = merged.stale_baseline.drain(..).collect();
    let mut unknown: BTreeSet<String> = merged.unknown_baseline.drain(..).collect();
    for (file, shard) in shards {
        if (&shard.target, &shard.target_file) != (&merged.target, &merged.target_file) {
            return Err(MergeError::OtherTarget {
                file,
                found: format!("{} ({})", shard.target, shard.target_file),
                expected: format!("{} ({})", merged.target, merged.target_file),
            });
        }
        for s in &shard.scenarios {
            if !names.insert(s.name.clone()) {
                return Err(MergeError::Overlap {
                    file,
                    name: s.name.clone(),
                });
            }
        }
        merged.scenarios.extend(shard.scenarios);
        merged.duration = merged.duration.max(shard.duration);
        for line in shard.not_judged {
            if !merged.not_judged.contains(&line) {
                merged.not_judged.push(line);
            }
        }
        stale.extend(shard.stale_baseline);
        let theirs: BTreeSet<String> = shard.unknown_baseline.into_iter().collect();
        unknown.retain(|u| theirs.contains(u));
    }
    merged.scenarios.sort_by(|a, b| a.name.cmp(&b.name));
    // An entry one shard did not know may name a scenario of another.
    unknown.retain(|u| !names.contains(u));
    merged.stale_baseline = stale.into_iter().collect();
    merged.unknown_baseline = unknown.into_iter().collect();
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(target: &str, names: &[&str], unknown: &[&str]) -> RunReport {
        RunReport {
            target: target.to_owned(),
            target_file: "t.yaml".to_owned(),
            scenarios: names
                .iter()
                .map(|n| ScenarioResult {
                    name: (*n).to_owned(),
                    file: format!("{n}.yaml"),
                    suite: "s".to_owned(),
                    tags: vec![],
                    status: Status::Passed,
                    duration: Duration::from_millis(1),
                    skip_reason: None,
                    failure: None,
                    baseline_expected_failure: false,
                    level: Level::Must,
                    warnings: vec![],
                    sources: vec![],
                })
                .collect(),
            duration: Duration::from_millis(names.len() as u64),
            stale_baseline: vec![],
            unknown_baseline: unknown.iter().map(|u| (*u).to_owned()).collect(),
            not_judged: vec![],
        }
    }

    #[test]
    fn shards_merge_in_name_order_with_the_baseline_judged_whole() {
        let merged = merge(vec![
            ("1.json".into(), report("t", &["a", "c"], &["b", "gone"])),
            (
                "2.json".into(),
                report("t", &["b", "d", "e"], &["c", "gone"]),
            ),
        ])
        .expect("one run");
        let names: Vec<&str> = merged.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        assert_eq!(merged.unknown_baseline, ["gone"]);
        assert_eq!(merged.duration, Duration::from_millis(3));
    }

    #[test]
    fn shards_of_other_runs_or_overlapping_ones_are_refused() {
        let other = merge(vec![
            ("1.json".into(), report("t", &["a"], &[])),
            ("2.json".into(), report("u", &["b"], &[])),
        ]);
        assert!(
            matches!(other, Err(MergeError::OtherTarget { .. })),
            "{other:?}"
        );
        let twice = merge(vec![
            ("1.json".into(), report("t", &["a"], &[])),
            ("1.json".into(), report("t", &["a"], &[])),
        ]);
        assert_eq!(
            twice.map(|_| ()),
            Err(MergeError::Overlap {
                file: "1.json".into(),
                name: "a".into()
            })
        );
        assert_eq!(merge(vec![]).map(|_| ()), Err(MergeError::Empty));
        let junk = from_json("{\"target\": 1}", "x.json").map(|_| ());
        assert!(
            matches!(&junk, Err(MergeError::NotAReport { file, .. }) if file == "x.json"),
            "{junk:?}"
        );
    }
}
