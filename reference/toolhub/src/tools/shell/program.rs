//! Request-time checks: the working directory (inside the workspace, a real directory, no
//! symlink on the way) and the program (resolved once, here, to an absolute executable whose
//! identity is then bound into the approval; execution never searches PATH).

use std::path::PathBuf;

use mcp_safety_core::exec::lookup::find_on_path;
use mcp_safety_core::exec::{ExecutableIdentity, IdentityError};
use mcp_safety_core::jail::{EntryKind, JailError, RelPath, Workspace};

use super::{MAX_ARGS, MAX_ARGS_BYTES, MAX_TIMEOUT_SECONDS};
use crate::contract::Outcome;
use crate::tools::refusal::Stop;

/// Stable codes of shell request refusals (identity codes come from the core).
pub mod codes {
    pub const INVALID_PROGRAM: &str = "INVALID_PROGRAM";
    pub const INVALID_ARGUMENT: &str = "INVALID_ARGUMENT";
    pub const ARGS_TOO_LARGE: &str = "ARGS_TOO_LARGE";
    pub const INVALID_TIMEOUT: &str = "INVALID_TIMEOUT";
    pub const NOT_A_DIRECTORY: &str = "NOT_A_DIRECTORY";
}

/// A validated working directory.
pub struct Cwd {
    pub rel: RelPath,
    pub abs: PathBuf,
}

impl Cwd {
    /// How the cwd is shown and stored (`.` for the root).
    pub fn shown(&self) -> String {
        if self.rel.is_root() {
            ".".to_string()
        } else {
            self.rel.display().to_string()
        }
    }
}

/// Validates `raw` (workspace-relative) as an existing directory reached without symlinks.
pub fn check_cwd(workspace: &Workspace, raw: &str) -> Result<Cwd, Stop> {
    let rel = RelPath::parse(raw).map_err(|e| Stop::jail(&e))?;
    let info = workspace.stat(&rel).map_err(|e| Stop::jail(&e))?;
    match info.kind {
        EntryKind::Dir => {}
        EntryKind::Symlink => {
            return Err(Stop::jail(&JailError::SymlinkRefused {
                path: rel.display().to_string(),
            }));
        }
        _ => {
            return Err(Stop::new(
                Outcome::Refused,
                codes::NOT_A_DIRECTORY,
                format!("cwd {} is not a directory", rel.display()),
            ));
        }
    }
    let abs = if rel.is_root() {
        workspace.root().to_path_buf()
    } else {
        workspace.root().join(rel.as_str())
    };
    Ok(Cwd { rel, abs })
}

/// Checks the shape of the arguments and the timeout.
pub fn check_args_and_timeout(args: &[String], timeout: u32) -> Result<(), Stop> {
    if args.len() > MAX_ARGS || args.iter().map(String::len).sum::<usize>() > MAX_ARGS_BYTES {
        return Err(Stop::new(
            Outcome::Refused,
            codes::ARGS_TOO_LARGE,
            format!("at most {MAX_ARGS} arguments and {MAX_ARGS_BYTES} bytes in total"),
        ));
    }
    if let Some(i) = args.iter().position(|a| a.contains('\0')) {
        return Err(Stop::new(
            Outcome::Refused,
            codes::INVALID_ARGUMENT,
            format!("argument {i} contains a NUL character"),
        ));
    }
    if timeout == 0 || timeout > MAX_TIMEOUT_SECONDS {
        return Err(Stop::new(
            Outcome::Refused,
            codes::INVALID_TIMEOUT,
            format!("timeout_seconds must be between 1 and {MAX_TIMEOUT_SECONDS}"),
        ));
    }
    Ok(())
}

/// The stop for an identity failure (not found, not a file, not executable, changed).
pub fn identity_stop(e: &IdentityError) -> Stop {
    let outcome = match e {
        IdentityError::Io(_) => Outcome::Failed,
        _ => Outcome::Refused,
    };
    Stop::new(outcome, e.code(), e.to_string())
}

