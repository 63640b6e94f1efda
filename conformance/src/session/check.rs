//! JSON-RPC 2.0's rules for what a server writes, applied to every object it sends: a
//! response carries exactly one of `result` and `error`, an `error` of the defined shape, and
//! the id of a request we sent, of the same JSON type; every message says `"jsonrpc": "2.0"`.
//!
//! Ids are compared by value: a number is the same number whatever its spelling (`1`, `1.0`,
//! or a rounding a double-precision parser makes of a large one), a string the same string.
//! A string holding the digits of a number we sent (or a number whose digits are a string id
//! we sent) is a *near miss*: the answer came, with an id of another JSON type.

use serde_json::{Map, Value};
use std::collections::HashSet;

/// A document a rule comes from: its title and address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Document {
    pub title: &'static str,
    pub url: &'static str,
}

/// The document most of these rules come from.
const JSONRPC: Document = Document {
    title: "JSON-RPC 2.0",
    url: "https://www.jsonrpc.org/specification",
};

/// MCP's progress page, whose rule on tokens holds for every message as well.
const MCP_PROGRESS: Document = Document {
    title: "MCP",
    url: "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress",
};

/// A sentence of a document every message is held to, and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub document: Document,
    pub section: &'static str,
    pub quote: &'static str,
}

const ONE_OF: Rule = Rule {
    document: JSONRPC,
    section: "5 Response object",
    quote: "Either the result member or error member MUST be included, but both members MUST NOT be included.",
};
const SAME_ID: Rule = Rule {
    document: JSONRPC,
    section: "5 Response object",
    quote: "id ... It MUST be the same as the value of the id member in the Request Object.",
};
const ID_REQUIRED: Rule = Rule {
    document: JSONRPC,
    section: "5 Response object",
    quote: "id This member is REQUIRED.",
};
const NULL_ID: Rule = Rule {
    document: JSONRPC,
    section: "5 Response object",
    quote: "It MUST be the same as the value of the id member in the Request Object. If there \
            was an error in detecting the id in the Request object (e.g. Parse error/Invalid \
            Request), it MUST be Null.",
};
const VERSION: Rule = Rule {
    document: JSONRPC,
    section: "4 Request object, 5 Response object",
    quote: "jsonrpc A String specifying the version of the JSON-RPC protocol. MUST be exactly \"2.0\".",
};
const ERROR_OBJECT: Rule = Rule {
    document: JSONRPC,
    section: "5 Response object",
    quote: "error ... The value for this member MUST be an Object as defined in section 5.1.",
};
const ERROR_CODE: Rule = Rule {
    document: JSONRPC,
    section: "5.1 Error object",
    quote: "code A Number that indicates the error type that occurred. This MUST be an integer.",
};
const ERROR_MESSAGE: Rule = Rule {
    document: JSONRPC,
    section: "5.1 Error object",
    quote: "When a rpc call encounters an error, the Response Object MUST contain the error \
            member with a value that is a Object with the following members: ... message A \
            String providing a short description of the error.",
};

/// Progress is reported only for a request still in progress: none once it was answered.
pub(super) const PROGRESS_ACTIVE: Rule = Rule {
    document: MCP_PROGRESS,
    section: "Behavior Requirements",
    quote: "Progress notifications MUST only reference tokens that: Were provided in an active \
            request Are associated with an in-progress operation",
};

/// A message from the server that breaks a rule every message is held to (JSON-RPC 2.0's,
/// and MCP's on progress tokens).
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// What is wrong, in one line: `answered request 1 with id "1" (a string)`.
    pub what: String,
    /// The sentence it breaks.
    pub rule: Rule,
    /// The message as the server wrote it.
    pub message: Value,
    /// The id key of the request we sent that it answers, when that can be told (the same
    /// id, or a near miss of another type).
    pub answers: Option<String>,
}

impl Violation {
    /// The report's text: what is wrong, then the sentence it breaks.
    pub fn report(&self) -> String {
        format!(
            "{}\n{} ({}, {}): \"{}\"",
            self.what,
            self.rule.document.title,
            self.rule.document.url,
            self.rule.section,
            self.rule.quote
        )
    }
}

