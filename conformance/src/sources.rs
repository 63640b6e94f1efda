//! Where a run's target and scenarios come from: files on disk when named, else the suites
//! and targets built into the binary ([`crate::builtin`]).

use crate::builtin;
use crate::model::{self, FileError, Scenario, Target};
use crate::runner::TargetCtx;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Options shared by `run` and `list` to pick scenarios.
#[derive(Debug, clap::Args)]
pub struct Selection {
    /// The target: a file, or the name of a built-in target (`reference-toolhub`,
    /// `reference-hub`, `reference-safe-terminal`, `reference-safe-files`, `fixture`...).
    /// Default: fixtures/targets/reference-toolhub.yaml if that file exists, else the
    /// built-in reference-toolhub. Repeat it to judge several targets in one run (one
    /// report); a name with `*` or `?` stands for every built-in target it matches, e.g.
    /// `--target 'reference-*'`.
    #[arg(long, short)]
    pub target: Vec<PathBuf>,
    /// Scenario files or folders (searched recursively); default: the suites built into
    /// this binary.
    pub paths: Vec<PathBuf>,
    /// Only scenarios with this tag (repeat for any of several).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// Leave out scenarios with this tag (repeat for several), e.g. `slow`.
    #[arg(long = "skip-tag")]
    pub skip_tags: Vec<String>,
    /// Only scenarios whose name matches this glob (`*` and `?`).
    #[arg(long)]
    pub name: Option<String>,
    /// Run only part K of N (e.g. 2/4), deterministic by scenario name.
    #[arg(long, value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| "write the shard as K/N, e.g. 1/4".to_string())?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| "K must be a number".to_string())?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| "N must be a number".to_string())?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: need 1 <= K <= N"));
    }
    Ok((k, n))
}

/// The target used when `--target` is not given: this file when it exists (a checkout),
/// else the built-in target of the same name.
pub const DEFAULT_TARGET: &str = "fixtures/targets/reference-toolhub.yaml";

/// Loads every target named (`--target`, repeated), in the order given, each once: a file,
/// a built-in target, or a pattern with `*`/`?` over the built-in targets' names. None
/// named: the default target.
pub fn load_targets(paths: &[PathBuf]) -> Result<Vec<TargetCtx>, Vec<FileError>> {
    if paths.is_empty() {
        return load_target(&None).map(|(t, _)| vec![t]);
    }
    let mut named: Vec<PathBuf> = Vec::new();
    for path in paths {
        let text = path.to_string_lossy();
        if !path.is_file() && (text.contains('*') || text.contains('?')) {
            let matching: Vec<PathBuf> = builtin::target_names()
                .into_iter()
                .filter(|name| glob_match(&text, name))
                .map(PathBuf::from)
                .collect();
            if matching.is_empty() {
                return Err(vec![model::plain_error(
                    &text,
                    &format!(
                        "matches no built-in target (built-in: {})",
                        builtin::target_names().join(", ")
                    ),
                )]);
            }
            named.extend(matching);
        } else {
            named.push(path.clone());
        }
    }
    let mut targets: Vec<TargetCtx> = Vec::new();
    let mut errors = Vec::new();
    for path in named {
        match load_target(&Some(path)) {
            Ok((t, _)) if targets.iter().any(|o| o.display == t.display) => {}
            Ok((t, _)) => targets.push(t),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(targets)
    } else {
        Err(errors)
    }
}

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
            pool: None,
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

/// `*` matches any run of characters, `?` one character; everything else literally.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("protocol/*", "protocol/ping"));
        assert!(glob_match("*ping*", "protocol/ping-before-init"));
        assert!(glob_match("p?ng", "ping"));
        assert!(!glob_match("protocol/*", "toolhub/ping"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn shards() {
        assert_eq!(parse_shard("2/4"), Ok((2, 4)));
        assert!(parse_shard("0/4").is_err());
        assert!(parse_shard("5/4").is_err());
        assert!(parse_shard("x").is_err());
    }
}
