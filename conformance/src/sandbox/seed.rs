//! Writing a [`DirSpec`] to disk, including git history through the real `git` binary.
//!
//! Every write goes through [`ensure_dirs`], which refuses to pass through a symlink, and files
//! are opened with `O_NOFOLLOW`, so links seeded for escape tests can never redirect seeding
//! outside the sandbox.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::SandboxError;
use super::spec::{DirSpec, FileSpec, GitSpec, decode_base64};

/// Mode of seeded files without an explicit `mode`, set explicitly so results do not depend on
/// the umask of whoever runs the suite.
const DEFAULT_FILE_MODE: u32 = 0o644;
/// Mode of seeded folders, for the same reason.
const DEFAULT_DIR_MODE: u32 = 0o755;

/// Fixed identity and clock of seeded commits, so commit hashes are the same on every run.
const GIT_NAME: &str = "MCP Conformance";
const GIT_EMAIL: &str = "conformance@example.invalid";
/// 2024-01-01T00:00:00Z; commit `n` (from 0) is dated `n` minutes later.
const GIT_EPOCH: u64 = 1_704_067_200;

/// Creates one of the sandbox's top-level folders (`workspace`, `dirs/<name>`, ...).
pub(super) fn create_area(path: &Path) -> Result<(), SandboxError> {
    match fs::create_dir(path) {
        Ok(()) => set_mode(path, DEFAULT_DIR_MODE),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(SandboxError::io("create folder", path, e)),
    }
}

fn set_mode(path: &Path, mode: u32) -> Result<(), SandboxError> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| SandboxError::io("set mode of", path, e))
}

/// What a seeded file contains.
enum Content {
    Bytes(Vec<u8>),
    /// `pattern` repeated and cut to exactly `len` bytes.
    Repeat {
        pattern: Vec<u8>,
        len: u64,
    },
}

/// Seeds folders; holds what every folder needs.
pub(super) struct Seeder<'a> {
    /// The runner's `${...}` interpolation.
    pub expand: &'a super::ExpandFn<'a>,
    /// The sandbox's variables, passed to `expand`.
    pub vars: &'a BTreeMap<String, String>,
    /// The sandbox's home, used as `HOME` for git.
    pub home: &'a Path,
    /// The sandbox's tmp, used as `TMPDIR` for git.
    pub tmp: &'a Path,
}

