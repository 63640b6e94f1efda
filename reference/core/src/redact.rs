//! Secret redaction for anything that leaves the trusted boundary in a readable form (audit
//! events, agent-visible summaries).
//!
//! Three rules: (1) the value of any object key that looks secret is replaced whole, whatever
//! its type; (2) in arrays, the element following a secret-looking flag (`--password`,
//! `--api-key`) is replaced (argv); (3) inside every string, substrings that look like
//! credentials (`KEY=VALUE` with a secret-looking KEY, bearer tokens, well-known token
//! shapes, URL passwords, PEM private keys) are replaced. All write [`REDACTED`]. It is deliberately eager: redacting a harmless `max_tokens` is cheaper
//! than leaking a token.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

pub mod log;

/// The replacement text.
pub const REDACTED: &str = "[REDACTED]";

/// Substrings (of the lowercased key with `-` and spaces mapped to `_`) that mark a key as
/// secret.
pub const SECRET_KEY_MARKERS: &[&str] = &[
    "token",
    "password",
    "passwd",
    "secret",
    "api_key",
    "apikey",
    "authorization",
    "credential",
    "private_key",
    "access_key",
    "cookie",
];

/// True if an object key (or env var name) looks like it names a secret.
pub fn is_secret_key(key: &str) -> bool {
    let k: String = key
        .chars()
        .map(|c| match c {
            '-' | ' ' | '.' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    SECRET_KEY_MARKERS.iter().any(|m| k.contains(m))
}

fn patterns() -> &'static [(Regex, &'static str)] {
    static P: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    P.get_or_init(|| {
        let key = r"[A-Za-z0-9_.\-]*(?i:token|password|passwd|secret|api[_\-]?key|authorization|credential|private[_\-]?key|access[_\-]?key)[A-Za-z0-9_.\-]*";
        let specs: Vec<(String, &'static str)> = vec![
            // PEM private keys: the whole block.
            (
                r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
                    .into(),
                REDACTED,
            ),
            // Authorization headers / bearer tokens.
            (
                r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/\-]{8,}=*".into(),
                "$1 [REDACTED]",
            ),
            // KEY=VALUE / KEY: VALUE / "KEY": "VALUE" where KEY looks secret.
            (
                format!(
                    r#"(?P<k>{key})(?P<sep>["']?\s*[=:]\s*)(?:"[^"]*"|'[^']*'|[^\s&;,'"]+)"#
                ),
                "$k$sep[REDACTED]",
            ),
            // A secret-looking flag and its value in a command line (`--api-key VALUE`); the
            // `--flag=VALUE` form is the KEY=VALUE rule above.
            (
                format!(r#"(?P<f>(?:^|[\s"'(\[])--?{key}\s+)(?:"[^"]*"|'[^']*'|[^\s&;,'"\-][^\s&;,'"]*)"#),
                "$f[REDACTED]",
            ),
            // URL userinfo password.
            (
                r"(?P<pre>[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)[^/\s@]+@".into(),
                "$pre[REDACTED]@",
            ),
            // Well-known credential shapes.
            (r"\bsk-[A-Za-z0-9_\-]{16,}".into(), REDACTED),
            (r"\bgh[pousr]_[A-Za-z0-9]{20,}".into(), REDACTED),
            (r"\bgithub_pat_[A-Za-z0-9_]{20,}".into(), REDACTED),
            (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b".into(), REDACTED),
            (r"\bxox[abprs]-[A-Za-z0-9\-]{10,}".into(), REDACTED),
            (r"\bAIza[0-9A-Za-z_\-]{35}".into(), REDACTED),
            (r"\bglpat-[A-Za-z0-9_\-]{20,}".into(), REDACTED),
            (
                r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}".into(),
                REDACTED,
            ),
        ];
        specs
            .into_iter()
            .filter_map(|(p, r)| Regex::new(&p).ok().map(|re| (re, r)))
            .collect()
    })
}

