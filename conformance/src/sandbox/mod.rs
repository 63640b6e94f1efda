//! Per-scenario sandboxes: a fresh temporary tree for each scenario, seeded from its YAML.
//!
//! Every scenario runs against its own `mcpc-XXXXXX` folder under the system temp dir, holding
//! `workspace/`, `state/`, `home/`, `tmp/` and `dirs/<name>/`, so scenarios cannot see each
//! other's files, the server never touches the real home folder, and a failing scenario leaves
//! nothing behind: the tree is removed on drop, even after the server made parts of it read-only.
//!
//! Seeding is deliberately paranoid, because scenarios build escape attempts (symlinks to
//! `../outside`, absolute links): seeding keys must be clean relative paths, and seeding never
//! writes through a symlink, so only the server under test can be tricked by those links.

mod describe;
mod layer;
mod seed;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// The spec (what a scenario writes) lives in the language crate; this module materialises it.
use mcp_conformance_lang::sandbox as spec;

pub use describe::describe_path;
pub use layer::Layer;
pub use spec::{
    CommitSpec, DirName, DirSpec, FileDetails, FileMode, FileSpec, GitSpec, MAX_GENERATED_BYTES,
    SandboxSpec, SeedPath, SpecError,
};

/// The runner's `${...}` interpolation as seeding calls it: `(text, sandbox variables)` ->
/// expanded text, or a message saying what is wrong (e.g. an unknown variable).
pub type ExpandFn<'a> = dyn Fn(&str, &BTreeMap<String, String>) -> Result<String, String> + 'a;

