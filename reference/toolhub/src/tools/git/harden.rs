//! How git is invoked so that no repository-configured program ever runs.
//!
//! * The executable is resolved once from the server's `PATH` to a canonical absolute path;
//!   no shell is involved and the child never searches `PATH`.
//! * The child environment is exactly [`hardened_env`]: no `HOME`, no `PATH`, no inherited
//!   variable; system and global configuration and system attributes are off, so only the
//!   repository's own configuration (and what it includes) applies. `GIT_DIR` and
//!   `GIT_WORK_TREE` pin the repository to `<workspace>/.git` and the work tree to the
//!   workspace root: git never discovers a repository above the workspace and a configured
//!   `core.worktree` cannot move the work tree elsewhere.
//! * Before the real command, `git config -z --name-only --list` enumerates the effective
//!   configuration; every `filter.<name>.*` and `diff.<name>.*` driver found there is
//!   neutralised on the real command line ([`hardening_args`]), together with
//!   `core.fsmonitor`, `core.hooksPath`, `core.pager`, `diff.external` and all transports.
//!   A driver name that cannot be overridden reliably with `-c` fails closed.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use mcp_safety_core::exec::lookup;

/// Wall-clock limit of one git subprocess.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(30);

/// Arguments of the configuration enumeration (run with [`hardened_env`], no `-c`).
pub const CONFIG_LIST_ARGS: [&str; 5] = ["--no-pager", "config", "-z", "--name-only", "--list"];

static GIT: OnceLock<Option<PathBuf>> = OnceLock::new();

/// The canonical absolute path of `git` on the server's `PATH`, resolved on first use and
/// cached for the life of the process; `None` when there is none.
pub fn git_executable() -> Option<&'static Path> {
    GIT.get_or_init(|| find_on_path("git", std::env::var_os("PATH").as_deref()))
        .as_deref()
}

/// The first `name` in the absolute directories of `path_var` that is an executable regular
/// file (mcp_safety_core::exec::lookup), canonicalized, so the identity bound is the real file.
pub fn find_on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    lookup::find_on_path(name, path_var?).and_then(|found| std::fs::canonicalize(found).ok())
}

