//! The conformance suites as a test of the package that builds the server: the oracle that
//! mutation testing (`.cargo/mutants.toml`) runs on every mutant, so a mutant the workspace
//! tests miss but a scenario catches counts as caught.
//!
//! A package's `tests/suite_oracle.rs` (a `harness = false` test) calls [`main`] with its
//! freshly built binaries (`env!("CARGO_BIN_EXE_…")`, which cargo rebuilds for the package's
//! own tests, so a mutant is never judged by a stale binary). The test binary is linked with
//! the `mcp-conformance` library and plays `mcp-conformance` itself: [`main`] hard-links it,
//! under that name, into a folder beside the server binaries, exactly as a release archive
//! lays them out, and runs `mcp-conformance run --target <built-in reference target>` there.
//! When the runner starts `${conformance} fixture-server` or `${conformance} probe` (or a
//! scenario runs a copy of it under another name), that process is this binary again, under a
//! name cargo never gives a test, and [`main`] hands it to the suite's command line.
//!
//! Like an `#[ignore]`d test, the oracle runs only with `--ignored` or `--include-ignored`
//! (`cargo test -p mcp-toolhub -- --include-ignored`): `cargo test --workspace` stays fast, and
//! `.ci/run` runs the same suites through the built binaries anyway.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// The name the oracle's test binary answers to when it plays the suite.
const CONFORMANCE: &str = "mcp-conformance";

/// The test's name, as `cargo test` filters match it.
const TEST_NAME: &str = "suite_oracle";

/// One conformance run: a built-in reference target and the extra `run` arguments.
#[derive(Debug, Clone, Copy)]
pub struct SuiteRun<'a> {
    /// A built-in target (`mcp-conformance list --targets`), e.g. `reference-toolhub`.
    pub target: &'a str,
    /// Extra arguments for `mcp-conformance run`, e.g. `["--skip-tag", "slow"]`.
    pub extra_args: &'a [&'a str],
}

/// The entry point of a package's `tests/suite_oracle.rs`.
///
/// `binaries` are the package's server programs, by the name the target calls them and the
/// path cargo built (`env!("CARGO_BIN_EXE_mcp-toolhub")`); `scratch` is the package's
/// `env!("CARGO_TARGET_TMPDIR")`, on the same filesystem as the binaries so they can be
/// hard-linked rather than copied.
pub fn main(runs: &[SuiteRun<'_>], binaries: &[(&str, &str)], scratch: &str) -> ExitCode {
    let mut args = std::env::args_os();
    let argv0 = args.next().map(PathBuf::from).unwrap_or_default();
    if !started_by_cargo(&argv0) {
        return mcp_conformance::cli::main();
    }
    let args: Vec<OsString> = args.collect();
    match Selection::from_args(&args) {
        Selection::List => {
            // libtest's `--list` format, for tools that enumerate tests first.
            println!("{TEST_NAME}: test");
            ExitCode::SUCCESS
        }
        Selection::Skip(why) => {
            println!("running 1 test\ntest {TEST_NAME} ... ignored, {why}\n");
            ExitCode::SUCCESS
        }
        Selection::Run => run_all(runs, binaries, Path::new(scratch)),
    }
}

/// Whether this process is the test cargo started (`target/…/deps/suite_oracle-<hash>`), not
/// the suite it plays: `mcp-conformance` in the oracle's folder, or a copy the scenarios make
/// of `${conformance}` under another name (the probe programs of the shell scenarios).
fn started_by_cargo(argv0: &Path) -> bool {
    argv0
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == TEST_NAME || n.starts_with(&format!("{TEST_NAME}-")))
}

