//! `${name}` interpolation of scenario values.
//!
//! Variables come from the sandbox (`${workspace}`, `${state}`, `${dirs.NAME}`...), the target
//! (`${conformance}`, `${target_dir}`), knobs and `save` captures. A string that is exactly
//! one `${name}` takes the variable's JSON value (so a saved number stays a number); inside a
//! longer string the value is spliced as text. `$${` writes a literal `${`.

use serde_json::Value;
use std::collections::BTreeMap;

/// The variables visible to a scenario step.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    values: BTreeMap<String, Value>,
}

/// A `${...}` that names no variable, or is not closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("unknown variable ${{{name}}} (known: {known})")]
    Unknown { name: String, known: String },
    #[error("unclosed ${{ in {text:?}")]
    Unclosed { text: String },
}

impl Vars {
    /// Sets (or replaces) a variable.
    pub fn set(&mut self, name: impl Into<String>, value: Value) {
        self.values.insert(name.into(), value);
    }

    /// Sets a string variable.
    pub fn set_str(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.set(name, Value::String(value.into()));
    }

    /// Looks a name up: first as a whole key (`dirs.other`), then as a dotted path into a
    /// JSON value (`rid.approval.request_id`, `items.0`).
    pub fn get(&self, name: &str) -> Option<&Value> {
        if let Some(v) = self.values.get(name) {
            return Some(v);
        }
        // Longest key prefix first, so `dirs.a.b` prefers key `dirs.a` over `dirs`.
        let mut cut = name.len();
        while let Some(dot) = name[..cut].rfind('.') {
            if let Some(base) = self.values.get(&name[..dot])
                && let Some(v) = lookup_path(base, &name[dot + 1..])
            {
                return Some(v);
            }
            cut = dot;
        }
        None
    }

    /// All variable names, for error messages.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    fn unknown(&self, name: &str) -> InterpError {
        let mut known: Vec<&str> = self.names().collect();
        known.truncate(30);
        InterpError::Unknown {
            name: name.to_string(),
            known: known.join(", "),
        }
    }

    /// Expands every `${...}` in a string, splicing values as text.
    pub fn expand_str(&self, text: &str) -> Result<String, InterpError> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i..];
            if let Some(tail) = after.strip_prefix("$${") {
                out.push_str("${");
                rest = tail;
            } else if let Some(tail) = after.strip_prefix("${") {
                let end = tail.find('}').ok_or_else(|| InterpError::Unclosed {
                    text: text.to_string(),
                })?;
                let name = tail[..end].trim();
                let value = self.get(name).ok_or_else(|| self.unknown(name))?;
                out.push_str(&as_text(value));
                rest = &tail[end + 1..];
            } else {
                out.push('$');
                rest = &after[1..];
            }
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Expands a JSON value recursively: strings are expanded, and a string that is exactly
    /// `${name}` becomes the variable's JSON value. Object keys are expanded as text.
    pub fn expand(&self, value: &Value) -> Result<Value, InterpError> {
        Ok(match value {
            Value::String(s) => {
                if let Some(name) = whole_reference(s) {
                    self.get(name).cloned().ok_or_else(|| self.unknown(name))?
                } else {
                    Value::String(self.expand_str(s)?)
                }
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.expand(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => {
                let mut out = serde_json::Map::with_capacity(map.len());
                for (k, v) in map {
                    out.insert(self.expand_str(k)?, self.expand(v)?);
                }
                Value::Object(out)
            }
            other => other.clone(),
        })
    }
}

/// `Some(name)` when the whole string is one `${name}` reference.
fn whole_reference(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("${")?.strip_suffix('}')?;
    (!inner.contains('}') && !inner.contains("${")).then(|| inner.trim())
}

/// A JSON value as spliced into text: strings bare, everything else as compact JSON.
pub fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Walks a dotted path (`a.b.0.c`) into a JSON value; numeric segments index arrays.
pub fn lookup_path<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(value);
    }
    path.split('.').try_fold(value, |v, seg| match v {
        Value::Object(map) => map.get(seg),
        Value::Array(items) => seg.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> Vars {
        let mut v = Vars::default();
        v.set_str("workspace", "/tmp/ws");
        v.set_str("dirs.other", "/tmp/other");
        v.set("rid", json!({"approval": {"request_id": "r-1"}, "n": 3}));
        v.set("count", json!(7));
        v
    }

    #[test]
    fn splices_and_keeps_types() {
        let v = vars();
        assert_eq!(
            v.expand_str("${workspace}/a").ok().as_deref(),
            Some("/tmp/ws/a")
        );
        assert_eq!(
            v.expand_str("${dirs.other}").ok().as_deref(),
            Some("/tmp/other")
        );
        assert_eq!(
            v.expand(
                &json!({"id": "${rid.approval.request_id}", "n": "${count}", "s": "n=${count}"})
            )
            .ok(),
            Some(json!({"id": "r-1", "n": 7, "s": "n=7"}))
        );
        assert_eq!(
            v.expand_str("cost $5 and $${literal}").ok().as_deref(),
            Some("cost $5 and ${literal}")
        );
    }

    #[test]
    fn errors_name_the_variable() {
        let v = vars();
        let err = v
            .expand_str("${nope}")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("${nope}"), "{err}");
        assert!(matches!(
            v.expand_str("${open"),
            Err(InterpError::Unclosed { .. })
        ));
    }
}
