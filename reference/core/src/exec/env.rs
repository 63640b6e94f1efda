//! The sanitized child environment: a versioned snapshot stored in approvals with a digest.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::digest::sha256_hex;

/// The versioned sanitized child environment snapshot.
///
/// Exists so an approval records exactly which variables the child will get (the child
/// inherits nothing else) and can detect a policy change between approval and launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanitizedEnv {
    /// Policy version that produced `vars`.
    pub version: u32,
    /// Exactly the child's environment.
    pub vars: BTreeMap<String, String>,
}

/// Canonical digest form: keys in sorted order, `vars` before `version`, compact JSON.
#[derive(Serialize)]
struct Canonical<'a> {
    vars: &'a BTreeMap<String, String>,
    version: u32,
}

impl SanitizedEnv {
    /// The POSIX baseline: version 1, no variables (nothing is inherited).
    pub fn posix_baseline() -> Self {
        Self {
            version: 1,
            vars: BTreeMap::new(),
        }
    }

    /// SHA-256 hex of the canonical JSON `{"vars":{..sorted..},"version":N}`, so a stored
    /// snapshot can be checked for tampering or drift.
    pub fn digest(&self) -> String {
        let canonical = Canonical {
            vars: &self.vars,
            version: self.version,
        };
        // Serializing string maps and an integer cannot fail.
        let json = serde_json::to_string(&canonical).unwrap_or_default();
        sha256_hex(json.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_digest_is_of_canonical_json() {
        let env = SanitizedEnv::posix_baseline();
        assert_eq!(env.digest(), sha256_hex(br#"{"vars":{},"version":1}"#));
        let mut env = SanitizedEnv::posix_baseline();
        env.vars.insert("b".into(), "2".into());
        env.vars.insert("a".into(), "\"1\"".into());
        assert_eq!(
            env.digest(),
            sha256_hex(br#"{"vars":{"a":"\"1\"","b":"2"},"version":1}"#)
        );
    }
}
