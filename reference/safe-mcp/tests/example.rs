//! The shipped `policy.example.toml` loads as a terminal policy once its directories exist.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use mcp_safety_core::policy::{Overrides, Policy, Server};
use mcp_safety_core::trail::FailMode;

#[test]
fn example_policy_loads() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("policy.example.toml");
    let tmp = tempfile::tempdir().unwrap();
    for d in ["sandbox", "inbox", "state"] {
        std::fs::create_dir(tmp.path().join(d)).unwrap();
    }
    let copy = tmp.path().join("policy.example.toml");
    std::fs::copy(&example, &copy).unwrap();
    let p = Policy::load(&copy, &Overrides::default(), Server::Terminal).unwrap();
    let base = tmp.path().canonicalize().unwrap();
    assert_eq!(p.jail_root.unwrap(), base.join("sandbox"));
    assert_eq!(p.audit_fail_mode, FailMode::Closed);
    assert!(p.terminal.allow.contains("git"));
    assert!(
        !p.terminal
            .evaluate(&["git".into(), "push".into(), "-f".into()])
            .allowed
    );
    let p = Policy::load(&copy, &Overrides::default(), Server::Files).unwrap();
    assert_eq!(p.workspace_root.clone().unwrap(), base.join("inbox"));
    let text = std::fs::read_to_string(&copy).unwrap();
    assert!(safe_mcp::files::Organizer::new(p, &text).is_ok());
}
