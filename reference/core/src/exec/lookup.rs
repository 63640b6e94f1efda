//! Finding a program the way a shell would, without a shell: the one definition of "a file
//! that can be run" and of a `PATH` search, shared by every server that resolves a program
//! (ToolHub's `shell.run` and its `git`, safe-mcp's terminal), so they cannot disagree.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Whether `path` (a symlink followed) is a regular file with an execute bit. A folder has
/// execute bits too, but they mean "searchable", not "runnable".
pub fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first `name` in the absolute directories of `path_var` (a `PATH` value) that is an
/// executable regular file, as found (not canonicalized). Relative and empty entries are
/// skipped: they would resolve against whatever the current directory happens to be.
pub fn find_on_path(name: &str, path_var: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable_file(candidate))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn only_executable_regular_files_are_programs() {
        let dir = tempfile::tempdir().unwrap();
        let (plain, runnable, folder) = (
            dir.path().join("plain"),
            dir.path().join("run"),
            dir.path().join("dir"),
        );
        std::fs::write(&plain, "#!/bin/sh\n").unwrap();
        std::fs::write(&runnable, "#!/bin/sh\n").unwrap();
        std::fs::create_dir(&folder).unwrap();
        chmod(&plain, 0o644);
        chmod(&runnable, 0o700);
        chmod(&folder, 0o755);
        assert!(is_executable_file(&runnable));
        assert!(!is_executable_file(&plain));
        assert!(
            !is_executable_file(&folder),
            "a folder is searchable, not runnable"
        );
        assert!(!is_executable_file(&dir.path().join("missing")));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&runnable, &link).unwrap();
        assert!(
            is_executable_file(&link),
            "a symlink to a program is followed"
        );
    }

    #[test]
    fn the_search_skips_relative_entries_folders_and_files_that_are_not_executable() {
        let dir = tempfile::tempdir().unwrap();
        let [folder, plain, runnable, later] = ["a", "b", "c", "d"].map(|d| dir.path().join(d));
        for d in [&folder, &plain, &runnable, &later] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::create_dir(folder.join("tool")).unwrap();
        for d in [&plain, &runnable, &later] {
            std::fs::write(d.join("tool"), "#!/bin/sh\n").unwrap();
        }
        chmod(&folder.join("tool"), 0o755);
        chmod(&plain.join("tool"), 0o644);
        chmod(&runnable.join("tool"), 0o700);
        chmod(&later.join("tool"), 0o755);
        let path = std::env::join_paths([
            Path::new("relative"),
            Path::new(""),
            &folder,
            &plain,
            &runnable,
            &later,
        ])
        .unwrap();
        assert_eq!(find_on_path("tool", &path), Some(runnable.join("tool")));
        assert_eq!(find_on_path("missing", &path), None);
        assert_eq!(find_on_path("tool", OsStr::new("")), None);
    }
}
