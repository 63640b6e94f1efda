//! The trusted state root and its permanent binding to one workspace.
//!
//! The state root holds `workspace-binding.json`, the approval store (`approvals.sqlite3`; the
//! document's `approvals.json` is its JSON form, migrated when found and written by an export)
//! and `audit.jsonl` (plus lock files). It must live outside the workspace so the agent's filesystem tools can never
//! read or forge approval state. On first valid use the directory is bound to the canonical
//! workspace; every later use verifies the binding and fails closed if it names another
//! workspace, so two workspaces can never share (and confuse) approvals.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, StateOrigin, io_reason, one_line};
use crate::fsio::{FileLock, atomic_write};
use crate::jail::Workspace;

/// File name of the binding record.
pub const BINDING_FILE: &str = "workspace-binding.json";
/// The document's file name for the approval store: its JSON form, migrated when found.
pub const APPROVALS_FILE: &str = "approvals.json";
/// The approval store's database (see `approvals`), beside its `-wal` and `-shm` files.
pub const APPROVALS_DB_FILE: &str = "approvals.sqlite3";
/// File name of the approval store's lock.
pub const APPROVALS_LOCK_FILE: &str = "approvals.lock";
/// File name of the audit log.
pub const AUDIT_FILE: &str = "audit.jsonl";
/// File name of the audit log's lock.
pub const AUDIT_LOCK_FILE: &str = "audit.lock";
/// File name of the lock serializing binding creation.
pub const BINDING_LOCK_FILE: &str = "binding.lock";
/// Directory name below the per-user state base.
pub const APP_DIR: &str = "mcp-toolhub";

/// Contents of `workspace-binding.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// Format version, currently 1.
    pub version: u32,
    /// The canonical workspace path.
    pub workspace: String,
    /// SHA-256 hex of `workspace`.
    pub workspace_id: String,
}

/// A resolved, created, canonical and bound state directory.
#[derive(Debug, Clone)]
pub struct StateRoot {
    dir: PathBuf,
    workspace_id: String,
    workspace: String,
}

