//! What the client receives of what an upstream sent: tool entries, call results and
//! progress, each the upstream's JSON text with only the rewrites the hub must make.
//!
//! The rewrites, and nothing else (every other member keeps its key, place and spelling):
//!
//! - a tool entry: its `name` (the outward name, in place), and the hints an override names
//!   (`readOnlyHint`, `destructiveHint`, `openWorldHint`: replaced in place, or added at the
//!   end of `annotations`, which is added at the end of the entry when there is none);
//! - a call result: the `io.modelcontextprotocol/*` keys of its `_meta` (they describe the
//!   upstream's hop; a `_meta` left empty by that goes), and what the client's generation
//!   asks ([`Era`]): a 2026-07-28 client gets `resultType: "complete"` (first, as rmcp puts
//!   it, when the upstream sent none), an older one none, and no non-object
//!   `structuredContent` (2026-07-28's SEP-2106: moved into a first text block, in the
//!   upstream's spelling, unless that block already holds it); a result without `content`
//!   gets `"content": []` (a result must have one);
//! - a tool entry for an older client: no non-object `outputSchema`;
//! - progress: the client's own token in place of the hub's;
//! - every message: the client's request id, as the client wrote it.
//!
//! A result is checked only as far as relaying needs: an object whose `content`, when
//! present, is an array, whose `isError` is a boolean or null, and whose `resultType`, when
//! present, is `complete` (multi round-trip and task results need flows the hub does not
//! relay). Content blocks of kinds the hub does not know pass, as they are.

use serde_json::value::RawValue;

use crate::json_text::{NotAnObject, Object, string};
use crate::upstream::wire::META_PROTOCOL_PREFIX;

/// The client's protocol generation for one request: how its results are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2024-11-05 to 2025-11-25: no `resultType`, object-only structured output.
    Legacy,
    /// 2026-07-28 and later: `resultType`, list cache hints.
    Modern,
}

/// Why an upstream result cannot be relayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultError {
    /// Not a result object, or a member of the wrong kind.
    #[error("invalid response: {0}")]
    Invalid(String),
    /// A result the hub cannot relay (`input_required`, `task`).
    #[error("invalid response: result type `{0}` is not supported by mcp-hub")]
    Unsupported(String),
}

impl From<NotAnObject> for ResultError {
    fn from(e: NotAnObject) -> Self {
        ResultError::Invalid(e.to_string())
    }
}