/// Replaces credential-looking substrings of `s`.
pub fn redact_str(s: &str) -> Cow<'_, str> {
    let mut out: Cow<'_, str> = Cow::Borrowed(s);
    for (re, rep) in patterns() {
        if re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, *rep).into_owned());
        }
    }
    out
}

/// A copy of `v` with secret-keyed values and credential-looking strings redacted.
pub fn redact_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(redact_str(s).into_owned()),
        Value::Array(a) => {
            // argv-style arrays: the element after a secret-looking flag (`--password`,
            // `-token`) is its value.
            let mut out = Vec::with_capacity(a.len());
            let mut hide_next = false;
            for item in a {
                if hide_next {
                    hide_next = false;
                    out.push(Value::String(REDACTED.to_string()));
                    continue;
                }
                if let Value::String(s) = item
                    && s.starts_with('-')
                    && !s.contains('=')
                    && is_secret_key(s)
                {
                    hide_next = true;
                }
                out.push(redact_value(item));
            }
            Value::Array(out)
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = if is_secret_key(k) {
                        Value::String(REDACTED.to_string())
                    } else {
                        redact_value(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_keys_are_redacted_whatever_the_value() {
        let v = json!({
            "path": "notes.txt",
            "API_KEY": "abc",
            "nested": {"db_password": 1234, "Authorization": {"x": 1}, "x-api-key": "k"},
            "list": [{"client_secret": "s"}, {"ok": "fine"}],
            "GitHubToken": "t",
        });
        let r = redact_value(&v);
        assert_eq!(r["path"], "notes.txt");
        assert_eq!(r["API_KEY"], REDACTED);
        assert_eq!(r["nested"]["db_password"], REDACTED);
        assert_eq!(r["nested"]["Authorization"], REDACTED);
        assert_eq!(r["nested"]["x-api-key"], REDACTED);
        assert_eq!(r["list"][0]["client_secret"], REDACTED);
        assert_eq!(r["list"][1]["ok"], "fine");
        assert_eq!(r["GitHubToken"], REDACTED);
    }

    #[test]
    fn credential_strings_are_redacted() {
        let cases = [
            "sk-abcdefghijklmnop1234567890",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "AKIAABCDEFGHIJKLMNOP",
            "xoxb-1234567890-abcdef",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ];
        for c in cases {
            let s = format!("run with {c} please");
            let r = redact_str(&s);
            assert!(!r.contains(c), "{c} leaked: {r}");
            assert!(r.contains(REDACTED));
        }
        let r = redact_str("curl -H 'Authorization: Bearer abcdef123456789' x");
        assert!(!r.contains("abcdef123456789"), "{r}");
        let r = redact_str("API_KEY=supersecretvalue OTHER=visible");
        assert!(!r.contains("supersecretvalue"), "{r}");
        assert!(r.contains("OTHER=visible"), "{r}");
        let r = redact_str("export DB_PASSWORD=\"hunter2 x\"; echo");
        assert!(!r.contains("hunter2"), "{r}");
        let r = redact_str("echo --api-key s3cr3tvalue --verbose -token 'two words' --keep x");
        assert!(
            !r.contains("s3cr3tvalue") && !r.contains("two words"),
            "{r}"
        );
        assert!(r.contains("--verbose") && r.contains("--keep x"), "{r}");
        let r = redact_str("https://user:p4ss@example.com/x");
        assert!(!r.contains("p4ss"), "{r}");
        let r = redact_str("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----");
        assert_eq!(r, REDACTED);
        assert_eq!(redact_str("hello world"), "hello world");
        assert!(matches!(redact_str("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn argv_flag_values_are_redacted() {
        let v = json!([
            "tool",
            "--password",
            "hunter2",
            "--verbose",
            "x",
            "--api-key=abc123",
            "-t"
        ]);
        let r = redact_value(&v);
        assert_eq!(
            r,
            json!([
                "tool",
                "--password",
                REDACTED,
                "--verbose",
                "x",
                "--api-key=[REDACTED]",
                "-t"
            ])
        );
    }

    #[test]
    fn non_strings_untouched() {
        let v = json!([1, true, null, 2.5]);
        assert_eq!(redact_value(&v), v);
    }
}
