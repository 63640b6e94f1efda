//! The scenarios a check runs for each resource template a server lists (when it declares
//! the resources capability): the template expanded with a value for each of its variables
//! (RFC 6570, every operator) and read, answered with contents of the schema's shape or
//! refused with a JSON-RPC error (the value is the suite's own, so no resource need exist
//! for it).

use serde_json::{Value, json};

const RESOURCES_PAGE: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/resources";
const SCHEMA_TS: &str = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2025-11-25/schema.ts";

/// The most templates a check reads through (the first listed).
pub const MAX_TEMPLATES: usize = 8;

/// The value every variable gets: unreserved characters only, so no operator encodes it.
const VALUE: &str = "conformance";

/// Expands an RFC 6570 URI template with [`VALUE`] for every variable (level 4 operators:
/// none, `+`, `#`, `.`, `/`, `;`, `?`, `&`; prefix and explode modifiers dropped, which
/// change nothing for a short unreserved string). `None` for an unclosed expression.
pub fn expand(template: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}')? + open;
        let expression = &rest[open + 1..close];
        let (operator, list) = match expression.chars().next() {
            Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &expression[1..]),
            _ => (None, expression),
        };
        let names: Vec<&str> = list
            .split(',')
            .map(|v| v.split(':').next().unwrap_or(v).trim_end_matches('*'))
            .filter(|v| !v.is_empty())
            .collect();
        let (first, separator, named) = match operator {
            None | Some('+') => ("", ",", false),
            Some('#') => ("#", ",", false),
            Some('.') => (".", ".", false),
            Some('/') => ("/", "/", false),
            Some(';') => (";", ";", true),
            Some('?') => ("?", "&", true),
            Some(_) => ("&", "&", true),
        };
        let parts: Vec<String> = names
            .iter()
            .map(|name| {
                if named {
                    format!("{name}={VALUE}")
                } else {
                    VALUE.to_string()
                }
            })
            .collect();
        if !parts.is_empty() {
            out.push_str(first);
            out.push_str(&parts.join(separator));
        }
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return None;
    }
    out.push_str(rest);
    Some(out)
}

/// One scenario per listed template (the first [`MAX_TEMPLATES`] whose `uriTemplate`
/// expands), named by the template's `name` (each once).
pub fn template_cases(templates: &[Value]) -> Vec<Value> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for template in templates {
        let (Some(name), Some(uri)) = (
            template.get("name").and_then(Value::as_str),
            template
                .get("uriTemplate")
                .and_then(Value::as_str)
                .and_then(expand),
        ) else {
            continue;
        };
        if seen.contains(&name) || seen.len() == MAX_TEMPLATES {
            continue;
        }
        seen.push(name);
        out.push(template_case(name, &uri));
        if let Some(raw) = template.get("uriTemplate").and_then(Value::as_str)
            && let Some(case) = completion_case(name, raw)
        {
            out.push(case);
        }
    }
    out
}

/// The variables of a URI template, in order, each once (modifiers dropped).
pub fn variables(template: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut rest = template;
    while let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) {
        if close < open {
            break;
        }
        let list = rest[open + 1..close].trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for name in list
            .split(',')
            .map(|v| v.split(':').next().unwrap_or(v).trim_end_matches('*'))
        {
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
        rest = &rest[close + 1..];
    }
    out
}

/// For a template with variables, on a server declaring the completions capability:
/// `completion/complete` for each variable (the first four) with an empty typed value,
/// answered with at most 100 string values or a JSON-RPC error.
fn completion_case(name: &str, template: &str) -> Option<Value> {
    let names: Vec<&str> = variables(template).into_iter().take(4).collect();
    if names.is_empty() {
        return None;
    }
    let requests = names
        .iter()
        .map(|variable| {
            (
                json!({"type": "ref/resource", "uri": template}),
                (*variable).to_string(),
                format!("complete the variable {variable} of {template}"),
            )
        })
        .collect();
    Some(super::prompts::completion_scenario(
        &format!("sweep/resource-template/{name}/complete"),
        &["sweep", "resources", "completions", "capability"],
        requests,
    ))
}