impl StateRoot {
    /// Resolves the state root for `workspace`.
    ///
    /// - `explicit` (e.g. `TOOLHUB_STATE_ROOT`): must be absolute (an empty string is not, and
    ///   fails closed); created (0700) if missing; used as is, without a per-workspace
    ///   sub-namespace.
    /// - otherwise: `$XDG_STATE_HOME/mcp-toolhub` if `XDG_STATE_HOME` is set and absolute,
    ///   else `$HOME/.local/state/mcp-toolhub`, then `workspaces/<workspace id>`.
    ///
    /// In both cases the directory is canonicalized and refused if it is inside the workspace
    /// (checked before anything is created, and again after canonicalization), then bound.
    /// `env` looks up environment variables (pass `|k| std::env::var(k).ok()`). Every error
    /// names where the root came from: `TOOLHUB_STATE_ROOT` and its value, or the default and
    /// the `XDG_STATE_HOME` or `HOME` it was derived from ([`StateOrigin`]).
    pub fn resolve(
        workspace: &Workspace,
        explicit: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<StateRoot, ConfigError> {
        let (wanted, mut origin) = match explicit {
            Some(raw) => {
                let p = Path::new(raw);
                if raw.is_empty() || !p.is_absolute() {
                    return Err(ConfigError::StateRootNotAbsolute {
                        value: raw.to_string(),
                    });
                }
                let origin = Box::new(StateOrigin::Explicit {
                    value: raw.to_string(),
                    resolved: None,
                });
                (p.to_path_buf(), origin)
            }
            None => {
                let (base, var, value) = default_base_from(env)?;
                let path = base.join("workspaces").join(workspace.id());
                let origin = Box::new(StateOrigin::Default {
                    path: path.clone(),
                    var,
                    value,
                    resolved: None,
                });
                (path, origin)
            }
        };
        let inside = |origin: Box<StateOrigin>| ConfigError::StateRootInsideWorkspace {
            origin,
            workspace: workspace.root_str().to_string(),
        };
        if let Some(leads_to) = would_be_inside(workspace, &wanted) {
            origin.resolve_to(&leads_to);
            return Err(inside(origin));
        }
        if std::fs::metadata(&wanted).is_ok_and(|m| !m.is_dir()) {
            return Err(ConfigError::StateRootNotDirectory { origin });
        }
        create_private_dir_all(&wanted).map_err(|e| ConfigError::StateRootIo {
            origin: origin.clone(),
            step: "create the directory",
            path: wanted.clone(),
            reason: io_reason(&e),
        })?;
        let dir = std::fs::canonicalize(&wanted).map_err(|e| ConfigError::StateRootIo {
            origin: origin.clone(),
            step: "resolve",
            path: wanted.clone(),
            reason: io_reason(&e),
        })?;
        origin.resolve_to(&dir);
        if !dir.is_dir() {
            return Err(ConfigError::StateRootNotDirectory { origin });
        }
        if workspace.contains_canonical(&dir) {
            return Err(inside(origin));
        }
        if dir.to_str().is_none() {
            return Err(ConfigError::StateRootNotUtf8 { origin });
        }
        let root = StateRoot {
            dir,
            workspace_id: workspace.id().to_string(),
            workspace: workspace.root_str().to_string(),
        };
        root.bind(&origin)?;
        Ok(root)
    }

    /// Writes the binding on first use, or verifies it. `origin` is for the messages.
    fn bind(&self, origin: &StateOrigin) -> Result<(), ConfigError> {
        let io = |step: &'static str, path: PathBuf, reason: String| ConfigError::StateRootIo {
            origin: Box::new(origin.clone()),
            step,
            path,
            reason: one_line(&reason),
        };
        let lock_path = self.dir.join(BINDING_LOCK_FILE);
        let _lock = FileLock::acquire(&lock_path, crate::fsio::DEFAULT_LOCK_TIMEOUT)
            .map_err(|e| io("lock", lock_path.clone(), e.to_string()))?;
        let path = self.binding_path();
        let malformed = |reason: String| ConfigError::BindingMalformed {
            origin: Box::new(origin.clone()),
            file: path.clone(),
            reason: one_line(&reason),
        };
        match std::fs::read(&path) {
            Ok(bytes) => {
                let b: Binding =
                    serde_json::from_slice(&bytes).map_err(|e| malformed(e.to_string()))?;
                if b.version != 1 {
                    return Err(malformed(format!(
                        "version {} is not supported (expected 1)",
                        b.version
                    )));
                }
                if b.workspace != self.workspace || b.workspace_id != self.workspace_id {
                    return Err(ConfigError::BoundToOtherWorkspace {
                        origin: Box::new(origin.clone()),
                        bound: b.workspace,
                        bound_id: b.workspace_id,
                        workspace: self.workspace.clone(),
                        workspace_id: self.workspace_id.clone(),
                    });
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let b = Binding {
                    version: 1,
                    workspace: self.workspace.clone(),
                    workspace_id: self.workspace_id.clone(),
                };
                let mut bytes = serde_json::to_vec_pretty(&b)
                    .map_err(|e| io("write", path.clone(), e.to_string()))?;
                bytes.push(b'\n');
                atomic_write(&path, &bytes).map_err(|e| io("write", path.clone(), io_reason(&e)))
            }
            Err(e) => Err(io("read", path.clone(), io_reason(&e))),
        }
    }

    /// The canonical state directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The bound workspace's identifier (SHA-256 hex of its canonical path).
    pub fn workspace_id(&self) -> &str {
        &self.workspace_id
    }

    /// The bound workspace's canonical path.
    pub fn workspace_path(&self) -> &str {
        &self.workspace
    }

    /// `workspace-binding.json`.
    pub fn binding_path(&self) -> PathBuf {
        self.dir.join(BINDING_FILE)
    }

    /// `approvals.json`: the document's name for the store, migrated into the database when
    /// found where no database exists yet.
    pub fn approvals_path(&self) -> PathBuf {
        self.dir.join(APPROVALS_FILE)
    }

    /// `approvals.sqlite3`, where the approval store lives.
    pub fn approvals_db_path(&self) -> PathBuf {
        self.dir.join(APPROVALS_DB_FILE)
    }

    /// `approvals.lock`.
    pub fn approvals_lock_path(&self) -> PathBuf {
        self.dir.join(APPROVALS_LOCK_FILE)
    }

    /// `audit.jsonl`.
    pub fn audit_path(&self) -> PathBuf {
        self.dir.join(AUDIT_FILE)
    }

    /// `audit.lock`.
    pub fn audit_lock_path(&self) -> PathBuf {
        self.dir.join(AUDIT_LOCK_FILE)
    }
}

/// The per-user base directory (`.../mcp-toolhub`) used when no explicit root is given.
pub fn default_base(env: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, ConfigError> {
    default_base_from(env).map(|(base, _, _)| base)
}

/// [`default_base`], with the variable it came from and that variable's value.
fn default_base_from(
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(PathBuf, &'static str, String), ConfigError> {
    let xdg_state_home = env("XDG_STATE_HOME");
    if let Some(x) = xdg_state_home
        .as_ref()
        .filter(|v| Path::new(v).is_absolute())
    {
        return Ok((PathBuf::from(x).join(APP_DIR), "XDG_STATE_HOME", x.clone()));
    }
    let home = env("HOME");
    match home.as_ref().filter(|v| Path::new(v).is_absolute()) {
        Some(h) => Ok((
            PathBuf::from(h).join(".local").join("state").join(APP_DIR),
            "HOME",
            h.clone(),
        )),
        None => Err(ConfigError::StateRootNoBase {
            xdg_state_home,
            home,
        }),
    }
}

/// Canonicalizes the longest existing prefix of `p`, applies the rest of its components
/// lexically (`..` included), and checks containment, so we refuse before creating anything
/// inside the workspace; gives where `p` leads when that is inside. (Climbing with
/// `Path::parent` stopped at a prefix ending in `..`, which has no file name, and let
/// `<outside>/missing/../ws/state` through to be created.)
fn would_be_inside(ws: &Workspace, p: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let parts: Vec<Component<'_>> = p.components().collect();
    for cut in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..cut].iter().collect();
        if let Ok(mut full) = std::fs::canonicalize(&prefix) {
            for part in &parts[cut..] {
                match part {
                    Component::ParentDir => {
                        full.pop();
                    }
                    Component::CurDir => {}
                    other => full.push(other),
                }
            }
            return ws.contains_canonical(&full).then_some(full);
        }
    }
    None
}

fn create_private_dir_all(p: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(p)
}

/// For the tests of the modules that keep state: the state root `<dir>/state`, bound to the
/// existing workspace folder `workspace`.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn test_root(dir: &Path, workspace: &Path) -> StateRoot {
    let ws = crate::jail::Workspace::open(workspace.to_str().unwrap()).unwrap();
    StateRoot::resolve(&ws, Some(dir.join("state").to_str().unwrap()), &|_| None).unwrap()
}

#[cfg(test)]
mod tests;