impl Seeder<'_> {
    /// Seeds `base` (an existing folder) from `spec`; `area` prefixes paths in errors.
    pub fn seed_dir(&self, base: &Path, area: &str, spec: &DirSpec) -> Result<(), SandboxError> {
        if let Some(git) = &spec.git {
            self.seed_git(base, area, git)?;
        }
        for path in &spec.dirs {
            let shown = format!("{area}/{path}");
            let rel = path.as_path();
            ensure_dirs(base, rel, &shown)?;
        }
        for (path, file) in &spec.files {
            let shown = format!("{area}/{path}");
            let rel = path.as_path();
            let content = self.file_content(file, &shown)?;
            let mode = file.mode().map_or(DEFAULT_FILE_MODE, |m| m.bits());
            write_file(base, rel, &shown, &content, mode)?;
        }
        for (path, target) in &spec.symlinks {
            let shown = format!("{area}/{path}");
            let rel = path.as_path();
            let target = self.expand(target, &shown)?;
            make_symlink(base, rel, &shown, &target)?;
        }
        Ok(())
    }

    fn expand(&self, text: &str, shown: &str) -> Result<String, SandboxError> {
        (self.expand)(text, self.vars).map_err(|message| SandboxError::Expand {
            path: shown.to_owned(),
            message,
        })
    }

    fn file_content(&self, file: &FileSpec, shown: &str) -> Result<Content, SandboxError> {
        let bad = |message: String| SandboxError::BadSpec {
            path: shown.to_owned(),
            message,
        };
        file.validate().map_err(bad)?;
        Ok(match file {
            FileSpec::Text(text) => Content::Bytes(self.expand(text, shown)?.into_bytes()),
            FileSpec::Detailed(d) => {
                if let Some(text) = &d.content {
                    Content::Bytes(self.expand(text, shown)?.into_bytes())
                } else if let Some(encoded) = &d.base64 {
                    Content::Bytes(decode_base64(encoded).map_err(bad)?)
                } else if let (Some(pattern), Some(len)) = (&d.repeat, d.bytes) {
                    Content::Repeat {
                        pattern: pattern.as_bytes().to_vec(),
                        len,
                    }
                } else {
                    Content::Bytes(Vec::new())
                }
            }
        })
    }

    /// `git init`, config, commits, staged changes, in that order (working-tree changes are
    /// applied afterwards by [`Seeder::seed_dir`]).
    fn seed_git(&self, base: &Path, area: &str, git: &GitSpec) -> Result<(), SandboxError> {
        let branch = git.branch.as_deref().unwrap_or("main");
        self.git(base, 0, ["init", "-q", "--template=", "-b", branch, "."])?;
        for (key, value) in &git.config {
            self.git(base, 0, ["config", "--local", key.as_str(), value.as_str()])?;
        }
        for (index, commit) in git.commits.iter().enumerate() {
            let mut paths: Vec<&Path> = Vec::new();
            for (path, content) in &commit.files {
                let shown = format!("{area}/{path} (commit #{})", index + 1);
                let rel = path.as_path();
                match content {
                    Some(text) => {
                        let bytes = self.expand(text, &shown)?.into_bytes();
                        write_file(base, rel, &shown, &Content::Bytes(bytes), DEFAULT_FILE_MODE)?;
                    }
                    None => delete_path(base, rel, &shown)?,
                }
                paths.push(rel);
            }
            if !paths.is_empty() {
                // Explicit paths with `-f`: a committed `.gitignore` must not drop files the
                // scenario asked to commit.
                let mut args: Vec<&OsStr> = ["add", "-A", "-f", "--"].map(OsStr::new).to_vec();
                args.extend(paths.iter().map(|p| p.as_os_str()));
                self.git(base, index, args)?;
            }
            self.git(
                base,
                index,
                [
                    "commit",
                    "-q",
                    "--allow-empty",
                    "--allow-empty-message",
                    "--no-verify",
                    "-m",
                    commit.message.as_str(),
                ],
            )?;
        }
        let last = git.commits.len();
        for (path, content) in &git.staged {
            let shown = format!("{area}/{path} (staged)");
            let rel = path.as_path();
            match content {
                Some(text) => {
                    let bytes = self.expand(text, &shown)?.into_bytes();
                    write_file(base, rel, &shown, &Content::Bytes(bytes), DEFAULT_FILE_MODE)?;
                    self.git(
                        base,
                        last,
                        [
                            OsStr::new("add"),
                            "-f".as_ref(),
                            "--".as_ref(),
                            rel.as_os_str(),
                        ],
                    )?;
                }
                None => {
                    self.git(
                        base,
                        last,
                        [
                            OsStr::new("rm"),
                            "--cached".as_ref(),
                            "-r".as_ref(),
                            "-q".as_ref(),
                            "--".as_ref(),
                            rel.as_os_str(),
                        ],
                    )?;
                    if base.join(rel).symlink_metadata().is_ok() {
                        delete_path(base, rel, &shown)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs `git` in `repo` with an environment isolated from the machine and the user: no
    /// system or global config, the sandbox's `HOME`, no hooks, no signing, no prompts, and a
    /// fixed identity and date (`seq` minutes after [`GIT_EPOCH`]) so hashes are reproducible.
    pub(super) fn git<I, S>(&self, repo: &Path, seq: usize, args: I) -> Result<String, SandboxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<S> = args.into_iter().collect();
        let shown = std::iter::once("git".to_owned())
            .chain(
                args.iter()
                    .map(|a| shell_word(&a.as_ref().to_string_lossy())),
            )
            .collect::<Vec<_>>()
            .join(" ");
        let date = format!("{} +0000", GIT_EPOCH + 60 * seq as u64);
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(repo)
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "tag.gpgsign=false",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.autocrlf=false",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "gc.auto=0",
                "-c",
                "maintenance.auto=false",
            ])
            .args(&args)
            .env_clear()
            .env(
                "PATH",
                std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            )
            .env("HOME", self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("TMPDIR", self.tmp)
            .env("LANG", "C")
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_AUTHOR_NAME", GIT_NAME)
            .env("GIT_AUTHOR_EMAIL", GIT_EMAIL)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_NAME", GIT_NAME)
            .env("GIT_COMMITTER_EMAIL", GIT_EMAIL)
            .env("GIT_COMMITTER_DATE", &date)
            .stdin(Stdio::null());
        if let Some(parent) = repo.parent() {
            // Never let git wander up into an enclosing repository.
            command.env("GIT_CEILING_DIRECTORIES", parent);
        }
        let failed = |stderr: String| SandboxError::Git {
            command: shown.clone(),
            dir: repo.to_path_buf(),
            stderr,
        };
        let output = command
            .output()
            .map_err(|e| failed(format!("cannot run git: {e}")))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
            return Err(failed(format!("{} ({})", stderr, output.status)));
        }
        tracing::trace!(command = %shown, repo = %repo.display(), "git");
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// Quotes a command-line word for error messages when it is not plain.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@+,".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("{word:?}")
    }
}

/// Creates `base/rel` and its missing parents as real folders, refusing to go through a
/// symlink or a file: `create_dir_all` alone would happily follow a link seeded earlier and
/// create folders outside the sandbox.
pub(super) fn ensure_dirs(base: &Path, rel: &Path, shown: &str) -> Result<(), SandboxError> {
    walk_dirs(base, rel, shown, true)
}

/// Checks (and with `create`, creates) each component of `base/rel` as a real folder. Without
/// `create`, stops quietly at the first missing component.
fn walk_dirs(base: &Path, rel: &Path, shown: &str, create: bool) -> Result<(), SandboxError> {
    let mut current = base.to_path_buf();
    let mut walked = PathBuf::new();
    for part in rel.components() {
        current.push(part);
        walked.push(part);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(SandboxError::BadPath {
                    path: shown.to_owned(),
                    reason: format!(
                        "goes through the symlink {}; seeding never writes through links",
                        walked.display()
                    ),
                });
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(SandboxError::BadPath {
                    path: shown.to_owned(),
                    reason: format!("{} is not a folder", walked.display()),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => create_area(&current)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(SandboxError::io("inspect", &current, e)),
        }
    }
    Ok(())
}

fn ensure_parent(base: &Path, rel: &Path, shown: &str) -> Result<(), SandboxError> {
    match rel.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => ensure_dirs(base, parent, shown),
        _ => Ok(()),
    }
}

/// Writes a file (creating parents) with exactly `mode`; `O_NOFOLLOW` makes an existing
/// symlink at the path an error instead of a redirection.
fn write_file(
    base: &Path,
    rel: &Path,
    shown: &str,
    content: &Content,
    mode: u32,
) -> Result<(), SandboxError> {
    ensure_parent(base, rel, shown)?;
    let path = base.join(rel);
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(DEFAULT_FILE_MODE)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| {
            if e.raw_os_error() == Some(nix::libc::ELOOP) {
                SandboxError::BadPath {
                    path: shown.to_owned(),
                    reason: "is an existing symlink; seeding never writes through links".to_owned(),
                }
            } else {
                SandboxError::io("write file", &path, e)
            }
        })?;
    let written = match content {
        Content::Bytes(bytes) => file.write_all(bytes),
        Content::Repeat { pattern, len } => write_repeated(&mut file, pattern, *len),
    };
    written
        .and_then(|()| file.flush())
        .map_err(|e| SandboxError::io("write file", &path, e))?;
    // On the open handle (fchmod), so the umask does not matter and no path is re-resolved.
    file.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(|e| SandboxError::io("set mode of", &path, e))
}

