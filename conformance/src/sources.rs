//! Where a run's target and scenarios come from: files on disk when named, else the suites
//! and targets built into the binary ([`crate::builtin`]).

use crate::builtin;
use crate::cli::{Selection, glob_match};
use crate::model::{self, FileError, Scenario, Target};
use crate::runner::TargetCtx;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The target used when `--target` is not given: this file when it exists (a checkout),
/// else the built-in target of the same name.
pub const DEFAULT_TARGET: &str = "fixtures/targets/reference-toolhub.yaml";

/// Loads the target: the named file when it exists, else the built-in target of that name
/// (`reference-hub`, or a repository path such as `fixtures/targets/reference-hub.yaml`).
pub fn load_target(path: &Option<PathBuf>) -> Result<(TargetCtx, Target), Vec<FileError>> {
    let path = path
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_TARGET));
    let display = path.display().to_string();
    let (target, dir, display) = if path.is_file() {
        let target = model::load_target(&path, &display)?;
        let dir = path
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("."));
        (target, dir, display)
    } else if let Some((builtin_display, text)) = builtin::target(&display) {
        let target = model::parse_target(text, &builtin_display)?;
        let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        (target, dir, builtin_display)
    } else {
        return Err(vec![model::plain_error(
            &display,
            &format!(
                "no such target file, nor a built-in target of that name (built-in: {})",
                builtin::target_names().join(", ")
            ),
        )]);
    };
    let exe = std::env::current_exe().map_err(|e| {
        vec![model::plain_error(
            &display,
            &format!("cannot locate mcp-conformance itself: {e}"),
        )]
    })?;
    Ok((
        TargetCtx {
            target: target.clone(),
            display,
            dir,
            exe,
        },
        target,
    ))
}

/// Loads, validates and filters scenarios: the files under `sel.paths`, or the built-in
/// suites when no path is given; errors for every bad file.
pub fn load_scenarios(sel: &Selection) -> Result<Vec<Scenario>, Vec<FileError>> {
    let mut errors = Vec::new();
    let mut scenarios = Vec::new();
    if sel.paths.is_empty() {
        for (display, text) in builtin::scenarios() {
            match model::parse_scenario(text, &display) {
                Ok(s) => scenarios.push(s),
                Err(mut e) => errors.append(&mut e),
            }
        }
    } else {
        for file in collect_files(&sel.paths, &mut errors) {
            let display = file.display().to_string();
            match model::load_scenario(&file, &display) {
                Ok(s) => scenarios.push(s),
                Err(mut e) => errors.append(&mut e),
            }
        }
    }
    let mut seen = BTreeSet::new();
    for s in &scenarios {
        if !seen.insert(s.name.clone()) {
            errors.push(model::plain_error(
                &s.file,
                &format!("duplicate scenario name {}", s.name),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    scenarios.retain(|s| {
        (sel.tags.is_empty() || s.tags.iter().any(|t| sel.tags.contains(t)))
            && !s.tags.iter().any(|t| sel.skip_tags.contains(t))
            && sel.name.as_deref().is_none_or(|g| glob_match(g, &s.name))
    });
    scenarios.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some((k, n)) = sel.shard {
        scenarios = scenarios
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % n == k - 1)
            .map(|(_, s)| s)
            .collect();
    }
    Ok(scenarios)
}

/// Every YAML file under `paths`; a path that cannot be read becomes an error.
pub fn collect_files(paths: &[PathBuf], errors: &mut Vec<FileError>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for root in paths {
        match model::find_scenario_files(root) {
            Ok(mut f) => files.append(&mut f),
            Err(e) => errors.push(model::plain_error(
                &root.display().to_string(),
                &format!("cannot read: {e}"),
            )),
        }
    }
    files
}
