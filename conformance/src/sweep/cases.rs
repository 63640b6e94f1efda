//! The scenarios a sweep runs, made from a server's own `tools/list`: surface checks of the
//! list, then for each tool it may call, schema-valid calls (each answer a valid
//! `CallToolResult`, its `structuredContent` valid against the tool's `outputSchema`) and
//! invalid ones (refused). They are ordinary scenario documents, so the engine runs them,
//! every report format shows them with their levels, and a failing one written to a file
//! replays with `mcp-conformance run`.

use serde_json::{Value, json};

use super::edges::{Edge, edges};
use super::values::{Rng, invalid_variants, valid_sets};

const TOOLS_PAGE: &str = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools";
const SCHEMA_PAGE: &str = "https://modelcontextprotocol.io/specification/2025-11-25/schema";
const PAGINATION_PAGE: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination";

/// What a sweep asks of each tool.
#[derive(Debug, Clone)]
pub struct CaseOptions {
    /// Seeded schema-valid calls per tool.
    pub cases: usize,
    /// Most edge cases per tool ([`super::edges`]), called before the seeded ones.
    pub edges: usize,
    /// Call tools not annotated `readOnlyHint: true` too.
    pub include_mutating: bool,
}

/// The scenarios for `tools`, and a line for each tool left out (and why).
#[derive(Debug, Default)]
pub struct Cases {
    pub scenarios: Vec<Value>,
    pub left_out: Vec<String>,
}

fn source(section: &str, quote: &str) -> Value {
    json!({"document": TOOLS_PAGE, "section": section, "quote": quote})
}

/// A sentence of the 2025-11-25 schema (the specification's source of truth for types), with
/// the declaration it comments as the section.
fn schema_source(section: &str, quote: &str) -> Value {
    json!({"document": SCHEMA_PAGE, "section": section, "quote": quote})
}

/// A generated scenario document of the protocol suite, tagged `sweep`.
pub(super) fn scenario(name: &str, level: &str, sources: Vec<Value>, steps: Vec<Value>) -> Value {
    json!({
        "name": name,
        "suite": "protocol",
        "level": level,
        "tags": ["sweep"],
        "source": sources,
        "steps": steps,
    })
}

/// The opening of a generated scenario: the handshake of its generation.
pub(super) fn init() -> Value {
    json!({"initialize": {}})
}

/// Every scenario of a sweep over `tools` (the first generation's list).
pub fn cases(tools: &[Value], options: &CaseOptions, seed: u64) -> Cases {
    let mut out = Cases {
        scenarios: surface(tools),
        left_out: Vec::new(),
    };
    let mut rng = Rng::new(seed);
    let fuzz_tool = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .next()
        .unwrap_or("echo");
    let lines = super::fuzz::pick(
        super::fuzz::mutations(fuzz_tool),
        options.cases.saturating_mul(6),
        &mut rng,
    );
    out.scenarios.push(super::fuzz::scenario(&lines));
    let mut seen: Vec<&str> = Vec::new();
    // One call is cancelled in flight: the first tool's.
    let mut cancelled = false;
    for tool in tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        if seen.contains(&name) {
            out.left_out.push(format!(
                "{name}: listed more than once; the first listing is the one swept"
            ));
            continue;
        }
        seen.push(name);
        let read_only = tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true));
        if !read_only && !options.include_mutating {
            out.left_out.push(format!(
                "{name}: not annotated readOnlyHint: true (a tool without annotations may be \
                 destructive); --include-mutating calls it"
            ));
            continue;
        }
        let Some(schema) = tool.get("inputSchema") else {
            continue;
        };
        let edges = edges(schema, options.edges);
        let sets = valid_sets(schema, options.cases, &mut rng);
        let Some(base) = sets.first().or(edges.last().map(|e| &e.args)) else {
            out.left_out.push(format!(
                "{name}: no argument set valid against its inputSchema could be made"
            ));
            continue;
        };
        // An outputSchema that is no schema is the surface check's finding; the calls are
        // then judged without it.
        let output = tool
            .get("outputSchema")
            .filter(|s| jsonschema::meta::is_valid(s));
        out.scenarios.push(valid_calls(name, &edges, &sets, output));
        out.scenarios
            .extend(super::logging::scenarios(name, &edges, &sets));
        if !cancelled {
            out.scenarios.push(super::cancel::cancel_call(name, base));
            cancelled = true;
        }
        let invalid = invalid_variants(schema, base);
        if !invalid.is_empty() {
            out.scenarios.push(invalid_calls(name, &invalid));
        }
    }
    out
}