/// Resolves the program once: an absolute path as is, a path with `/` relative to the cwd,
/// a bare name on this server's PATH (now, at request time; the operator sees the result).
pub fn resolve(program: &str, cwd: &Cwd) -> Result<ExecutableIdentity, Stop> {
    if program.is_empty() || program.contains('\0') {
        return Err(Stop::new(
            Outcome::Refused,
            codes::INVALID_PROGRAM,
            "program must be a non-empty name or path without NUL characters",
        ));
    }
    let candidate = if program.starts_with('/') {
        PathBuf::from(program)
    } else if program.contains('/') {
        cwd.abs.join(program)
    } else {
        search_path(program)
            .ok_or_else(|| identity_stop(&IdentityError::NotFound(PathBuf::from(program))))?
    };
    ExecutableIdentity::of(&candidate).map_err(|e| identity_stop(&e))
}

/// The first executable regular file named `name` in this process's PATH.
fn search_path(name: &str) -> Option<PathBuf> {
    find_on_path(name, &std::env::var_os("PATH")?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_cwd_is_an_existing_folder_reached_without_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("file"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("sub"), dir.path().join("link")).unwrap();
        let ws = Workspace::open(dir.path().to_str().unwrap()).unwrap();
        let code = |raw: &str| check_cwd(&ws, raw).err().map(|stop| stop.error.code);
        assert_eq!(code("link").as_deref(), Some("SYMLINK_REFUSED"));
        assert_eq!(code("file").as_deref(), Some(codes::NOT_A_DIRECTORY));
        assert_eq!(
            check_cwd(&ws, "sub").map(|c| c.shown()).ok().as_deref(),
            Some("sub")
        );
        assert_eq!(
            check_cwd(&ws, "").map(|c| c.shown()).ok().as_deref(),
            Some(".")
        );
    }

    #[test]
    fn a_program_is_a_non_empty_name_without_nul() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path().to_str().unwrap()).unwrap();
        let Ok(cwd) = check_cwd(&ws, "") else {
            panic!("the root is a cwd")
        };
        for bad in ["", "a\0b"] {
            let code = resolve(bad, &cwd).err().map(|stop| stop.error.code);
            assert_eq!(code.as_deref(), Some(codes::INVALID_PROGRAM), "{bad:?}");
        }
        // A missing program is refused; failing to read one is a failure, not a refusal.
        let missing = identity_stop(&IdentityError::NotFound(PathBuf::from("nope")));
        assert_eq!(missing.outcome, Outcome::Refused);
        let unreadable = identity_stop(&IdentityError::Io(std::io::Error::other("EIO")));
        assert_eq!(unreadable.outcome, Outcome::Failed);
    }

    /// The limits as numbers (the README's), not as the constants: a changed limit fails here.
    #[test]
    fn arguments_and_timeout_are_bounded() {
        let code = |args: &[String], timeout: u32| {
            check_args_and_timeout(args, timeout)
                .err()
                .map(|stop| stop.error.code)
        };
        let at_size = vec!["a".repeat(1024); 256];
        assert_eq!(code(&at_size, 30), None, "256 KiB in total");
        let mut over_size = at_size.clone();
        over_size.push("b".into());
        assert_eq!(code(&over_size, 30).as_deref(), Some(codes::ARGS_TOO_LARGE));
        assert_eq!(
            code(&vec![String::new(); 1024], 30),
            None,
            "1,024 arguments"
        );
        let too_many = vec![String::new(); 1025];
        assert_eq!(code(&too_many, 30).as_deref(), Some(codes::ARGS_TOO_LARGE));
        assert_eq!(code(&[], 3600), None);
        for bad in [0, 3601] {
            assert_eq!(
                code(&[], bad).as_deref(),
                Some(codes::INVALID_TIMEOUT),
                "{bad}"
            );
        }
    }
}
