//! The `SAFE_MCP_*` variables that override policy keys, read strictly: an empty one counts as
//! unset (the document's rule), but one that is not valid UTF-8 is an error naming it, never
//! silently unset (which would put the policy file's key, or no value, in its place).

use std::ffi::OsString;

use mcp_safety_core::policy::Overrides;

/// The overriding variables, each with the fix its UTF-8 error suggests.
const VARIABLES: [(&str, &str); 5] = [
    ("SAFE_MCP_JAIL_ROOT", "use a path that is valid UTF-8"),
    ("SAFE_MCP_WORKSPACE_ROOT", "use a path that is valid UTF-8"),
    ("SAFE_MCP_AUDIT_LOG", "use a path that is valid UTF-8"),
    ("SAFE_MCP_AUDIT_FAIL_MODE", "set it to closed or open"),
    ("SAFE_MCP_FILES_JOURNAL", "use a path that is valid UTF-8"),
];

/// The overrides from the process environment, or the one-line error for a variable that is
/// not valid UTF-8.
pub(crate) fn overrides() -> Result<Overrides, String> {
    overrides_from(|var| std::env::var_os(var))
}

/// [`overrides`] with `get` as the environment.
pub(crate) fn overrides_from(get: impl Fn(&str) -> Option<OsString>) -> Result<Overrides, String> {
    let mut values: Vec<Option<String>> = Vec::with_capacity(VARIABLES.len());
    for (var, fix) in VARIABLES {
        let value = match get(var) {
            None => None,
            Some(v) if v.is_empty() => None,
            Some(v) => Some(
                v.into_string()
                    .map_err(|v| format!("{var}={v:?} is not valid UTF-8 ({fix})"))?,
            ),
        };
        values.push(value);
    }
    let mut values = values.into_iter();
    let mut next = || values.next().flatten();
    Ok(Overrides {
        jail_root: next(),
        workspace_root: next(),
        audit_log: next(),
        audit_fail_mode: next(),
        files_journal: next(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;

    #[test]
    fn each_variable_lands_in_its_field_and_empty_means_unset() {
        let o = overrides_from(|var| match var {
            "SAFE_MCP_JAIL_ROOT" => Some("/j".into()),
            "SAFE_MCP_WORKSPACE_ROOT" => Some("".into()),
            "SAFE_MCP_AUDIT_LOG" => Some("a.jsonl".into()),
            "SAFE_MCP_AUDIT_FAIL_MODE" => Some("open".into()),
            "SAFE_MCP_FILES_JOURNAL" => Some("j.json".into()),
            _ => None,
        })
        .expect("valid");
        assert_eq!(o.jail_root.as_deref(), Some("/j"));
        assert_eq!(o.workspace_root, None);
        assert_eq!(o.audit_log.as_deref(), Some("a.jsonl"));
        assert_eq!(o.audit_fail_mode.as_deref(), Some("open"));
        assert_eq!(o.files_journal.as_deref(), Some("j.json"));
    }

    #[test]
    fn a_value_that_is_not_utf8_is_an_error_naming_the_variable() {
        let e = overrides_from(|var| {
            (var == "SAFE_MCP_AUDIT_LOG").then(|| OsString::from_vec(b"log\xff".to_vec()))
        })
        .expect_err("not UTF-8");
        assert_eq!(
            e,
            "SAFE_MCP_AUDIT_LOG=\"log\\xFF\" is not valid UTF-8 (use a path that is valid UTF-8)"
        );
    }
}