/// The key under which an id is compared and routed: a number by its value (as a double, the
/// precision every JSON parser keeps), anything else by its JSON text (a string keeps its
/// quotes, so `"1"` and `1` differ).
pub fn id_key(id: &Value) -> String {
    match id {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.is_finite() => format!("{f}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// What one object from the server turned out to be, by the rules above.
#[derive(Debug, Default, PartialEq)]
pub struct Checked {
    /// The key of the request it answers exactly (same id, same type), if any.
    pub answers: Option<String>,
    /// The first rule it breaks, if any.
    pub violation: Option<Violation>,
}

/// Checks one JSON object the server wrote; `sent` holds the id keys of everything we wrote
/// that carried an id.
pub fn check(message: &Value, sent: &HashSet<String>) -> Checked {
    let Some(obj) = message.as_object() else {
        return Checked::default();
    };
    let version = version_problem(obj);
    if obj.contains_key("method") {
        return Checked {
            answers: None,
            violation: version.map(|what| violation(what, VERSION, message, None)),
        };
    }
    let (answers, id_problem) = attribute(obj, sent);
    let exact = match (&answers, &id_problem) {
        (Some(key), None) => Some(key.clone()),
        _ => None,
    };
    let shape = match (obj.contains_key("result"), obj.contains_key("error")) {
        (true, true) => Some(("a response with both result and error".to_string(), ONE_OF)),
        (false, false) => Some((
            "a response with neither result nor error".to_string(),
            ONE_OF,
        )),
        (false, true) => error_problem(obj.get("error")),
        (true, false) => None,
    };
    let first = shape.or(id_problem).or(version.map(|what| (what, VERSION)));
    Checked {
        answers: exact,
        violation: first.map(|(what, rule)| violation(what, rule, message, answers)),
    }
}

fn violation(what: String, rule: Rule, message: &Value, answers: Option<String>) -> Violation {
    Violation {
        what,
        rule,
        message: message.clone(),
        answers,
    }
}

/// The request a response answers (its key), and what is wrong with its id if anything.
fn attribute(
    obj: &Map<String, Value>,
    sent: &HashSet<String>,
) -> (Option<String>, Option<(String, Rule)>) {
    let Some(id) = obj.get("id") else {
        return (None, Some(("a response without an id".into(), ID_REQUIRED)));
    };
    let key = id_key(id);
    if sent.contains(&key) {
        return (Some(key), None);
    }
    match id {
        Value::Null if obj.contains_key("error") => (None, None),
        Value::Null => (
            None,
            Some((
                "a result with id null (null is the id of an error about a request whose id \
                 could not be read)"
                    .into(),
                NULL_ID,
            )),
        ),
        Value::String(_) | Value::Number(_) => match twin(id).filter(|t| sent.contains(t)) {
            Some(twin) => {
                let what = format!("answered request {twin} with id {id} ({})", kind(id));
                (Some(twin), Some((what, SAME_ID)))
            }
            None => (
                None,
                Some((
                    format!("a response with id {id}, the id of no request sent to the server"),
                    SAME_ID,
                )),
            ),
        },
        other => (
            None,
            Some((
                format!(
                    "a response with id {other} ({}): an id is a string, a number or null",
                    kind(other)
                ),
                NULL_ID,
            )),
        ),
    }
}

/// The key of the same id in the other JSON type: the number a string's digits spell, or a
/// number's digits as a string.
fn twin(id: &Value) -> Option<String> {
    match id {
        Value::String(s) => serde_json::from_str::<serde_json::Number>(s)
            .ok()
            .map(|n| id_key(&Value::Number(n))),
        Value::Number(n) => Some(id_key(&Value::String(n.to_string()))),
        _ => None,
    }
}

/// `a string`, `a number`... for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn version_problem(obj: &Map<String, Value>) -> Option<String> {
    match obj.get("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => None,
        None => Some("a message without the jsonrpc member".into()),
        Some(other) => Some(format!(
            "a message whose jsonrpc member is {other}, not \"2.0\""
        )),
    }
}

/// What is wrong with an error response's `error`, if anything. An integral code written
/// with a fraction (`-32600.0`) is the same JSON number and is accepted.
fn error_problem(error: Option<&Value>) -> Option<(String, Rule)> {
    let Some(Value::Object(e)) = error else {
        let shown = error.map(Value::to_string).unwrap_or_default();
        return Some((
            format!("an error response whose error is {shown}, not an object"),
            ERROR_OBJECT,
        ));
    };
    let integral = |v: &Value| {
        v.is_i64()
            || v.is_u64()
            || v.as_f64()
                .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
    };
    match e.get("code") {
        Some(code) if integral(code) => {}
        Some(code) => {
            return Some((
                format!("an error response whose error code is {code}, not an integer"),
                ERROR_CODE,
            ));
        }
        None => {
            return Some((
                "an error response whose error has no code".into(),
                ERROR_CODE,
            ));
        }
    }
    match e.get("message") {
        Some(Value::String(_)) => None,
        Some(other) => Some((
            format!("an error response whose error message is {other}, not a string"),
            ERROR_MESSAGE,
        )),
        None => Some((
            "an error response whose error has no message".into(),
            ERROR_MESSAGE,
        )),
    }
}

/// The id keys a line we wrote carries, so their answers are recognised: the ids of the
/// objects in it (or in the batch it is), or — for a line that is not JSON (cut short, a
/// trailing comma, nested past the parser's depth, bytes that are not UTF-8) — every
/// `"id": VALUE` written in it, since a lenient server may still read them.
pub fn ids_in_line(line: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(line);
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(obj)) => obj.get("id").map(id_key).into_iter().collect(),
        Ok(Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.get("id"))
            .map(id_key)
            .collect(),
        Ok(_) => Vec::new(),
        Err(_) => ids_written_in(&text),
    }
}

/// The progress tokens a line we wrote asks for, each with the id key of its request: so a
/// notification for a token can be told to come after that request's answer.
pub fn progress_tokens_in_line(line: &[u8]) -> Vec<(String, String)> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Vec::new();
    };
    let objects = match &value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    objects
        .into_iter()
        .filter_map(|obj| {
            let id = obj.get("id")?;
            let token = obj.pointer("/params/_meta/progressToken")?;
            Some((id_key(token), id_key(id)))
        })
        .collect()
}

/// Every `"id"` member's scalar value written in `text`, read without parsing the whole.
fn ids_written_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("\"id\"") {
        rest = &rest[at + 4..];
        let Some(after_colon) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        let value = after_colon.trim_start();
        let mut stream = serde_json::Deserializer::from_str(value).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next()
            && !v.is_object()
            && !v.is_array()
        {
            out.push(id_key(&v));
        }
    }
    out
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
