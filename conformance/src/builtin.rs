//! The suites and default targets built into the binary.
//!
//! `cargo install` or an unpacked release archive has no checkout, yet `mcp-conformance run`
//! must run the whole suite from any folder: the build embeds `conformance/scenarios/` and
//! `conformance/targets/` (see `build.rs`). Files on disk win whenever they are named: a
//! PATH given to `run` is read from disk, and `--target` names a file first and a built-in
//! target only when no such file exists.

mod files {
    include!(concat!(env!("OUT_DIR"), "/builtin_files.rs"));
}

/// How embedded files are named in messages and reports (`<built-in>/protocol/ping.yaml`).
pub const PREFIX: &str = "<built-in>";

/// The embedded scenario files: (display name, contents), sorted by path.
pub fn scenarios() -> impl Iterator<Item = (String, &'static str)> {
    files::FILES.iter().filter_map(|(path, text)| {
        let rest = path.strip_prefix("scenarios/")?;
        let is_yaml = rest.ends_with(".yaml") || rest.ends_with(".yml");
        is_yaml.then(|| (format!("{PREFIX}/{rest}"), *text))
    })
}

/// A file beside the built-in scenarios, named as a built-in scenario names it
/// (`<built-in>/toolhub/contract-v1-surface.json`, `.` and `..` allowed); `None` for a
/// path outside the built-in suites.
pub fn read(path: &std::path::Path) -> Option<&'static str> {
    let text = path.to_str()?;
    let rest = text.strip_prefix(PREFIX)?.strip_prefix('/')?;
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    let wanted = format!("scenarios/{}", parts.join("/"));
    files::FILES
        .iter()
        .find_map(|(path, text)| (*path == wanted).then_some(*text))
}

/// The names of the embedded targets (`reference-toolhub`, `fixture`, ...), sorted.
pub fn target_names() -> Vec<&'static str> {
    files::FILES
        .iter()
        .filter_map(|(path, _)| {
            path.strip_prefix("targets/")
                .and_then(|f| f.strip_suffix(".yaml").or_else(|| f.strip_suffix(".yml")))
        })
        .collect()
}

/// The embedded target called `name` (with or without `.yaml`, or as the repository path
/// `fixtures/targets/NAME.yaml`): (display name, contents).
pub fn target(name: &str) -> Option<(String, &'static str)> {
    let base = name
        .rsplit('/')
        .next()
        .unwrap_or(name)
        .trim_end_matches(".yaml")
        .trim_end_matches(".yml");
    files::FILES.iter().find_map(|(path, text)| {
        let file = path.strip_prefix("targets/")?;
        let stem = file
            .strip_suffix(".yaml")
            .or_else(|| file.strip_suffix(".yml"))?;
        (stem == base).then(|| (format!("{PREFIX}/targets/{file}"), *text))
    })
}

/// The suites the embedded scenarios belong to, each with its number of scenarios (from the
/// folder names, which are the suites' names by convention; `list` shows the exact suite of
/// every scenario).
pub fn suite_folders() -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for (name, _) in scenarios() {
        let folder = name
            .trim_start_matches(PREFIX)
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or("")
            .to_string();
        *counts.entry(folder).or_default() += 1;
    }
    counts.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suites_and_the_reference_targets_are_embedded() {
        assert!(scenarios().count() > 100);
        assert!(scenarios().any(|(name, _)| name == "<built-in>/protocol/ping.yaml"));
        for name in [
            "reference-toolhub",
            "reference-hub",
            "reference-safe-terminal",
            "fixture",
            "liar",
        ] {
            assert!(target_names().contains(&name), "{name}");
        }
        let by_path = target("fixtures/targets/reference-hub.yaml").expect("by repository path");
        assert_eq!(by_path.0, "<built-in>/targets/reference-hub.yaml");
        assert!(target("no-such-target").is_none());
        let surface = std::path::Path::new("<built-in>/toolhub/./x/../contract-v1-surface.json");
        assert!(read(surface).is_some_and(|t| t.contains("\"tools\"")));
        assert!(read(std::path::Path::new("<built-in>/../Cargo.toml")).is_none());
        assert!(scenarios().all(|(name, _)| name.ends_with(".yaml")));
    }

    #[test]
    fn every_built_in_scenario_is_valid_and_says_where_its_rule_comes_from() {
        let mut problems = Vec::new();
        for (name, text) in scenarios() {
            match crate::model::parse_scenario(text, &name) {
                Ok(scenario) if scenario.sources.is_empty() => {
                    problems.push(format!("{name}: no `source:`"));
                }
                Ok(_) => {}
                Err(errors) => problems.extend(errors.iter().map(ToString::to_string)),
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
