//! The scenario and target languages: parsing with positions, then validation into typed
//! steps, so every mistake in a file is reported as `FILE:LINE:COL: message` before any
//! server is started.

pub mod level;
pub mod position;
pub mod scenario;
pub mod steps;
pub mod target;
mod validate;

pub use level::{Level, LevelPolicy, Source};
pub use position::{FileError, Position, plain_error};
pub use scenario::{RawScenario, ServerSpec};
pub use steps::exec::ExecSpec;
pub use steps::initialize::{InitializeSpec, OpenMode};
pub use steps::kill::KillSignal;
pub use steps::{RawStep, Step, StepKind};
pub use target::{CommandSpec, GenerationClaim, Knob, KnobEnv, Target};
pub use validate::validate_scenario;

use crate::sandbox::SandboxSpec;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A validated scenario, ready to run.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: String,
    pub name: String,
    pub suite: String,
    pub description: Option<String>,
    pub spec: Vec<String>,
    /// Where the scenario's rule is written, quoted.
    pub sources: Vec<Source>,
    /// How binding its checks are, unless a step says otherwise.
    pub level: Level,
    pub tags: Vec<String>,
    /// The official conformance scenario ids this one mirrors (see [`RawScenario::mirrors`]).
    pub mirrors: Vec<String>,
    pub requires: Vec<String>,
    /// The exact generations a target must speak (see [`RawScenario::generations`]).
    pub generations: Option<Vec<crate::generation::Generation>>,
    /// The generation pass this copy of the scenario runs in (set by the run's plan;
    /// `None` before planning means legacy).
    pub pass: Option<crate::generation::Generation>,
    /// The passes of the same run before this copy's (set by the run's plan), so a scenario
    /// tagged `one-generation` runs once, in the first pass its target speaks.
    pub earlier_passes: Vec<crate::generation::Generation>,
    pub knobs: BTreeMap<String, Value>,
    pub timeout: Option<Duration>,
    pub step_timeout: Option<Duration>,
    pub vars: indexmap::IndexMap<String, Value>,
    /// Servers in declaration order; the first is the default for steps without `on`.
    pub servers: Vec<(String, ServerSpec)>,
    pub sandbox: SandboxSpec,
    pub steps: Vec<Step>,
}

/// Reads and validates a scenario file. `display` is how the file is named in messages.
pub fn load_scenario(path: &Path, display: &str) -> Result<Scenario, Vec<FileError>> {
    parse_scenario(&read(path, display)?, display)
}

/// Parses and validates a scenario's text (a file's, or a built-in one's).
pub fn parse_scenario(text: &str, display: &str) -> Result<Scenario, Vec<FileError>> {
    let raw: RawScenario = parse_yaml(text, display)?;
    validate_scenario(raw, display)
}

/// Reads and parses a target file.
pub fn load_target(path: &Path, display: &str) -> Result<Target, Vec<FileError>> {
    parse_target(&read(path, display)?, display)
}

/// Parses and checks a target's text (a file's, or a built-in one's).
pub fn parse_target(text: &str, display: &str) -> Result<Target, Vec<FileError>> {
    let target: Target = parse_yaml(text, display)?;
    if target.name.trim().is_empty() {
        return Err(vec![plain_error(display, "target name must not be empty")]);
    }
    for (name, seed) in [
        ("workspace", &target.workspace),
        ("state", &target.state),
        ("home", &target.home),
    ] {
        if let Err(e) = seed.validate(name) {
            return Err(vec![plain_error(display, &format!("{name}: {e}"))]);
        }
    }
    Ok(target)
}

fn read(path: &Path, display: &str) -> Result<String, Vec<FileError>> {
    std::fs::read_to_string(path)
        .map_err(|e| vec![plain_error(display, &format!("cannot read: {e}"))])
}

/// Parses YAML into `T`, turning serde-saphyr's error into `FILE:LINE:COL: message`.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(
    text: &str,
    display: &str,
) -> Result<T, Vec<FileError>> {
    serde_saphyr::from_str(text).map_err(|e| {
        let position = e.location().filter(|l| l.line() > 0).map(|l| Position {
            line: l.line(),
            column: l.column(),
        });
        let options = serde_saphyr::render_options! { snippets: serde_saphyr::SnippetMode::Off };
        let rendered = e.without_snippet().render_with_options(options);
        vec![FileError {
            file: display.to_string(),
            position,
            message: strip_location_suffix(&rendered),
        }]
    })
}

/// serde-saphyr appends ` at line L, column C` to plain messages; the position is already
/// in front of ours, so drop it.
fn strip_location_suffix(message: &str) -> String {
    let first = message.lines().next().unwrap_or("").trim();
    match first.rfind(" at line ") {
        Some(i) => first[..i].to_string(),
        None => first.to_string(),
    }
}

/// Finds scenario files under `path` (a file, or a folder searched recursively for `.yaml`
/// and `.yml`), sorted for a stable order.
pub fn find_scenario_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if path.is_dir() {
        walk(path, &mut out)?;
        out.sort();
    } else {
        std::fs::metadata(path)?;
        out.push(path.to_path_buf());
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml") | Some("yml")
        ) {
            out.push(path);
        }
    }
    Ok(())
}
