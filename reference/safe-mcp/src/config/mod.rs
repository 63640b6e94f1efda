//! The startup configuration of both servers: which policy file (`--config`, else
//! `SAFE_MCP_POLICY_FILE`), read once, parsed once, checked by the core loader
//! (`mcp_safety_core::policy`), and for `files` its `[files]` rules too.
//!
//! Every failure is one line (printed after `fatal: `) that names what is wrong, where the
//! value came from and the value: the flag or the variable for the path itself, the
//! variable for an overriding `SAFE_MCP_*` value, else the file and the line of the key
//! (`locate.rs`), or the default a value fell back to (`describe.rs`).

mod describe;
mod env;
mod locate;

use std::ffi::OsString;
use std::path::PathBuf;

use mcp_safety_core::policy::raw::RawPolicy;
use mcp_safety_core::policy::{Policy, Server};

use crate::files::rules::Rules;
use describe::{Context, at_key, at_key_only, io_reason, parse_error, policy_error};
use locate::Document;

/// The variable naming the policy file when `--config` is absent.
pub const ENV_POLICY_FILE: &str = "SAFE_MCP_POLICY_FILE";

/// How the policy path was given, as messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathOrigin {
    /// `--config PATH`.
    Flag,
    /// [`ENV_POLICY_FILE`].
    Env,
}

/// The policy file as the operator named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicySource {
    /// As given (relative paths are relative to the working directory).
    pub path: PathBuf,
    /// Where it was given.
    pub origin: PathOrigin,
}

impl PolicySource {
    /// `--config` if given, else a non-empty [`ENV_POLICY_FILE`], else the error line.
    pub fn pick(flag: Option<PathBuf>, env: Option<OsString>) -> Result<PolicySource, String> {
        if let Some(path) = flag {
            return Ok(PolicySource {
                path,
                origin: PathOrigin::Flag,
            });
        }
        match env.filter(|v| !v.is_empty()) {
            Some(v) => Ok(PolicySource {
                path: PathBuf::from(v),
                origin: PathOrigin::Env,
            }),
            None => Err(format!(
                "no policy file: pass --config PATH or set {ENV_POLICY_FILE}"
            )),
        }
    }

    /// `--config "PATH"` or `SAFE_MCP_POLICY_FILE="PATH"`.
    fn named(&self) -> String {
        let path = self.path.as_os_str();
        match self.origin {
            PathOrigin::Flag => format!("--config {path:?}"),
            PathOrigin::Env => format!("{ENV_POLICY_FILE}={path:?}"),
        }
    }
}

/// A policy that passed every check, and its file as parsed (the organizer's `[files]`).
#[derive(Debug)]
pub struct Loaded {
    /// The validated policy.
    pub policy: Policy,
    /// The file as written.
    pub raw: RawPolicy,
}

/// Reads and checks the policy for `server`, `--config` being `flag`; the error is the one
/// line to print.
pub fn load(flag: Option<PathBuf>, server: Server) -> Result<Loaded, String> {
    let source = PolicySource::pick(flag, std::env::var_os(ENV_POLICY_FILE))?;
    let overrides = env::overrides()?;
    let bytes = std::fs::read(&source.path).map_err(|e| {
        format!(
            "{}: cannot read the policy file: {}",
            source.named(),
            io_reason(&e)
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        format!(
            "{}:{line}: the policy file is not valid UTF-8 (save it as UTF-8)",
            locate::shown_path(&source.path)
        )
    })?;
    let doc = Document::new(&source.path, &text);
    let raw: RawPolicy = toml::from_str(&text).map_err(|e| parse_error(&doc, &e))?;
    let policy = Policy::from_toml(&text, &source.path, &overrides, server).map_err(|e| {
        policy_error(
            &e,
            &Context {
                doc: &doc,
                raw: &raw,
                overrides: &overrides,
                server,
            },
        )
    })?;
    if server == Server::Files {
        Rules::from_raw(&raw.files).map_err(|e| match &e.value {
            Some(value) => at_key(&doc, &e.key, Some(value), &e.problem),
            None => at_key_only(&doc, &e.key, &e.problem),
        })?;
    }
    Ok(Loaded { policy, raw })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_a_non_empty_variable_else_an_error() {
        let flag = PolicySource::pick(Some("a.toml".into()), Some("b.toml".into()));
        assert_eq!(flag.map(|s| s.origin), Ok(PathOrigin::Flag));
        let env = PolicySource::pick(None, Some("b.toml".into())).expect("from the variable");
        assert_eq!(
            (env.path, env.origin),
            (PathBuf::from("b.toml"), PathOrigin::Env)
        );
        assert_eq!(
            PolicySource::pick(None, Some("".into())),
            Err("no policy file: pass --config PATH or set SAFE_MCP_POLICY_FILE".into())
        );
    }
}