fn template_case(name: &str, uri: &str) -> Value {
    let contents = json!({"$each": {"$one_of": [
        {"uri": {"$type": "string"}, "text": {"$type": "string"}},
        {"uri": {"$type": "string"}, "blob": {"$type": "string"}}
    ]}});
    let mut steps = super::prompts::opening_if_declared("resources");
    steps.extend([
        json!({"request": "resources/read", "params": {"uri": uri},
        "label": format!("read {uri} through the template {name}"),
        "expect": {"$one_of": [
            {"result": {"contents": contents}, "error": {"$absent": true}},
            {"error": {"code": {"$type": "integer"}, "message": {"$type": "string"}},
             "result": {"$absent": true}}
        ]}}),
        json!({"request": "resources/templates/list", "params": {},
               "label": "the server still answers",
               "expect": {"result": {"resourceTemplates": {"$type": "array"}}}}),
    ]);
    json!({
        "name": format!("sweep/resource-template/{name}/read"),
        "suite": "protocol",
        "level": "must",
        "tags": ["sweep", "resources", "capability"],
        "source": [
            {"document": RESOURCES_PAGE, "section": "Resource Templates",
             "quote": "Resource templates allow servers to expose parameterized resources using URI templates."},
            {"document": SCHEMA_TS, "section": "ReadResourceResult, TextResourceContents, BlobResourceContents",
             "quote": "contents: (TextResourceContents | BlobResourceContents)[]; ... uri: string; ... text: string; ... blob: string;"},
            {"document": "https://www.jsonrpc.org/specification", "section": "5 Response object",
             "quote": "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."},
        ],
        "steps": steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variables_of_a_template_each_once() {
        assert_eq!(
            variables("x://{a}/{+b}{?c,a}{/d*}{e:3}"),
            ["a", "b", "c", "d", "e"]
        );
        assert!(variables("x://plain").is_empty());
    }

    #[test]
    fn every_operator_expands_with_the_one_value() {
        for (template, uri) in [
            (
                "test://template/{id}/data",
                "test://template/conformance/data",
            ),
            ("file:///{+path}", "file:///conformance"),
            ("x://a{/seg,more}", "x://a/conformance/conformance"),
            ("x://a{?q,page}", "x://a?q=conformance&page=conformance"),
            ("x://a?x=1{&y}", "x://a?x=1&y=conformance"),
            ("x://a{#frag}", "x://a#conformance"),
            ("x://a{.ext}", "x://a.conformance"),
            ("x://a{;p}", "x://a;p=conformance"),
            ("x://{name:3}/{list*}", "x://conformance/conformance"),
            ("x://plain", "x://plain"),
        ] {
            assert_eq!(expand(template).as_deref(), Some(uri), "{template}");
        }
        assert_eq!(expand("x://{open"), None);
        assert_eq!(expand("x://close}"), None);
    }

    #[test]
    fn each_listed_template_is_read_once() {
        let templates = vec![
            json!({"name": "data", "uriTemplate": "test://template/{id}/data"}),
            json!({"name": "data", "uriTemplate": "test://other/{id}"}),
            json!({"name": "broken", "uriTemplate": "test://{id"}),
            json!({"uriTemplate": "test://nameless/{id}"}),
        ];
        let made: Vec<Value> = template_cases(&templates)
            .into_iter()
            .filter(|s| s["name"].as_str().is_some_and(|n| n.ends_with("/read")))
            .collect();
        assert_eq!(made.len(), 1);
        assert_eq!(made[0]["name"], "sweep/resource-template/data/read");
        assert_eq!(
            made[0]["steps"][2]["params"]["uri"],
            "test://template/conformance/data"
        );
    }
}
