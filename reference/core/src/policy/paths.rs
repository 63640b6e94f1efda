//! Path resolution for the policy: roots, state files, and the terminal's `cwd`, which must
//! stay inside the jail (PATH_ESCAPE otherwise, and nothing runs).

use std::path::{Component, Path, PathBuf};

/// Joins `p` onto `base` when relative and removes `.`/`..` lexically (no filesystem
/// access), so a path can be compared before it exists.
pub fn lexical_absolute(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The best canonical form of a possibly missing path: the deepest existing ancestor is
/// canonicalized (symlinks resolved) and the rest appended, so a state file whose directory
/// is a symlink into a jail is still recognised as inside it.
pub fn best_canonical(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// Why a `cwd` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CwdError {
    /// It resolves outside the jail (traversal, absolute path, or symlink).
    #[error("cwd {0:?} escapes the jail root")]
    Escape(String),
    /// It is inside the jail but is not an existing directory.
    #[error("cwd {0:?} is not an existing directory inside the jail")]
    NotDirectory(String),
}

/// Resolves the optional `cwd` (relative to `jail`, or absolute) to a canonical directory
/// inside `jail` (itself canonical). Symlinks are resolved before the containment check, so
/// a link pointing out of the jail is an escape.
pub fn confine_cwd(jail: &Path, cwd: Option<&str>) -> Result<PathBuf, CwdError> {
    let Some(raw) = cwd.filter(|c| !c.is_empty()) else {
        return Ok(jail.to_path_buf());
    };
    let lexical = lexical_absolute(jail, Path::new(raw));
    if !lexical.starts_with(jail) {
        return Err(CwdError::Escape(raw.to_string()));
    }
    let canonical = best_canonical(&lexical);
    if !canonical.starts_with(jail) {
        return Err(CwdError::Escape(raw.to_string()));
    }
    if !canonical.is_dir() {
        return Err(CwdError::NotDirectory(raw.to_string()));
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_confinement() {
        let tmp = tempfile::tempdir().unwrap();
        let jail = tmp.path().join("jail");
        std::fs::create_dir_all(jail.join("sub")).unwrap();
        std::fs::create_dir(tmp.path().join("outside")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("outside"), jail.join("link")).unwrap();
        let jail = jail.canonicalize().unwrap();
        assert_eq!(confine_cwd(&jail, None).unwrap(), jail);
        assert_eq!(confine_cwd(&jail, Some("sub")).unwrap(), jail.join("sub"));
        assert_eq!(confine_cwd(&jail, Some("sub/..")).unwrap(), jail);
        for bad in ["..", "../outside", "/", "/tmp", "link", "sub/../../x"] {
            assert!(
                matches!(confine_cwd(&jail, Some(bad)), Err(CwdError::Escape(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            confine_cwd(&jail, Some("missing")),
            Err(CwdError::NotDirectory(_))
        ));
    }
}
