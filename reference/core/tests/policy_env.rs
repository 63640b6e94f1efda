//! `Overrides::from_env`: the `SAFE_MCP_*` variables, an empty one meaning unset. Its own test
//! binary with one test: it sets process environment variables, which no other thread may
//! read meanwhile.

#![allow(unsafe_code)]

use mcp_safety_core::policy::Overrides;

#[test]
fn overrides_come_from_the_environment_and_empty_means_unset() {
    let vars = [
        ("SAFE_MCP_JAIL_ROOT", "/srv/jail"),
        ("SAFE_MCP_WORKSPACE_ROOT", ""),
        ("SAFE_MCP_AUDIT_LOG", "logs/audit.jsonl"),
        ("SAFE_MCP_AUDIT_FAIL_MODE", "open"),
        ("SAFE_MCP_FILES_JOURNAL", "/var/lib/journal.json"),
    ];
    for (k, v) in vars {
        // SAFETY: the only test of this binary; nothing else reads the environment now.
        unsafe { std::env::set_var(k, v) };
    }
    let o = Overrides::from_env();
    assert_eq!(o.jail_root.as_deref(), Some("/srv/jail"));
    assert_eq!(o.workspace_root, None);
    assert_eq!(o.audit_log.as_deref(), Some("logs/audit.jsonl"));
    assert_eq!(o.audit_fail_mode.as_deref(), Some("open"));
    assert_eq!(o.files_journal.as_deref(), Some("/var/lib/journal.json"));
}
