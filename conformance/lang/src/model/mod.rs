//! The scenario and target languages: parsing with positions, then validation into typed
//! steps, so every mistake in a file is reported as `FILE:LINE:COL: message` before any
//! server is started.

pub mod kinds;
pub mod level;
pub mod scenario;
pub mod target;
mod validate;

pub use level::{Level, LevelPolicy, Source};
pub use scenario::{ExecSpec, InitializeSpec, OpenMode, RawScenario, ServerSpec};
pub use target::{CommandSpec, GenerationClaim, Knob, KnobEnv, Target};
pub use validate::validate_scenario;

use crate::sandbox::SandboxSpec;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A position in a scenario file, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

/// A problem in a scenario or target file, with its position when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub file: String,
    pub position: Option<Position>,
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}:{}:{}: {}", self.file, p.line, p.column, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for FileError {}

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
    pub requires: Vec<String>,
    /// The exact generations a target must speak (see [`RawScenario::generations`]).
    pub generations: Option<Vec<crate::generation::Generation>>,
    /// The generation pass this copy of the scenario runs in (set by the run's plan;
    /// `None` before planning means legacy).
    pub pass: Option<crate::generation::Generation>,
    pub knobs: BTreeMap<String, Value>,
    pub timeout: Option<Duration>,
    pub step_timeout: Option<Duration>,
    pub vars: indexmap::IndexMap<String, Value>,
    /// Servers in declaration order; the first is the default for steps without `on`.
    pub servers: Vec<(String, ServerSpec)>,
    pub sandbox: SandboxSpec,
    pub steps: Vec<Step>,
}

/// One validated step.
#[derive(Debug, Clone)]
pub struct Step {
    pub kind: StepKind,
    pub position: Position,
    pub on: Option<String>,
    pub expect: Option<Value>,
    pub save: BTreeMap<String, String>,
    pub within: Option<Duration>,
    pub every: Option<Duration>,
    pub timeout: Option<Duration>,
    /// A short human label (`call echo`, `admin approve ${rid}`).
    pub label: String,
    /// This step's weight over the scenario's level (top-level steps only).
    pub level: Option<Level>,
}

/// The signals a `kill` step can send: a closed set, parsed once when the scenario is loaded,
/// so a misspelt name is a validation error at its line, never a different signal at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillSignal {
    /// `TERM` (the default): ask the server to end.
    Term,
    /// `KILL`: end it without a chance to clean up.
    Kill,
    /// `INT`: as a terminal's Ctrl-C.
    Int,
    /// `HUP`: as a closed terminal.
    Hup,
}

impl KillSignal {
    /// Every signal, with the name a scenario writes.
    pub const ALL: [(KillSignal, &'static str); 4] = [
        (KillSignal::Term, "TERM"),
        (KillSignal::Kill, "KILL"),
        (KillSignal::Int, "INT"),
        (KillSignal::Hup, "HUP"),
    ];

    /// The name a scenario writes (`TERM`, ...).
    pub fn name(self) -> &'static str {
        KillSignal::ALL
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("TERM", |(_, n)| n)
    }
}

impl TryFrom<&str> for KillSignal {
    type Error = String;

    fn try_from(name: &str) -> Result<KillSignal, String> {
        KillSignal::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(s, _)| *s)
            .ok_or_else(|| {
                let names: Vec<&str> = KillSignal::ALL.iter().map(|(_, n)| *n).collect();
                format!("unknown signal {name:?} ({})", names.join(", "))
            })
    }
}

/// What a step does.
#[derive(Debug, Clone)]
pub enum StepKind {
    Initialize(InitializeSpec),
    ListTools,
    Call {
        name: String,
        args: Option<Value>,
        meta: Option<Value>,
        progress: bool,
        nowait: Option<String>,
    },
    Await(String),
    Poll {
        name: String,
        args: Option<Value>,
        until: Value,
    },
    Request {
        method: String,
        params: Option<Value>,
        meta: Option<Value>,
        nowait: Option<String>,
    },
    Notify {
        method: String,
        params: Option<Value>,
    },
    Send {
        text: String,
        newline: bool,
    },
    ExpectMessage(Value),
    NoMessage(Value),
    NoResponse(String),
    Admin {
        args: Vec<String>,
        stdin: Option<String>,
        env: BTreeMap<String, String>,
    },
    Exec {
        spec: ExecSpec,
        stdin: Option<String>,
    },
    File(String),
    Processes(String),
    Stderr,
    Stdout,
    Start,
    Restart,
    Stop,
    WaitExit,
    Kill(KillSignal),
    Parallel(Vec<Step>),
    Set(indexmap::IndexMap<String, Value>),
    Repeat {
        times: u64,
        var: String,
        steps: Vec<Step>,
    },
    Contract(String),
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

/// An error without a position.
pub fn plain_error(file: &str, message: &str) -> FileError {
    FileError {
        file: file.to_string(),
        position: None,
        message: message.to_string(),
    }
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

#[cfg(test)]
mod kill_signal_tests {
    use super::KillSignal;

    #[test]
    fn every_name_reads_back_and_nothing_else_is_a_signal() {
        for (signal, name) in KillSignal::ALL {
            assert_eq!(KillSignal::try_from(name), Ok(signal));
            assert_eq!(signal.name(), name);
        }
        for bad in ["term", "SIGTERM", "STOP", "", " TERM"] {
            let error = KillSignal::try_from(bad).expect_err(bad);
            assert!(error.contains("(TERM, KILL, INT, HUP)"), "{error}");
        }
    }
}