/// The hint keys an override may set, in the order the configuration's fields are applied.
pub type Hints<'a> = &'a [(&'static str, bool)];

/// The outward entry (the modern form) of the upstream's entry `entry`.
pub fn tool_entry(
    entry: &str,
    outward_name: &str,
    hints: Hints<'_>,
) -> Result<String, NotAnObject> {
    let mut object = Object::parse(entry)?;
    object.set("name", string(outward_name));
    if !hints.is_empty() {
        let current = object.get("annotations").map(str::to_owned);
        let annotations = match current.as_deref().map(Object::parse) {
            Some(Ok(mut annotations)) => {
                for (key, value) in hints {
                    annotations.set(key, bool_text(*value));
                }
                annotations.render()
            }
            // None, or not an object: the hints alone.
            _ => {
                let mut annotations = Object::parse("{}")?;
                for (key, value) in hints {
                    annotations.set(key, bool_text(*value));
                }
                annotations.render()
            }
        };
        object.set("annotations", annotations);
    }
    Ok(object.render())
}

/// `entry` as a client older than 2026-07-28 gets it: without an `outputSchema` whose root
/// `type` is not `"object"` (rmcp's `strip_non_object_output_for_legacy_peer`); `None` when
/// it is the same.
pub fn legacy_entry(entry: &str) -> Result<Option<String>, NotAnObject> {
    let mut object = Object::parse(entry)?;
    let Some(schema) = object.get("outputSchema") else {
        return Ok(None);
    };
    let object_schema = Object::parse(schema)
        .ok()
        .and_then(|schema| schema.get("type").map(decode_string))
        .is_some_and(|kind| kind.as_deref() == Some("object"));
    if object_schema {
        return Ok(None);
    }
    object.remove("outputSchema");
    Ok(Some(object.render()))
}

/// A `tools/list` result of `entries` (their texts joined by commas) for `era`: a modern one
/// with `resultType` and the cache hints 2026-07-28 asks of a list (never cached, never
/// shared, as the hub's discover result says), in rmcp's order.
pub fn list_result(entries: &str, era: Era) -> String {
    match era {
        Era::Legacy => format!(r#"{{"tools":[{entries}]}}"#),
        Era::Modern => format!(
            r#"{{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{entries}]}}"#
        ),
    }
}

/// The result the client gets for the upstream's `tools/call` result `result`.
pub fn call_result(result: &str, era: Era) -> Result<String, ResultError> {
    let mut object = Object::parse(result)?;
    match object.get("resultType").map(decode_string) {
        None => {
            if era == Era::Modern {
                object.prepend("resultType", r#""complete""#);
            }
        }
        Some(Some(kind)) if kind == "complete" => {
            if era == Era::Legacy {
                object.remove("resultType");
            }
        }
        Some(Some(kind)) => return Err(ResultError::Unsupported(kind)),
        Some(None) => return Err(invalid("`resultType` is not a string")),
    }
    match object.get("content") {
        Some(content) if !content.starts_with('[') => {
            return Err(invalid("`content` is not an array"));
        }
        Some(_) => {}
        None => {
            object.set("content", "[]");
        }
    }
    if let Some(is_error) = object.get("isError")
        && !matches!(is_error, "true" | "false" | "null")
    {
        return Err(invalid("`isError` is not a boolean"));
    }
    speak_as_hub(&mut object);
    if era == Era::Legacy {
        object_only_structured_content(&mut object);
    }
    Ok(object.render())
}

/// Drops the `io.modelcontextprotocol/*` keys of the result's `_meta`: they describe the
/// upstream-to-hub hop (`serverInfo`: the upstream's identity, where the client's server is
/// the hub). A `_meta` they alone filled goes with them.
fn speak_as_hub(object: &mut Object<'_>) {
    let Some(meta) = object.get("_meta") else {
        return;
    };
    let Ok(mut meta) = Object::parse(meta) else {
        return;
    };
    if meta.remove_where(|key| key.starts_with(META_PROTOCOL_PREFIX)) == 0 {
        return;
    }
    if meta.is_empty() {
        object.remove("_meta");
    } else {
        let text = meta.render();
        object.set("_meta", text);
    }
}

/// For a client older than 2026-07-28: a non-object `structuredContent` is not its; it goes,
/// and its text becomes the first content block unless that block is text holding the same
/// value (rmcp's `strip_non_object_output_for_legacy_peer`, with the upstream's spelling).
fn object_only_structured_content(object: &mut Object<'_>) {
    let Some(structured) = object.get("structuredContent").map(str::to_owned) else {
        return;
    };
    if structured.starts_with('{') {
        return;
    }
    object.remove("structuredContent");
    if structured == "null" {
        return;
    }
    let content = object.get("content").unwrap_or("[]").to_owned();
    let value: Option<serde_json::Value> = serde_json::from_str(&structured).ok();
    let first_holds_it = serde_json::from_str::<Vec<&RawValue>>(&content)
        .ok()
        .and_then(|blocks| blocks.first().map(|b| b.get().to_owned()))
        .and_then(|block| serde_json::from_str::<TextBlock>(&block).ok())
        .filter(|block| block.kind == "text")
        .and_then(|block| serde_json::from_str::<serde_json::Value>(&block.text).ok())
        .is_some_and(|text| Some(text) == value);
    if first_holds_it {
        return;
    }
    let block = format!(r#"{{"type":"text","text":{}}}"#, string(&structured));
    let inner = content
        .trim()
        .strip_prefix('[')
        .and_then(|c| c.strip_suffix(']'))
        .unwrap_or("");
    let blocks = if inner.trim().is_empty() {
        format!("[{block}]")
    } else {
        format!("[{block},{inner}]")
    };
    object.set("content", blocks);
}

#[derive(serde::Deserialize)]
struct TextBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: String,
}

/// The upstream's progress `params` with the client's token `token` (JSON text) in place of
/// the hub's.
pub fn progress_params(params: &str, token: &str) -> Result<String, NotAnObject> {
    let mut object = Object::parse(params)?;
    object.set("progressToken", token.to_owned());
    Ok(object.render())
}

/// A response line answering the client's request `id` (JSON text) with `result`.
pub fn result_line(id: &str, result: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(result.len() + id.len() + 32);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    line.extend_from_slice(id.as_bytes());
    line.extend_from_slice(br#","result":"#);
    line.extend_from_slice(result.as_bytes());
    line.extend_from_slice(b"}\n");
    line
}

/// An error line answering the client's request `id` (JSON text); `data` is JSON text.
pub fn error_line(id: &str, code: i64, message: &str, data: Option<&str>) -> Vec<u8> {
    let data = data.map(|d| format!(r#","data":{d}"#)).unwrap_or_default();
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{code},\"message\":{}{data}}}}}\n",
        string(message)
    )
    .into_bytes()
}

/// A notification line to the client.
pub fn notification_line(method: &str, params: &str) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":{},\"params\":{params}}}\n",
        string(method)
    )
    .into_bytes()
}

fn bool_text(value: bool) -> &'static str {
    if value { "true" } else { "false" }
}

/// The string a member's text holds, or `None` when it is not a string.
fn decode_string(text: &str) -> Option<String> {
    serde_json::from_str::<String>(text).ok()
}

fn invalid(reason: &str) -> ResultError {
    ResultError::Invalid(reason.to_owned())
}

#[cfg(test)]
#[path = "outward_tests.rs"]
mod tests;
