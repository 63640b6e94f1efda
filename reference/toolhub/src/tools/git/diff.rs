//! `git.diff`: unified diff of the work tree (or the index) against the index (or `HEAD`),
//! optionally restricted to one workspace-relative path.

use mcp_safety_core::jail::{EntryKind, JailError, RelPath};
use serde_json::json;

use super::codes;
use super::parse::parse_numstat_z;
use super::refused_path;
use super::run::Session;
use crate::contract::{GitDiffInput, GitDiffOutput, tools};
use crate::error::ToolError;
use crate::hub::Hub;

/// The `diff` arguments. `numstat` selects `--numstat -z` (totals) instead of the patch.
/// The pathspec is literal (the session passes `--literal-pathspecs`).
pub fn diff_args(path: &RelPath, staged: bool, numstat: bool) -> Vec<String> {
    let mut args = vec!["diff"];
    if staged {
        args.push("--cached");
    }
    if numstat {
        args.extend(["--numstat", "-z"]);
    }
    args.extend([
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--submodule=short",
        "--ignore-submodules=dirty",
    ]);
    let mut args: Vec<String> = args.into_iter().map(String::from).collect();
    if !path.is_root() {
        args.push("--".into());
        args.push(path.as_str().to_string());
    }
    args
}

impl Hub {
    /// Validates a diff path: the jail's lexical rules, and no existing symlink anywhere on
    /// it. A path that does not exist (a deleted file) is allowed.
    fn diff_path(&self, raw: Option<&str>) -> Result<RelPath, ToolError> {
        let path = match raw {
            None => return Ok(RelPath::root()),
            Some(p) => RelPath::parse(p).map_err(refused_path)?,
        };
        match self.workspace.stat(&path) {
            Ok(info) if info.kind == EntryKind::Symlink => {
                Err(refused_path(JailError::SymlinkRefused {
                    path: path.display().to_string(),
                }))
            }
            Ok(_) | Err(JailError::NotFound { .. } | JailError::NotADirectory { .. }) => Ok(path),
            Err(e) => Err(refused_path(e)),
        }
    }

    /// `git.diff`: `raw` is the unified diff bounded with the discard marker; additions,
    /// deletions and binary come from `--numstat` and are absent when that listing was cut.
    pub fn git_diff(&self, input: GitDiffInput) -> Result<GitDiffOutput, ToolError> {
        let trace_id = self.new_trace_id()?;
        let staged = input.staged.unwrap_or(false);
        let mut session = Session::new(self.workspace.root());
        let result = self.git_diff_in(&mut session, input.path.as_deref(), staged);
        let extra = json!({ "path": input.path.as_deref().unwrap_or("."), "staged": staged });
        self.audit_git(tools::GIT_DIFF, &trace_id, &session, &result, extra);
        result
    }

    fn git_diff_in(
        &self,
        session: &mut Session,
        raw_path: Option<&str>,
        staged: bool,
    ) -> Result<GitDiffOutput, ToolError> {
        let path = self.diff_path(raw_path)?;
        self.check_git_dir()?;
        session.harden()?;
        let raw = session.run("diff", diff_args(&path, staged, false))?;
        let numstat = session.run("diff_numstat", diff_args(&path, staged, true))?;
        let totals = if numstat.dropped_bytes > 0 {
            None
        } else {
            Some(
                parse_numstat_z(&numstat.bytes)
                    .map_err(|e| ToolError::refused(codes::GIT_FAILED, e.to_string()))?,
            )
        };
        Ok(GitDiffOutput {
            path: path.display().to_string(),
            staged,
            raw: raw.text_with_marker(),
            additions: totals.map(|t| t.additions),
            deletions: totals.map(|t| t.deletions),
            binary: totals.map(|t| t.binary),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_args_shapes() {
        let root = RelPath::root();
        assert_eq!(
            diff_args(&root, false, false),
            [
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                "--submodule=short",
                "--ignore-submodules=dirty"
            ]
        );
        let p = RelPath::parse("./src//-n.rs").expect("valid");
        let args = diff_args(&p, true, true);
        assert_eq!(args[..4], ["diff", "--cached", "--numstat", "-z"]);
        assert_eq!(args[args.len() - 2..], ["--", "src/-n.rs"]);
    }
}