fn surface(tools: &[Value]) -> Vec<Value> {
    let mut names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    names.sort_unstable();
    let mut repeated: Vec<&str> = names
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    repeated.dedup();
    names.dedup();
    let optional = |pattern: Value| json!({"$one_of": [{"$absent": true}, pattern]});
    let boolean = optional(json!({"$type": "boolean"}));
    vec![
        scenario(
            "sweep/surface/input-schemas",
            "must",
            vec![
                source(
                    "Tool",
                    "inputSchema: JSON Schema defining expected parameters ... MUST be a valid \
                     JSON Schema object (not null)",
                ),
                schema_source(
                    "Tool",
                    "inputSchema: { $schema?: string; type: \"object\"; ... };",
                ),
            ],
            vec![
                init(),
                json!({"list_tools": {}, "label": "every inputSchema is a JSON Schema",
                       "expect": {"tools": {"$each": {"inputSchema": {"$is_schema": true}}}}}),
                json!({"list_tools": {}, "label": "every inputSchema is of type object",
                       "expect": {"tools": {"$each": {"inputSchema": {"type": "object"}}}}}),
            ],
        ),
        scenario(
            "sweep/surface/output-schemas",
            "must",
            vec![
                source(
                    "Tool",
                    "outputSchema: Optional JSON Schema defining expected output structure",
                ),
                schema_source(
                    "Tool: outputSchema",
                    "Currently restricted to type: \"object\" at the root level.",
                ),
            ],
            vec![
                init(),
                json!({"list_tools": {}, "label": "every outputSchema is a JSON Schema of type object",
                       "expect": {"tools": {"$each": {"outputSchema": optional(json!({"$is_schema": true}))}}}}),
                json!({"list_tools": {},
                       "expect": {"tools": {"$each": {"outputSchema": optional(json!({"type": "object"}))}}}}),
            ],
        ),
        scenario(
            "sweep/surface/annotations",
            "must",
            vec![
                source(
                    "Tool",
                    "annotations: Optional properties describing tool behavior",
                ),
                schema_source(
                    "ToolAnnotations",
                    "title?: string; ... readOnlyHint?: boolean; ... destructiveHint?: boolean; \
                     ... idempotentHint?: boolean; ... openWorldHint?: boolean;",
                ),
            ],
            vec![
                init(),
                json!({"list_tools": {}, "label": "annotation hints are booleans, title a string",
                       "expect": {"tools": {"$each": {"annotations": optional(json!({
                           "title": optional(json!({"$type": "string"})),
                           "readOnlyHint": boolean, "destructiveHint": boolean,
                           "idempotentHint": boolean, "openWorldHint": boolean}))}}}}),
            ],
        ),
        scenario(
            "sweep/surface/tool-names",
            "should",
            vec![
                source(
                    "Tool Names",
                    "Tool names SHOULD be between 1 and 128 characters in length (inclusive).",
                ),
                source(
                    "Tool Names",
                    "The following SHOULD be the only allowed characters: uppercase and \
                     lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), \
                     hyphen (-), and dot (.)",
                ),
            ],
            vec![
                init(),
                json!({"list_tools": {}, "label": "names of 1 to 128 allowed characters",
                       "expect": {"tools": {"$each": {"name": {"$regex": "^[A-Za-z0-9_.-]{1,128}$"}}}}}),
            ],
        ),
        // Its own scenario, so a duplicate is reported under the one sentence it breaks.
        scenario(
            "sweep/surface/tool-names-unique",
            "should",
            vec![source(
                "Tool Names",
                "Tool names SHOULD be unique within a server.",
            )],
            vec![
                init(),
                json!({"list_tools": {}, "label": unique_label(tools.len(), &names, &repeated),
                       "expect": {"tools": {"$len": names.len()}}}),
            ],
        ),
        json!({
            "name": "sweep/surface/invalid-cursor",
            "suite": "protocol",
            "level": "should",
            "tags": ["sweep"],
            "source": [{"document": PAGINATION_PAGE, "section": "Error Handling",
                        "quote": "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."}],
            "steps": [init(),
                      {"request": "tools/list", "params": {"cursor": "conformance-invalid-cursor"},
                       "expect": {"error": {"code": -32602}}}],
        }),
    ]
}

/// The label of the uniqueness check: how many names, and which are listed more than once.
fn unique_label(listed: usize, distinct: &[&str], repeated: &[&str]) -> String {
    if repeated.is_empty() {
        return format!("{listed} tools, each name listed once");
    }
    let shown: Vec<String> = repeated.iter().map(|n| format!("{n:?}")).collect();
    format!(
        "{listed} tools, {} distinct names (listed more than once: {})",
        distinct.len(),
        shown.join(", ")
    )
}

/// The minimal shape of a `CallToolResult`: `content` of known block types, each with its
/// required fields; `isError` a boolean; `structuredContent` an object.
pub fn call_tool_result_schema() -> Value {
    json!({
        "type": "object",
        "required": ["content"],
        "properties": {
            "content": {"type": "array", "items": content_block_schema()},
            "isError": {"type": "boolean"},
            "structuredContent": {"type": "object"}
        }
    })
}

