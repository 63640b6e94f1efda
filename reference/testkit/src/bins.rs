//! Binaries of other workspace packages, for the tests that drive more than their own package's
//! (the hub in front of ToolHub, `safe-mcp` or the suite's fixture server; ToolHub behind the
//! hub).
//!
//! Cargo gives a package's tests only that package's binaries (`CARGO_BIN_EXE_…`). Building
//! the others from inside a test (a nested `cargo build`) rebuilt crates with another feature
//! set and replaced binaries that tests running in parallel were executing, so they are found,
//! never built:
//!
//! 1. next to the test package's own binary: `cargo test --workspace` (the README's test
//!    command) builds every binary of the workspace, in the same profile, before it runs any
//!    test, so they are current there;
//! 2. otherwise in `MCP_BIN_DIR`: `mutants/run` builds the workspace's binaries once and names
//!    their folder, because cargo-mutants tests one package in a scratch copy of the tree.
//!
//! Found nowhere: the test fails with the command that builds it. A test of one package
//! (`cargo test -p mcp-hub`) uses whatever binary of another package the last build left:
//! build the workspace first (`cargo build --workspace`) when that package changed.

use std::path::{Path, PathBuf};

/// The variable naming a folder of prebuilt workspace binaries (the second place looked in).
pub const BIN_DIR_VAR: &str = "MCP_BIN_DIR";

/// Binary `name` of another workspace package, next to `own_binary` (an
/// `env!("CARGO_BIN_EXE_…")` of the test's package) or in [`BIN_DIR_VAR`].
///
/// # Panics
/// When it is in neither place, naming both and the command that builds it.
pub fn workspace_bin(name: &str, own_binary: &str) -> PathBuf {
    let dir_var = std::env::var_os(BIN_DIR_VAR).map(PathBuf::from);
    match find(name, Path::new(own_binary), dir_var.as_deref()) {
        Some(path) => path,
        None => panic!(
            "{name} is not built next to {own_binary} (nor in ${BIN_DIR_VAR}): \
             run `cargo build --workspace` first, or `cargo test --workspace`, which builds it"
        ),
    }
}

/// Where [`workspace_bin`] finds `name`: beside `own_binary`, else in `dir`.
fn find(name: &str, own_binary: &Path, dir: Option<&Path>) -> Option<PathBuf> {
    let beside = own_binary.parent().map(|d| d.join(name));
    let in_dir = dir.map(|d| d.join(name));
    [beside, in_dir].into_iter().flatten().find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::write(path, b"").unwrap();
    }

    #[test]
    fn the_sibling_wins_then_the_named_folder() {
        let built = tempfile::tempdir().unwrap();
        let prebuilt = tempfile::tempdir().unwrap();
        let own = built.path().join("mcp-hub");
        touch(&own);
        assert_eq!(find("mcp-toolhub", &own, Some(prebuilt.path())), None);

        touch(&prebuilt.path().join("mcp-toolhub"));
        assert_eq!(
            find("mcp-toolhub", &own, Some(prebuilt.path())),
            Some(prebuilt.path().join("mcp-toolhub"))
        );
        assert_eq!(find("mcp-toolhub", &own, None), None);

        touch(&built.path().join("mcp-toolhub"));
        assert_eq!(
            find("mcp-toolhub", &own, Some(prebuilt.path())),
            Some(built.path().join("mcp-toolhub"))
        );
    }

    #[test]
    fn a_folder_of_that_name_is_not_a_binary() {
        let built = tempfile::tempdir().unwrap();
        std::fs::create_dir(built.path().join("safe-mcp")).unwrap();
        assert_eq!(find("safe-mcp", &built.path().join("mcp-hub"), None), None);
    }
}
