//! The state root: where it is resolved, that it stays outside the workspace, and that its
//! binding to one workspace fails closed.

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