/// What a schema-valid call must come back with.
fn answer_pattern(output_schema: Option<&Value>) -> Value {
    let result = json!({"$schema": call_tool_result_schema()});
    // The call asks for progress: what arrives for its token is well formed and increases
    // (none at all conforms: a receiver MAY send progress).
    let progress = json!({
        "$increasing": "progress",
        "$each": {
            "progress": {"$type": "number"},
            "total": {"$one_of": [{"$absent": true}, {"$type": "number"}]},
            "message": {"$one_of": [{"$absent": true}, {"$type": "string"}]}
        }
    });
    let protocol_error = json!({"error": {"code": {"$type": "integer"}, "message": {"$type": "string"}},
                                "progress": progress});
    match output_schema {
        None => json!({"$one_of": [protocol_error, {"result": result, "progress": progress}]}),
        Some(schema) => json!({"$one_of": [
            protocol_error,
            {"result": result, "isError": true, "progress": progress},
            {"result": result, "isError": false, "structured": {"$schema": schema}, "progress": progress}
        ]}),
    }
}

/// A `ContentBlock` (2025-11-25 schema): text, image, audio, a resource link or an embedded
/// resource, each with the fields its type requires. Tool results and prompt messages carry
/// the same blocks.
pub fn content_block_schema() -> Value {
    let string = json!({"type": "string"});
    let block = |ty: &str, required: Value| {
        json!({"if": {"properties": {"type": {"const": ty}}},
               "then": {"required": required}})
    };
    json!({
        "type": "object",
        "required": ["type"],
        "properties": {
            "type": {"enum": ["text", "image", "audio", "resource_link", "resource"]},
            "text": string, "data": string, "mimeType": string, "uri": string,
            "name": string,
            "resource": {"type": "object", "required": ["uri"]}
        },
        "allOf": [
            block("text", json!(["text"])),
            block("image", json!(["data", "mimeType"])),
            block("audio", json!(["data", "mimeType"])),
            block("resource_link", json!(["uri", "name"])),
            block("resource", json!(["resource"]))
        ]
    })
}

/// How many times a call answered `input_required` is retried with the client's answers (a
/// declined elicitation, a sampled text, no roots) before its last answer is judged.
const ROUNDS: u32 = 4;

/// The edge cases first, whatever the seed, then the seeded sets; each step's label names
/// its case (`call NAME (edge: text empty string)`, `call NAME (valid case 2)`). Each call
/// asks for progress: a tool that works long and says so is waited for (its deadline starts
/// again on progress), one that is silent past the deadline is a hang.
fn valid_calls(name: &str, edges: &[Edge], sets: &[Value], output_schema: Option<&Value>) -> Value {
    let mut steps = vec![init()];
    let expect = answer_pattern(output_schema);
    for edge in edges {
        steps.push(
            json!({"call": name, "args": edge.args, "progress": true, "rounds": ROUNDS,
                          "label": format!("call {name} (edge: {})", edge.what),
                          "expect": expect}),
        );
    }
    for (i, args) in sets.iter().enumerate() {
        steps.push(
            json!({"call": name, "args": args, "progress": true, "rounds": ROUNDS,
                          "label": format!("call {name} (valid case {})", i + 1),
                          "expect": expect}),
        );
    }
    steps.push(json!({"list_tools": {}, "label": "the server still answers"}));
    let mut sources = vec![
        schema_source(
            "CallToolResult: content: ContentBlock[]; structuredContent?: { [key: string]: \
             unknown }; isError?: boolean",
            "The server's response to a tool call.",
        ),
        json!({"document": "https://www.jsonrpc.org/specification", "section": "5 Response object",
               "quote": "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."}),
        json!({"document": "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress",
               "section": "Behavior Requirements",
               "quote": "The progress value MUST increase with each notification, even if the total is unknown."}),
    ];
    if output_schema.is_some() {
        sources.push(source(
            "Output Schema",
            "Servers MUST provide structured results that conform to this schema.",
        ));
    }
    scenario(&format!("sweep/tool/{name}/valid"), "must", sources, steps)
}

/// How an invalid call may be refused: a tool result with `isError: true` (the 2025-11-25
/// page lists input validation errors among tool execution errors) or a JSON-RPC error (its
/// "Malformed requests" are protocol errors, "Standard JSON-RPC errors" with no code named).
/// Any code is accepted but the two that say something false about the request: -32601
/// (the method exists) and -32700 (the JSON parsed).
fn refused() -> Value {
    json!({"$one_of": [
        {"isError": true},
        {"error": {"code": {"$type": "integer", "$not": {"$one_of": [-32601, -32700]}}}}
    ]})
}

fn invalid_calls(name: &str, invalid: &[super::values::Invalid]) -> Value {
    let mut steps = vec![init()];
    for v in invalid {
        steps.push(
            json!({"call": name, "args": v.args, "label": format!("call {name} with {}", v.what),
                          "expect": refused()}),
        );
    }
    steps.push(json!({"list_tools": {}, "label": "the server still answers"}));
    scenario(
        &format!("sweep/tool/{name}/invalid"),
        "should",
        vec![
            source(
                "Security Considerations",
                "Servers MUST: Validate all tool inputs",
            ),
            source(
                "Error Handling",
                "Tool Execution Errors: Reported in tool results with isError: true: ... Input \
                 validation errors",
            ),
        ],
        steps,
    )
}

#[cfg(test)]
#[path = "cases_tests.rs"]
mod tests;