/// Why a sandbox could not be created, seeded or removed. Messages name the offending path or
/// command, since they end up in scenario reports.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A seeding path is unusable: empty, absolute, containing `..`, or leading through a
    /// symlink or a file. `path` is shown as `<area>/<path>`, e.g. `workspace/../x`.
    #[error("bad sandbox path {path:?}: {reason}")]
    BadPath {
        /// The path as written in the scenario, prefixed with its area.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file spec is inconsistent (e.g. both `content` and `base64`, invalid base64).
    #[error("bad sandbox file {path:?}: {message}")]
    BadSpec {
        /// The file, prefixed with its area.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The runner's `${...}` expansion failed for a file content or symlink target.
    #[error("cannot expand variables in {path:?}: {message}")]
    Expand {
        /// The file or symlink, prefixed with its area.
        path: String,
        /// The expansion callback's message.
        message: String,
    },
    /// A filesystem operation failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done, e.g. "write file".
        action: &'static str,
        /// The absolute path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A git command failed (or git could not be run) while seeding a repository.
    #[error("`{command}` failed in {}: {stderr}", dir.display())]
    Git {
        /// The command line, e.g. `git commit -m "first"`.
        command: String,
        /// The repository folder.
        dir: PathBuf,
        /// Git's stderr (or why git could not be started).
        stderr: String,
    },
}

/// A spec refused without I/O keeps its variant and its message.
impl From<SpecError> for SandboxError {
    fn from(error: SpecError) -> SandboxError {
        match error {
            SpecError::BadSpec { path, message } => SandboxError::BadSpec { path, message },
        }
    }
}

impl SandboxError {
    pub(crate) fn io(action: &'static str, path: &Path, source: io::Error) -> SandboxError {
        SandboxError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A live sandbox: a temporary tree that exists until this value is dropped or closed.
///
/// All accessors return canonical absolute paths (the system temp dir may itself be a
/// symlink, e.g. `/tmp` -> `/private/tmp`), so they compare equal to what a server reports.
#[derive(Debug)]
pub struct Sandbox {
    /// `None` once closed or kept; owning the `TempDir` means even a panic cleans up.
    dir: Option<TempDir>,
    root: PathBuf,
    workspace: PathBuf,
    state: PathBuf,
    home: PathBuf,
    tmp: PathBuf,
    dirs: BTreeMap<String, PathBuf>,
}

impl Sandbox {
    /// Creates the sandbox tree and seeds it from `spec`.
    ///
    /// `expand` is the runner's `${...}` interpolation. It is called with the text and this
    /// sandbox's own [`Sandbox::variables`] (which only exist once the tree does, so the runner
    /// could not have them beforehand), so contents and link targets can use `${workspace}`,
    /// `${dirs.outside}` and friends. It is applied to file contents given as text (plain
    /// strings, `content`, git commit and staged contents) and to symlink targets, never to
    /// paths, `base64` or `repeat`. On error, everything created so far is removed.
    pub fn create(spec: &SandboxSpec, expand: &ExpandFn<'_>) -> Result<Sandbox, SandboxError> {
        let mut sandbox = Sandbox::prepare(spec)?;
        sandbox.seed(spec, expand)?;
        Ok(sandbox)
    }

    /// Creates the empty layout (`workspace`, `state`, `home`, `tmp` and one folder per entry of
    /// `spec.dirs`) without seeding anything; [`Sandbox::create`] is this plus
    /// [`Sandbox::seed`].
    pub fn prepare(spec: &SandboxSpec) -> Result<Sandbox, SandboxError> {
        spec.validate()?;
        let temp = std::env::temp_dir();
        let dir = tempfile::Builder::new()
            .prefix("mcpc-")
            .rand_bytes(6)
            .tempdir_in(&temp)
            .map_err(|e| SandboxError::io("create sandbox in", &temp, e))?;
        let root = fs::canonicalize(dir.path())
            .map_err(|e| SandboxError::io("resolve sandbox root", dir.path(), e))?;
        let mut sandbox = Sandbox {
            dir: Some(dir),
            workspace: root.join("workspace"),
            state: root.join("state"),
            home: root.join("home"),
            tmp: root.join("tmp"),
            root,
            dirs: BTreeMap::new(),
        };
        for path in [
            &sandbox.workspace,
            &sandbox.state,
            &sandbox.home,
            &sandbox.tmp,
            &sandbox.root.join("dirs"),
        ] {
            seed::create_area(path)?;
        }
        for name in spec.dirs.keys() {
            sandbox.ensure_named_dir(name)?;
        }
        tracing::debug!(root = %sandbox.root.display(), "sandbox created");
        Ok(sandbox)
    }

    /// Seeds the sandbox from `spec` (see [`Sandbox::create`] for how `expand` is used).
    /// Named folders of `spec.dirs` that do not exist yet are created first, so their variables
    /// are available to `expand`. Seeding an already seeded sandbox again is allowed (files are
    /// overwritten), e.g. for a step that adds files mid-scenario.
    ///
    /// Areas are seeded in a fixed order (`workspace`, `state`, `home`, then `dirs` by name);
    /// within a folder, git history first, then `dirs`, `files` and `symlinks`.
    pub fn seed(&mut self, spec: &SandboxSpec, expand: &ExpandFn<'_>) -> Result<(), SandboxError> {
        spec.validate()?;
        for name in spec.dirs.keys() {
            self.ensure_named_dir(name)?;
        }
        let vars = self.variables();
        let seeder = seed::Seeder {
            expand,
            vars: &vars,
            home: &self.home,
            tmp: &self.tmp,
        };
        seeder.seed_dir(&self.workspace, "workspace", &spec.workspace)?;
        seeder.seed_dir(&self.state, "state", &spec.state)?;
        seeder.seed_dir(&self.home, "home", &spec.home)?;
        for (name, dir_spec) in &spec.dirs {
            let path = self.root.join("dirs").join(name.as_str());
            seeder.seed_dir(&path, &format!("dirs.{name}"), dir_spec)?;
        }
        Ok(())
    }

    fn ensure_named_dir(&mut self, name: &DirName) -> Result<(), SandboxError> {
        if !self.dirs.contains_key(name.as_str()) {
            let path = self.root.join("dirs").join(name.as_str());
            seed::create_area(&path)?;
            self.dirs.insert(name.to_string(), path);
        }
        Ok(())
    }

    /// The sandbox root (`${sandbox}`), parent of every other folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The server's working folder (`${workspace}`).
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The server's state folder (`${state}`).
    pub fn state(&self) -> &Path {
        &self.state
    }

    /// The `HOME` given to the server and to seeding git (`${home}`).
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// A scratch folder, meant as the server's `TMPDIR` (`${tmp}`).
    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// An extra named folder (`${dirs.<name>}`), if the spec declared it.
    pub fn dir(&self, name: &str) -> Option<&Path> {
        self.dirs.get(name).map(PathBuf::as_path)
    }

    /// The sandbox's variables for `${...}` interpolation: `sandbox`, `workspace`, `state`,
    /// `home`, `tmp` and `dirs.<name>`, each an absolute canonical path.
    pub fn variables(&self) -> BTreeMap<String, String> {
        let mut vars = BTreeMap::new();
        let text = |p: &Path| p.to_string_lossy().into_owned();
        vars.insert("sandbox".to_owned(), text(&self.root));
        vars.insert("workspace".to_owned(), text(&self.workspace));
        vars.insert("state".to_owned(), text(&self.state));
        vars.insert("home".to_owned(), text(&self.home));
        vars.insert("tmp".to_owned(), text(&self.tmp));
        for (name, path) in &self.dirs {
            vars.insert(format!("dirs.{name}"), text(path));
        }
        vars
    }

    /// Removes the tree now, reporting failures (dropping also removes it, but can only log).
    pub fn close(mut self) -> Result<(), SandboxError> {
        match self.dir.take() {
            Some(dir) => {
                remove_tree(dir).map_err(|e| SandboxError::io("remove sandbox", &self.root, e))
            }
            None => Ok(()),
        }
    }

    /// Keeps the tree on disk (e.g. for `--keep-sandbox` debugging) and returns its root; the
    /// caller becomes responsible for removing it.
    pub fn keep(mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
        }
        self.root.clone()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let root = dir.path().to_path_buf();
            if let Err(error) = remove_tree(dir) {
                tracing::warn!(root = %root.display(), %error, "cannot remove sandbox");
            }
        }
    }
}

/// Removes the sandbox tree: first gives the owner `rwx` on every folder (a server may have
/// made some read-only, which would block removal), then removes everything with
/// `std::fs::remove_dir_all`, which unlinks symlinks instead of following them, so a link to a
/// folder outside the sandbox never causes deletion outside it.
fn remove_tree(dir: TempDir) -> io::Result<()> {
    let fixed = make_removable(dir.path());
    let removed = dir.close();
    // Report the removal error first: a permission fix failure only matters if removal failed.
    removed.and(fixed)
}

/// Walks the tree without following symlinks (iteratively, so a server-made deep tree cannot
/// overflow the stack) and adds `u+rwx` to folders that lack it. Best effort: keeps going and
/// returns the first error.
fn make_removable(root: &Path) -> io::Result<()> {
    let mut first_error: Option<io::Error> = None;
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        if let Err(e) = allow_owner(&dir) {
            first_error.get_or_insert(e);
        }
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                first_error.get_or_insert(e);
                continue;
            }
        };
        for entry in entries {
            match entry.and_then(|entry| Ok((entry.file_type()?, entry.path()))) {
                // `DirEntry::file_type` does not follow symlinks: links are never descended.
                Ok((kind, path)) if kind.is_dir() => pending.push(path),
                Ok(_) => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Gives the owner `rwx` on `dir` if it is still a real folder, never touching a symlink's
/// target (`fchmodat` with `AT_SYMLINK_NOFOLLOW`, falling back to a plain chmod right after an
/// `lstat` where the C library cannot do the former).
fn allow_owner(dir: &Path) -> io::Result<()> {
    use nix::sys::stat::{FchmodatFlags, Mode, fchmodat};

    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Ok(());
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o700 == 0o700 {
        return Ok(());
    }
    let wanted = mode | 0o700;
    let result = fchmodat(
        nix::fcntl::AT_FDCWD,
        dir,
        Mode::from_bits_truncate(wanted),
        FchmodatFlags::NoFollowSymlink,
    );
    match result {
        Ok(()) => Ok(()),
        Err(nix::errno::Errno::ENOTSUP | nix::errno::Errno::ENOSYS) => {
            if fs::symlink_metadata(dir)?.is_dir() {
                fs::set_permissions(dir, fs::Permissions::from_mode(wanted))?;
            }
            Ok(())
        }
        Err(errno) => Err(io::Error::from(errno)),
    }
}
