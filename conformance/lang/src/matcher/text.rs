//! How values and keys are named in a mismatch's reason: one line, bounded.

use serde_json::Value;

pub(super) fn key_list(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    format!(
        "key{} {}",
        if keys.len() == 1 { "" } else { "s" },
        quoted.join(", ")
    )
}

/// The JSON type name of a value (`object`, `number`...), as reasons and the sweep name it.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

const SHORT: usize = 60;

/// A one-line, bounded rendering of a value for reasons: scalars as JSON, containers by size.
pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("an array of {} element(s)", a.len()),
        Value::Object(m) => format!("an object with {} key(s)", m.len()),
        _ => compact(v),
    }
}

/// Compact JSON, cut at [`SHORT`] characters so a reason stays on one readable line.
pub(super) fn compact(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= SHORT {
        text
    } else {
        let cut: String = text.chars().take(SHORT).collect();
        format!("{cut}…")
    }
}
