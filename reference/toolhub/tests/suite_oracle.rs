//! The built-in conformance suites against this package's freshly built server: the oracle
//! that mutation testing runs on every mutant (`.cargo/mutants.toml`). Ignored by default, like
//! an `#[ignore]`d test: `cargo test -p <package> --test suite_oracle -- --include-ignored`.
//! How it works: `mcp_testkit::oracle`.

use mcp_testkit::oracle::{self, SuiteRun};

fn main() -> std::process::ExitCode {
    oracle::main(
        &[SuiteRun {
            target: "reference-toolhub",
            extra_args: &["--skip-tag", "slow"],
        }],
        &[
            ("mcp-toolhub", env!("CARGO_BIN_EXE_mcp-toolhub")),
            ("mcp-toolhub-admin", env!("CARGO_BIN_EXE_mcp-toolhub-admin")),
        ],
        env!("CARGO_TARGET_TMPDIR"),
    )
}
