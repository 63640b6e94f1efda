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
mod tests {
    use super::*;

    fn env_from(pairs: &[(&str, String)]) -> impl Fn(&str) -> Option<String> + use<> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect();
        move |k: &str| pairs.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn explicit_root_is_bound_and_verified() {
        let t = tempfile::tempdir().unwrap();
        let ws_a = t.path().join("a");
        let ws_b = t.path().join("b");
        std::fs::create_dir_all(&ws_a).unwrap();
        std::fs::create_dir_all(&ws_b).unwrap();
        let state = t.path().join("state").join("nested");
        let wa = Workspace::open(ws_a.to_str().unwrap()).unwrap();
        let wb = Workspace::open(ws_b.to_str().unwrap()).unwrap();
        let none = |_: &str| None;
        let s = StateRoot::resolve(&wa, Some(state.to_str().unwrap()), &none).unwrap();
        assert_eq!(s.workspace_id(), wa.id());
        let binding: serde_json::Value =
            serde_json::from_slice(&std::fs::read(s.binding_path()).unwrap()).unwrap();
        assert_eq!(binding["version"], 1);
        assert_eq!(binding["workspace"], wa.root_str());
        assert_eq!(binding["workspace_id"], wa.id());
        // Re-use by the same workspace is fine; by another fails closed.
        StateRoot::resolve(&wa, Some(state.to_str().unwrap()), &none).unwrap();
        let e = StateRoot::resolve(&wb, Some(state.to_str().unwrap()), &none).unwrap_err();
        assert!(
            matches!(e, ConfigError::BoundToOtherWorkspace { .. }),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "TOOLHUB_STATE_ROOT={:?} belongs to a different workspace: its workspace-binding.json binds it to {:?}, not to {:?} (select a different explicit TOOLHUB_STATE_ROOT, or set TOOLHUB_WORKSPACE_ROOT to {:?}; bindings are never silently reassigned)",
                state.to_str().unwrap(),
                wa.root_str(),
                wb.root_str(),
                wa.root_str()
            )
        );
    }

    #[test]
    fn a_binding_must_match_in_path_and_id() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let w = Workspace::open(ws.to_str().unwrap()).unwrap();
        let state = t.path().join("state");
        let none = |_: &str| None;
        let s = StateRoot::resolve(&w, Some(state.to_str().unwrap()), &none).unwrap();
        assert_eq!(s.workspace_path(), w.root_str());
        let good: serde_json::Value =
            serde_json::from_slice(&std::fs::read(s.binding_path()).unwrap()).unwrap();
        for (key, other) in [("workspace", "/elsewhere"), ("workspace_id", "00ff")] {
            let mut tampered = good.clone();
            tampered[key] = serde_json::json!(other);
            std::fs::write(s.binding_path(), tampered.to_string()).unwrap();
            let e = StateRoot::resolve(&w, Some(state.to_str().unwrap()), &none).unwrap_err();
            assert!(
                matches!(e, ConfigError::BoundToOtherWorkspace { .. }),
                "{key}: {e:?}"
            );
        }
    }

    /// A binding that exists but cannot be read is not a missing one: it is never replaced
    /// by a fresh binding for whoever asks (here a symlink loop where the binding should be).
    #[test]
    fn an_unreadable_binding_fails_closed_and_is_left_alone() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let w = Workspace::open(ws.to_str().unwrap()).unwrap();
        let state = t.path().join("state");
        std::fs::create_dir_all(&state).unwrap();
        let none = |_: &str| None;
        let s = StateRoot::resolve(&w, Some(state.to_str().unwrap()), &none).unwrap();
        let binding = s.binding_path();
        std::fs::remove_file(&binding).unwrap();
        std::os::unix::fs::symlink(&binding, &binding).unwrap();
        let e = StateRoot::resolve(&w, Some(state.to_str().unwrap()), &none).unwrap_err();
        assert!(matches!(e, ConfigError::StateRootIo { .. }), "{e:?}");
        assert!(binding.symlink_metadata().unwrap().file_type().is_symlink());
    }

    #[test]
    fn a_state_root_reaching_into_the_workspace_through_dot_dot_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let w = Workspace::open(ws.to_str().unwrap()).unwrap();
        let none = |_: &str| None;
        // `new` does not exist: the rest of the path is resolved by hand, `..` included.
        let sneaky = t.path().join("new").join("..").join("ws").join("state");
        let e = StateRoot::resolve(&w, Some(sneaky.to_str().unwrap()), &none).unwrap_err();
        assert!(
            matches!(e, ConfigError::StateRootInsideWorkspace { .. }),
            "{e:?}"
        );
        assert!(!ws.join("state").exists());
    }

    #[test]
    fn explicit_root_must_be_absolute_and_outside() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        let w = Workspace::open(ws.to_str().unwrap()).unwrap();
        let none = |_: &str| None;
        for bad in ["", "relative/state", "./state"] {
            let e = StateRoot::resolve(&w, Some(bad), &none).unwrap_err();
            assert!(
                matches!(e, ConfigError::StateRootNotAbsolute { .. }),
                "{bad}: {e:?}"
            );
        }
        let inside = ws.join("sub").join("state");
        let e = StateRoot::resolve(&w, Some(inside.to_str().unwrap()), &none).unwrap_err();
        assert!(matches!(e, ConfigError::StateRootInsideWorkspace { .. }));
        assert!(!inside.exists(), "nothing created inside the workspace");
        let e = StateRoot::resolve(&w, Some(ws.to_str().unwrap()), &none).unwrap_err();
        assert!(matches!(e, ConfigError::StateRootInsideWorkspace { .. }));
        // Via a symlink that points inside.
        let link = t.path().join("sneaky");
        std::os::unix::fs::symlink(ws.join("sub"), &link).unwrap();
        let e = StateRoot::resolve(&w, Some(link.join("s").to_str().unwrap()), &none).unwrap_err();
        assert!(matches!(e, ConfigError::StateRootInsideWorkspace { .. }));
        // Lexical `..` that ends inside.
        let dotdot = t.path().join("x").join("..").join("ws").join("st");
        let e = StateRoot::resolve(&w, Some(dotdot.to_str().unwrap()), &none).unwrap_err();
        assert!(matches!(e, ConfigError::StateRootInsideWorkspace { .. }));
    }

    #[test]
    fn default_namespace_per_workspace() {
        let t = tempfile::tempdir().unwrap();
        let xdg = t.path().join("xdg");
        let ws_a = t.path().join("a");
        let ws_b = t.path().join("b");
        std::fs::create_dir_all(&ws_a).unwrap();
        std::fs::create_dir_all(&ws_b).unwrap();
        let wa = Workspace::open(ws_a.to_str().unwrap()).unwrap();
        let wb = Workspace::open(ws_b.to_str().unwrap()).unwrap();
        let env = env_from(&[("XDG_STATE_HOME", xdg.to_str().unwrap().to_string())]);
        let sa = StateRoot::resolve(&wa, None, &env).unwrap();
        let sb = StateRoot::resolve(&wb, None, &env).unwrap();
        assert_ne!(sa.dir(), sb.dir());
        let canon_xdg = std::fs::canonicalize(&xdg).unwrap();
        assert_eq!(
            sa.dir(),
            canon_xdg
                .join("mcp-toolhub")
                .join("workspaces")
                .join(wa.id())
        );
        // HOME fallback, and relative XDG_STATE_HOME ignored.
        let home = t.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let env = env_from(&[
            ("XDG_STATE_HOME", "relative".to_string()),
            ("HOME", home.to_str().unwrap().to_string()),
        ]);
        let s = StateRoot::resolve(&wa, None, &env).unwrap();
        assert!(
            s.dir().starts_with(
                std::fs::canonicalize(&home)
                    .unwrap()
                    .join(".local/state/mcp-toolhub/workspaces")
            )
        );
        let none = |_: &str| None;
        assert!(matches!(
            StateRoot::resolve(&wa, None, &none).unwrap_err(),
            ConfigError::StateRootNoBase { .. }
        ));
    }

    #[test]
    fn default_inside_workspace_is_refused() {
        // Workspace = $HOME: the default state base would be inside it.
        let t = tempfile::tempdir().unwrap();
        let w = Workspace::open(t.path().to_str().unwrap()).unwrap();
        let env = env_from(&[("HOME", t.path().to_str().unwrap().to_string())]);
        let e = StateRoot::resolve(&w, None, &env).unwrap_err();
        assert!(matches!(e, ConfigError::StateRootInsideWorkspace { .. }));
        assert!(!t.path().join(".local").exists());
    }

    #[test]
    fn malformed_binding_fails_closed() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let state = t.path().join("state");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join(BINDING_FILE), b"{not json").unwrap();
        let w = Workspace::open(ws.to_str().unwrap()).unwrap();
        let e = StateRoot::resolve(&w, Some(state.to_str().unwrap()), &|_| None).unwrap_err();
        assert!(matches!(e, ConfigError::BindingMalformed { .. }));
        assert_eq!(
            std::fs::read(state.join(BINDING_FILE)).unwrap(),
            b"{not json"
        );
    }
}