/// The complete environment of every git child for the workspace at `root` (canonical).
pub fn hardened_env(root: &Path) -> BTreeMap<String, String> {
    let root = root.to_string_lossy();
    let vars: [(&str, String); 13] = [
        ("GIT_DIR", format!("{root}/.git")),
        ("GIT_WORK_TREE", root.to_string()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_CONFIG_SYSTEM", "/dev/null".into()),
        ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
        ("GIT_ATTR_NOSYSTEM", "1".into()),
        ("GIT_OPTIONAL_LOCKS", "0".into()),
        ("GIT_TERMINAL_PROMPT", "0".into()),
        ("GIT_NO_REPLACE_OBJECTS", "1".into()),
        ("GIT_NO_LAZY_FETCH", "1".into()),
        ("GIT_PROTOCOL_FROM_USER", "0".into()),
        ("GIT_PAGER", "cat".into()),
        ("LC_ALL", "C".into()),
    ];
    vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Driver names found in the effective configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Drivers {
    /// `filter.<name>.*` subsections.
    pub filters: BTreeSet<String>,
    /// `diff.<name>.*` subsections.
    pub diffs: BTreeSet<String>,
}

/// Why the configuration cannot be hardened (git is then not run).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HardenError {
    /// The listing was cut at the capture limit: some driver could be missing.
    #[error("the repository configuration is too large to inspect safely")]
    Truncated,
    /// A driver name that `-c name.key=value` cannot address unambiguously.
    #[error("the repository configuration names a {section} driver that cannot be neutralised")]
    UnsafeName {
        /// `filter` or `diff`.
        section: &'static str,
    },
}

/// Extracts the driver names from `git config -z --name-only --list` output.
///
/// Keys are `section.subsection.variable` with a lower-cased section and variable; the
/// subsection (the driver name) keeps its case and may contain dots. A name containing `=`
/// (which `-c` would split at), a newline or invalid UTF-8 fails closed.
pub fn parse_config_names(listing: &[u8], truncated: bool) -> Result<Drivers, HardenError> {
    if truncated {
        return Err(HardenError::Truncated);
    }
    let mut drivers = Drivers::default();
    for key in listing.split(|b| *b == 0).filter(|k| !k.is_empty()) {
        let (section, set) = if key.starts_with(b"filter.") {
            ("filter", &mut drivers.filters)
        } else if key.starts_with(b"diff.") {
            ("diff", &mut drivers.diffs)
        } else {
            continue;
        };
        let rest = &key[section.len() + 1..];
        let Some(last_dot) = rest.iter().rposition(|b| *b == b'.') else {
            continue; // `diff.external`, `diff.renames`, ...: no driver
        };
        let name = std::str::from_utf8(&rest[..last_dot])
            .map_err(|_| HardenError::UnsafeName { section })?;
        if name.contains('=') || name.contains('\n') {
            return Err(HardenError::UnsafeName { section });
        }
        set.insert(name.to_string());
    }
    Ok(drivers)
}

/// Global options placed before every real git subcommand.
pub fn hardening_args(drivers: &Drivers) -> Vec<String> {
    let mut args: Vec<String> = vec!["--no-pager".into(), "--literal-pathspecs".into()];
    let mut set = |kv: String| {
        args.push("-c".into());
        args.push(kv);
    };
    for fixed in [
        "core.fsmonitor=false",
        "core.hooksPath=/dev/null",
        "core.pager=cat",
        "diff.external=",
        "protocol.allow=never",
        "submodule.recurse=false",
        "status.submoduleSummary=false",
    ] {
        set(fixed.to_string());
    }
    for name in &drivers.filters {
        for key in ["clean=", "smudge=", "process=", "required=false"] {
            set(format!("filter.{name}.{key}"));
        }
    }
    for name in &drivers.diffs {
        for key in ["textconv=", "command="] {
            set(format!("diff.{name}.{key}"));
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn config_names_find_every_driver() {
        let listing = b"core.bare\0diff.external\0diff.renames\0diff.evil.textconv\0\
            diff.Evil.command\0filter.lfs.process\0filter.my.dotted.name.clean\0\
            filter.lfs.required\0merge.x.driver\0include.path\0";
        let d = parse_config_names(listing, false).expect("safe");
        assert_eq!(d.diffs, names(&["Evil", "evil"]));
        assert_eq!(d.filters, names(&["lfs", "my.dotted.name"]));
    }

    #[test]
    fn config_names_fail_closed() {
        assert_eq!(
            parse_config_names(b"filter.a=b.clean\0", false),
            Err(HardenError::UnsafeName { section: "filter" })
        );
        assert_eq!(
            parse_config_names(b"diff.\xff.textconv\0", false),
            Err(HardenError::UnsafeName { section: "diff" })
        );
        assert_eq!(
            parse_config_names(b"core.bare\0", true),
            Err(HardenError::Truncated)
        );
        assert_eq!(
            parse_config_names(b"", false).expect("empty"),
            Drivers::default()
        );
    }

    #[test]
    fn hardening_args_override_every_program_key() {
        let d = Drivers {
            filters: names(&["f"]),
            diffs: names(&["d.x"]),
        };
        let args = hardening_args(&d);
        assert_eq!(args[..2], ["--no-pager", "--literal-pathspecs"]);
        let overrides: Vec<&str> = args
            .chunks(2)
            .skip(1)
            .map(|pair| {
                assert_eq!(pair[0], "-c");
                pair[1].as_str()
            })
            .collect();
        for expected in [
            "core.fsmonitor=false",
            "core.hooksPath=/dev/null",
            "diff.external=",
            "filter.f.clean=",
            "filter.f.smudge=",
            "filter.f.process=",
            "filter.f.required=false",
            "diff.d.x.textconv=",
            "diff.d.x.command=",
        ] {
            assert!(overrides.contains(&expected), "{expected} missing");
        }
    }

    #[test]
    fn env_is_minimal_and_pins_the_repository() {
        let env = hardened_env(Path::new("/ws"));
        assert_eq!(env["GIT_DIR"], "/ws/.git");
        assert_eq!(env["GIT_WORK_TREE"], "/ws");
        assert_eq!(env["GIT_CONFIG_GLOBAL"], "/dev/null");
        assert_eq!(env["LC_ALL"], "C");
        assert!(!env.contains_key("HOME") && !env.contains_key("PATH"));
    }

    #[test]
    fn path_lookup_skips_relative_and_non_executable_entries() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = dir.path().join("plain");
        std::fs::create_dir(&plain).expect("mkdir");
        std::fs::write(plain.join("tool"), b"x").expect("write");
        let exe = dir.path().join("exe");
        std::fs::create_dir(&exe).expect("mkdir");
        std::fs::write(exe.join("tool"), b"x").expect("write");
        std::fs::set_permissions(exe.join("tool"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let path = std::env::join_paths([Path::new("rel"), &plain, &exe]).expect("join");
        let found = find_on_path("tool", Some(&path)).expect("found");
        assert_eq!(found, exe.join("tool").canonicalize().expect("canon"));
        assert_eq!(find_on_path("tool", None), None);
        assert_eq!(find_on_path("missing", Some(&path)), None);
    }
}