/// What the libtest-style arguments ask of the oracle.
#[derive(Debug, PartialEq, Eq)]
enum Selection {
    List,
    Skip(&'static str),
    Run,
}

impl Selection {
    fn from_args(args: &[OsString]) -> Self {
        let mut ignored = false;
        let mut filters = Vec::new();
        let mut skips = Vec::new();
        let mut exact = false;
        let mut list = false;
        let mut iter = args.iter().map(|a| a.to_string_lossy().into_owned());
        while let Some(arg) = iter.next() {
            match arg.as_str() {
                "--ignored" | "--include-ignored" => ignored = true,
                "--list" => list = true,
                "--exact" => exact = true,
                "--skip" => skips.extend(iter.next()),
                // libtest options that take a value: skip it.
                "--test-threads" | "--format" | "--color" | "--logfile" | "--report-time"
                | "-Z" => {
                    iter.next();
                }
                a if a.starts_with('-') => {}
                filter => filters.push(filter.to_owned()),
            }
        }
        let matches = |f: &String| {
            if exact {
                f == TEST_NAME
            } else {
                TEST_NAME.contains(f.as_str())
            }
        };
        let selected =
            (filters.is_empty() || filters.iter().any(matches)) && !skips.iter().any(matches);
        if list {
            Self::List
        } else if !selected {
            Self::Skip("filtered out")
        } else if !ignored {
            Self::Skip("the conformance suites: run with -- --include-ignored")
        } else {
            Self::Run
        }
    }
}

fn run_all(runs: &[SuiteRun<'_>], binaries: &[(&str, &str)], scratch: &Path) -> ExitCode {
    let bin_dir = scratch.join("suite-oracle-bin");
    if let Err(e) = lay_out(&bin_dir, binaries) {
        eprintln!(
            "{TEST_NAME}: cannot lay out the binaries in {}: {e}",
            bin_dir.display()
        );
        return ExitCode::FAILURE;
    }
    let mut failed = Vec::new();
    for run in runs {
        let started = Instant::now();
        let status = Command::new(bin_dir.join(CONFORMANCE))
            .arg("run")
            .args(["--target", run.target, "--protocol", "both", "--strict"])
            .arg("--no-color")
            .args(run.extra_args)
            .env("PATH", search_path(&bin_dir))
            .status();
        let seconds = started.elapsed().as_secs_f64();
        match status {
            Ok(s) if s.success() => {
                println!("{TEST_NAME}: {} passed in {seconds:.1} s", run.target);
            }
            Ok(s) => {
                println!("{TEST_NAME}: {} FAILED ({s}) in {seconds:.1} s", run.target);
                failed.push(run.target);
            }
            Err(e) => {
                println!("{TEST_NAME}: {} could not start: {e}", run.target);
                failed.push(run.target);
            }
        }
    }
    if failed.is_empty() {
        println!("test {TEST_NAME} ... ok");
        ExitCode::SUCCESS
    } else {
        println!("test {TEST_NAME} ... FAILED: {}", failed.join(", "));
        ExitCode::FAILURE
    }
}

/// Puts this test binary (as `mcp-conformance`) and the package's servers side by side in
/// `dir`, replacing whatever an earlier build left there.
fn lay_out(dir: &Path, binaries: &[(&str, &str)]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let me = std::env::current_exe()?;
    link_or_copy(&me, &dir.join(CONFORMANCE))?;
    for (name, path) in binaries {
        link_or_copy(Path::new(path), &dir.join(name))?;
    }
    Ok(())
}

fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(to) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to)?;
    }
    Ok(())
}

/// `PATH` with the oracle's folder first, so a server that looks itself up by name (ToolHub's
/// intrinsic `mcp-toolhub --version`) finds the binary under test.
fn search_path(first: &Path) -> OsString {
    let mut dirs = vec![first.to_path_buf()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).unwrap_or_else(|_| first.as_os_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(args: &[&str]) -> Selection {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        Selection::from_args(&args)
    }

    #[test]
    fn plays_the_suite_under_any_name_but_its_own() {
        assert!(started_by_cargo(Path::new(
            "target/debug/deps/suite_oracle-00ef1b3886fcf3ed"
        )));
        assert!(started_by_cargo(Path::new("suite_oracle")));
        assert!(!started_by_cargo(Path::new(
            "/x/suite-oracle-bin/mcp-conformance"
        )));
        assert!(!started_by_cargo(Path::new("/tmp/w/tool/probe")));
        assert!(!started_by_cargo(Path::new("suite_oracle_copy")));
    }

    #[test]
    fn runs_only_when_ignored_tests_are_asked_for() {
        assert!(matches!(sel(&[]), Selection::Skip(_)));
        assert!(matches!(sel(&["--nocapture"]), Selection::Skip(_)));
        assert_eq!(sel(&["--include-ignored"]), Selection::Run);
        assert_eq!(sel(&["--ignored", "--test-threads", "1"]), Selection::Run);
    }

    #[test]
    fn honours_name_filters_and_list() {
        assert_eq!(sel(&["--include-ignored", "oracle"]), Selection::Run);
        assert_eq!(
            sel(&["--include-ignored", "--exact", "suite_oracle"]),
            Selection::Run
        );
        assert!(matches!(
            sel(&["--include-ignored", "crash"]),
            Selection::Skip("filtered out")
        ));
        assert!(matches!(
            sel(&["--include-ignored", "--skip", "x", "--exact", "oracle"]),
            Selection::Skip("filtered out")
        ));
        assert_eq!(
            sel(&["--include-ignored", "--skip", "crash"]),
            Selection::Run
        );
        assert!(matches!(
            sel(&["--include-ignored", "--skip", "oracle"]),
            Selection::Skip("filtered out")
        ));
        assert_eq!(sel(&["--list", "--format", "terse"]), Selection::List);
    }
}
