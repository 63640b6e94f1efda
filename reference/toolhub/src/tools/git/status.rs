//! `git.status`: porcelain v1 status of the workspace repository.

use serde_json::json;

use super::codes;
use super::parse::parse_status_z;
use super::run::Session;
use crate::contract::{GitStatusOutput, tools};
use crate::error::ToolError;
use crate::hub::Hub;

/// The `status` arguments: `-z` for parsing, without it for the human-readable `raw`.
pub fn status_args(nul_terminated: bool) -> Vec<String> {
    let mut args = vec!["status", "--porcelain=v1"];
    if nul_terminated {
        args.push("-z");
    }
    args.extend([
        "--branch",
        "--untracked-files=all",
        "--ignore-submodules=dirty",
    ]);
    args.into_iter().map(String::from).collect()
}

impl Hub {
    /// `git.status`: entries parsed from `status --porcelain=v1 -z --branch`; `raw` is git's
    /// own porcelain v1 text from a second run, bounded with the discard marker.
    pub fn git_status(&self) -> Result<GitStatusOutput, ToolError> {
        let trace_id = self.new_trace_id()?;
        let mut session = Session::new(self.workspace.root());
        let result = self.git_status_in(&mut session);
        self.audit_git(tools::GIT_STATUS, &trace_id, &session, &result, json!({}));
        result
    }

    fn git_status_in(&self, session: &mut Session) -> Result<GitStatusOutput, ToolError> {
        self.check_git_dir()?;
        session.harden()?;
        let parsed_out = session.run("status", status_args(true))?;
        let raw_out = session.run("status_raw", status_args(false))?;
        let parsed = parse_status_z(&parsed_out.bytes)
            .map_err(|e| ToolError::refused(codes::GIT_FAILED, e.to_string()))?;
        Ok(GitStatusOutput {
            path: ".".to_string(),
            clean: parsed.entries.is_empty(),
            entries: parsed.entries,
            raw: raw_out.text_with_marker(),
            branch: parsed.branch,
        })
    }
}