/// Writes `pattern` repeatedly, cut to exactly `len` bytes, in chunks of about 64 KiB.
fn write_repeated(out: &mut impl Write, pattern: &[u8], len: u64) -> io::Result<()> {
    if len == 0 {
        return Ok(());
    }
    if pattern.is_empty() {
        // Rejected by validation already; never loop forever or divide by zero.
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "empty `repeat` pattern",
        ));
    }
    let copies = (64 * 1024 / pattern.len()).max(1);
    let chunk = pattern.repeat(copies);
    let mut left = len;
    while left > 0 {
        let take = usize::try_from(left).map_or(chunk.len(), |l| l.min(chunk.len()));
        out.write_all(&chunk[..take])?;
        left -= take as u64;
    }
    Ok(())
}

/// Creates a symlink whose target is taken literally. An existing file or link at the path is
/// replaced (a tracked file turned into a link is a valid working-tree change); a folder is not.
fn make_symlink(base: &Path, rel: &Path, shown: &str, target: &str) -> Result<(), SandboxError> {
    ensure_parent(base, rel, shown)?;
    let path = base.join(rel);
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_dir() => {
            return Err(SandboxError::BadPath {
                path: shown.to_owned(),
                reason: "is an existing folder; cannot replace it with a symlink".to_owned(),
            });
        }
        // `remove_file` unlinks a symlink itself, never its target.
        Ok(_) => fs::remove_file(&path).map_err(|e| SandboxError::io("replace", &path, e))?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(SandboxError::io("inspect", &path, e)),
    }
    std::os::unix::fs::symlink(target, &path)
        .map_err(|e| SandboxError::io("create symlink", &path, e))
}

/// Deletes a file, link or folder for a null commit/staged entry. Parents must be real folders;
/// a link is unlinked, and `remove_dir_all` does not follow links inside the folder.
fn delete_path(base: &Path, rel: &Path, shown: &str) -> Result<(), SandboxError> {
    if let Some(parent) = rel.parent()
        && !parent.as_os_str().is_empty()
    {
        // Refuses links on the way; a missing parent means the path below is missing too.
        walk_dirs(base, parent, shown, false)?;
    }
    let path = base.join(rel);
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_dir() => {
            fs::remove_dir_all(&path).map_err(|e| SandboxError::io("delete", &path, e))
        }
        Ok(_) => fs::remove_file(&path).map_err(|e| SandboxError::io("delete", &path, e)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(SandboxError::BadSpec {
            path: shown.to_owned(),
            message: "cannot delete: no such file".to_owned(),
        }),
        Err(e) => Err(SandboxError::io("inspect", &path, e)),
    }
}
