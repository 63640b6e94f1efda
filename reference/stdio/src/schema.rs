//! Tool schemas in the spelling every MCP client reads without complaint.
//!
//! schemars (through rmcp's `Parameters<T>` and `Json<T>`) writes two things that real
//! clients warn about although they are legal JSON Schema:
//!
//! * `format` values outside the JSON Schema 2020-12 set: `uint64`, `uint`, `uint32`, `int64`,
//!   `double`, ... for Rust's numeric types. Validators built on ajv (the MCP Inspector CLI,
//!   TypeScript SDK clients compiling `outputSchema`) print `unknown format "uint64" ignored`
//!   for each. The format is dropped; the range it stood for stays as `minimum` (schemars
//!   writes `minimum: 0` for unsigned types) and, where it fits a double exactly, `maximum`.
//! * Nullable types as a `type` array, `["string", "null"]`. Inspector 2's portability lint
//!   warns on every `type` array (clients that map schemas onto a single-`type` dialect, such
//!   as Gemini's function declarations, reject or drop them) and suggests one `anyOf` branch
//!   per type. That rewrite is exact: a branch gets the keywords that apply to its type, the
//!   node keeps its annotations (`description`, `default`, ...), so the same instances are
//!   valid. Absent-versus-`null` stays as it was (Contract V1 fixes names and required lists,
//!   not this spelling).
//!
//! [`portable_tool`] applies both to a tool's input and output schema; each reference server
//! lists its tools through it, and its tests check the result with [`portability_findings`].

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Map, Value};

/// The `format` values JSON Schema 2020-12 defines (Validation vocabulary, section 7.3).
pub const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one subschema.
const SCHEMA_KEYWORDS: [&str; 12] = [
    "additionalItems",
    "additionalProperties",
    "contains",
    "contentSchema",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is an array of subschemas.
const SCHEMA_ARRAY_KEYWORDS: [&str; 5] = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const SCHEMA_MAP_KEYWORDS: [&str; 6] = [
    "$defs",
    "definitions",
    "dependencies",
    "dependentSchemas",
    "patternProperties",
    "properties",
];

/// Keywords under which `true`/`false` is an ordinary value, not a boolean schema standing in
/// for an object.
const BOOLEAN_VALUED: [&str; 4] = [
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords that constrain instances (a schema with none of them accepts anything).
const CONSTRAINING: [&str; 9] = [
    "type",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "format",
];

/// Keywords that constrain every type: each `anyOf` branch keeps them.
const ANY_TYPE: [&str; 10] = [
    "enum", "const", "not", "allOf", "anyOf", "oneOf", "if", "then", "else", "$ref",
];
const NUMBER: [&str; 6] = [
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "format",
];
const STRING: [&str; 7] = [
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];
const ARRAY: [&str; 10] = [
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "maxItems",
    "minItems",
    "uniqueItems",
    "unevaluatedItems",
];
const OBJECT: [&str; 11] = [
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "required",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "maxProperties",
    "minProperties",
];

/// `tool` with [`make_portable`] applied to its input and output schemas.
pub fn portable_tool(mut tool: Tool) -> Tool {
    let mut input = (*tool.input_schema).clone();
    make_portable(&mut input);
    tool.input_schema = Arc::new(input);
    if let Some(output) = tool.output_schema.take() {
        let mut output = (*output).clone();
        make_portable(&mut output);
        tool.output_schema = Some(Arc::new(output));
    }
    tool
}

/// Rewrites a schema in place, at every depth: non-standard `format`s are dropped (their
/// range kept as bounds) and `type` arrays become `anyOf` branches. Values of `enum`, `const`,
/// `default` and `examples` are data, never rewritten.
pub fn make_portable(schema: &mut Map<String, Value>) {
    for_each_subschema(schema, |sub| {
        if let Value::Object(sub) = sub {
            make_portable(sub);
        }
    });
    replace_format(schema);
    split_type_union(schema);
}

/// Where `schema` departs from the portable spelling, as `JSON-pointer: problem` lines, by the
/// rules the two MCP Inspector CLIs apply: a `format` outside [`STANDARD_FORMATS`] (ajv), and
/// Inspector 2's portability findings: a `type` array, a boolean subschema where an object is
/// expected, a subschema that constrains nothing, a `$ref` outside the document.
pub fn portability_findings(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    findings(schema, "", None, &mut found);
    found
}

fn findings(node: &Value, at: &str, keyword: Option<&str>, found: &mut Vec<String>) {
    let Value::Object(map) = node else {
        if node.is_boolean() && keyword.is_some_and(|k| !BOOLEAN_VALUED.contains(&k)) {
            found.push(format!("{at}: boolean schema `{node}`"));
        }
        return;
    };
    match map.get("format") {
        Some(Value::String(f)) if !STANDARD_FORMATS.contains(&f.as_str()) => {
            found.push(format!("{at}: non-standard format `{f}`"));
        }
        _ => {}
    }
    if let Some(Value::Array(types)) = map.get("type") {
        found.push(format!(
            "{at}: `type` array {}",
            Value::Array(types.clone())
        ));
    }
    if let Some(Value::String(r)) = map.get("$ref")
        && !r.starts_with('#')
    {
        found.push(format!("{at}: `$ref` outside the document: {r}"));
    }
    let constrains = map.keys().any(|k| {
        let k = k.as_str();
        CONSTRAINING.contains(&k)
            || ANY_TYPE.contains(&k) && !matches!(k, "if" | "then" | "else")
            || NUMBER.contains(&k)
            || STRING.contains(&k)
            || ARRAY.contains(&k)
            || OBJECT.contains(&k)
            || BOOLEAN_VALUED.contains(&k)
    }) || map.contains_key("if")
        && (map.contains_key("then") || map.contains_key("else"));
    if !constrains && keyword != Some("not") {
        found.push(format!("{at}: constrains nothing (accepts any value)"));
    }
    for (key, value) in map {
        let key_at = format!("{at}/{}", pointer_token(key));
        let k = key.as_str();
        if SCHEMA_MAP_KEYWORDS.contains(&k) {
            if let Value::Object(children) = value {
                for (name, child) in children {
                    findings(
                        child,
                        &format!("{key_at}/{}", pointer_token(name)),
                        Some(k),
                        found,
                    );
                }
            }
        } else if SCHEMA_ARRAY_KEYWORDS.contains(&k) && value.is_array() {
            if let Value::Array(children) = value {
                for (i, child) in children.iter().enumerate() {
                    findings(child, &format!("{key_at}/{i}"), Some(k), found);
                }
            }
        } else if SCHEMA_KEYWORDS.contains(&k) {
            findings(value, &key_at, Some(k), found);
        }
    }
}

/// `name` escaped as one JSON Pointer reference token (RFC 6901).
fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Calls `f` on every direct subschema of `schema`.
fn for_each_subschema(schema: &mut Map<String, Value>, mut f: impl FnMut(&mut Value)) {
    for (key, value) in schema.iter_mut() {
        let key = key.as_str();
        if SCHEMA_MAP_KEYWORDS.contains(&key) {
            if let Value::Object(children) = value {
                children.values_mut().for_each(&mut f);
            }
        } else if SCHEMA_ARRAY_KEYWORDS.contains(&key) && value.is_array() {
            if let Value::Array(children) = value {
                children.iter_mut().for_each(&mut f);
            }
        } else if SCHEMA_KEYWORDS.contains(&key) {
            f(value);
        }
    }
}

/// Drops a non-standard `format`, keeping the range a schemars integer format stands for
/// as `minimum`/`maximum` where the schema does not state one already. 64-bit bounds are
/// not added: past 2^53 a JSON number is not exact in most clients, and `minimum: 0` (which
/// schemars writes for every unsigned type) is the part that matters.
fn replace_format(schema: &mut Map<String, Value>) {
    let Some(Value::String(format)) = schema.get("format") else {
        return;
    };
    if STANDARD_FORMATS.contains(&format.as_str()) {
        return;
    }
    let bounds: Option<(i64, i64)> = match format.as_str() {
        "int8" => Some((i8::MIN.into(), i8::MAX.into())),
        "int16" => Some((i16::MIN.into(), i16::MAX.into())),
        "int32" => Some((i32::MIN.into(), i32::MAX.into())),
        "uint8" => Some((0, u8::MAX.into())),
        "uint16" => Some((0, u16::MAX.into())),
        "uint32" => Some((0, u32::MAX.into())),
        _ => None,
    };
    let unsigned = format.starts_with("uint");
    schema.remove("format");
    if let Some((min, max)) = bounds {
        schema.entry("minimum").or_insert(min.into());
        schema.entry("maximum").or_insert(max.into());
    } else if unsigned {
        schema.entry("minimum").or_insert(0.into());
    }
}

/// `{"type": [A, B], ...}` becomes `{"anyOf": [{"type": A, ...}, {"type": B, ...}], ...}`:
/// each branch takes the assertions that apply to its type (and those that apply to every
/// type), the node keeps everything else (annotations such as `description` and `default`).
fn split_type_union(schema: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = schema.get("type") else {
        return;
    };
    let Some(types) = types
        .iter()
        .map(|t| t.as_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()
    else {
        return;
    };
    if types.len() < 2 {
        // `["string"]` is `"string"`.
        if let Some(only) = types.into_iter().next() {
            schema.insert("type".to_owned(), Value::String(only));
        }
        return;
    }
    schema.remove("type");
    let moved: Vec<String> = schema
        .keys()
        .filter(|k| {
            let k = k.as_str();
            ANY_TYPE.contains(&k)
                || NUMBER.contains(&k)
                || STRING.contains(&k)
                || ARRAY.contains(&k)
                || OBJECT.contains(&k)
        })
        .cloned()
        .collect();
    let assertions: Map<String, Value> = moved
        .iter()
        .filter_map(|k| schema.remove(k).map(|v| (k.clone(), v)))
        .collect();
    let branches = types
        .into_iter()
        .map(|t| {
            let applies: &[&str] = match t.as_str() {
                "integer" | "number" => &NUMBER,
                "string" => &STRING,
                "array" => &ARRAY,
                "object" => &OBJECT,
                _ => &[],
            };
            let mut branch = Map::new();
            branch.insert("type".to_owned(), Value::String(t));
            for (k, v) in &assertions {
                if ANY_TYPE.contains(&k.as_str()) || applies.contains(&k.as_str()) {
                    branch.insert(k.clone(), v.clone());
                }
            }
            Value::Object(branch)
        })
        .collect();
    schema.insert("anyOf".to_owned(), Value::Array(branches));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn portable(v: Value) -> Value {
        let Value::Object(mut map) = v else {
            panic!("object expected")
        };
        make_portable(&mut map);
        Value::Object(map)
    }

    #[test]
    fn non_standard_formats_are_dropped_and_their_ranges_kept() {
        let schema = json!({
            "type": "object",
            "properties": {
                "size": {"type": "integer", "format": "uint64", "minimum": 0},
                "count": {"type": "integer", "format": "uint"},
                "small": {"type": "integer", "format": "uint32", "minimum": 0},
                "delta": {"type": "integer", "format": "int32"},
                "ratio": {"type": "number", "format": "double"},
                "when": {"type": "string", "format": "date-time"},
                "format": {"type": "string", "default": {"format": "uint64"}},
            },
            "$defs": {"E": {"type": "integer", "format": "int64", "enum": [1]}},
        });
        assert_eq!(portability_findings(&schema).len(), 6);
        let fixed = portable(schema);
        assert_eq!(
            fixed,
            json!({
                "type": "object",
                "properties": {
                    "size": {"type": "integer", "minimum": 0},
                    "count": {"type": "integer", "minimum": 0},
                    "small": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                    "delta": {"type": "integer", "minimum": -2147483648i32, "maximum": 2147483647},
                    "ratio": {"type": "number"},
                    "when": {"type": "string", "format": "date-time"},
                    "format": {"type": "string", "default": {"format": "uint64"}},
                },
                "$defs": {"E": {"type": "integer", "enum": [1]}},
            })
        );
        assert_eq!(portability_findings(&fixed), Vec::<String>::new());
    }

    #[test]
    fn type_arrays_become_one_branch_per_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "hash": {"description": "d", "type": ["string", "null"], "default": null},
                "limit": {"type": ["integer", "null"], "format": "uint", "minimum": 0},
                "args": {"type": ["array", "null"], "items": {"type": "string"}},
                "either": {"type": ["string", "integer"], "enum": ["a", 1], "minLength": 1},
                "one": {"type": ["boolean"]},
            },
            "additionalProperties": false,
        });
        let fixed = portable(schema);
        assert_eq!(
            fixed["properties"],
            json!({
                "hash": {"description": "d", "default": null,
                         "anyOf": [{"type": "string"}, {"type": "null"}]},
                "limit": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
                "args": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
                "either": {"anyOf": [
                    {"type": "string", "enum": ["a", 1], "minLength": 1},
                    {"type": "integer", "enum": ["a", 1]},
                ]},
                "one": {"type": "boolean"},
            })
        );
        assert_eq!(portability_findings(&fixed), Vec::<String>::new());
    }

    #[test]
    fn small_integer_formats_keep_their_exact_range() {
        let fixed = portable(json!({"properties": {
            "a": {"type": "integer", "format": "int8"},
            "b": {"type": "integer", "format": "int16"},
            "c": {"type": "integer", "format": "uint8", "minimum": 0},
            "d": {"type": "integer", "format": "uint16", "minimum": 0},
        }}));
        assert_eq!(
            fixed["properties"],
            json!({
                "a": {"type": "integer", "minimum": -128, "maximum": 127},
                "b": {"type": "integer", "minimum": -32768, "maximum": 32767},
                "c": {"type": "integer", "minimum": 0, "maximum": 255},
                "d": {"type": "integer", "minimum": 0, "maximum": 65535},
            })
        );
    }

    /// An object branch keeps the object keywords; `items` given as one schema (not an
    /// array of them) is rewritten and judged like any subschema.
    #[test]
    fn object_branches_and_single_items_schemas_are_rewritten() {
        let fixed = portable(json!({
            "type": ["object", "null"],
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": false,
        }));
        assert_eq!(
            fixed,
            json!({"anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                 "additionalProperties": false},
                {"type": "null"},
            ]})
        );
        let list = json!({"type": "array", "items": {"type": ["string", "null"]}});
        assert_eq!(
            portability_findings(&list),
            [r#"/items: `type` array ["string","null"]"#]
        );
        assert_eq!(
            portable(list)["items"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
    }

    /// A schema constrains something when any one keyword of any kind does; `then` and `else`
    /// only beside an `if`.
    #[test]
    fn one_constraining_keyword_of_any_kind_is_enough() {
        for schema in [
            json!({"enum": [1]}),
            json!({"minimum": 0}),
            json!({"contentEncoding": "base64"}),
            json!({"minItems": 1}),
            json!({"required": ["a"]}),
            json!({"if": {"type": "string"}, "then": {"minLength": 1}}),
            json!({"if": {"type": "string"}, "else": {"type": "integer"}}),
        ] {
            assert_eq!(
                portability_findings(&schema),
                Vec::<String>::new(),
                "{schema}"
            );
        }
        for schema in [
            json!({"then": {"minLength": 1}}),
            json!({"if": {"type": "string"}}),
        ] {
            assert_eq!(
                portability_findings(&schema),
                [": constrains nothing (accepts any value)"],
                "{schema}"
            );
        }
    }

    #[test]
    fn a_tool_is_made_portable_in_both_schemas_and_otherwise_unchanged() {
        let schema = |v: Value| match v {
            Value::Object(map) => map,
            _ => panic!("object expected"),
        };
        let mut tool = Tool::new(
            "files.list",
            "Lists files.",
            schema(
                json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint64", "minimum": 0}}}),
            ),
        );
        tool.output_schema = Some(Arc::new(schema(
            json!({"type": "object", "properties": {"next": {"type": ["string", "null"]}}}),
        )));
        let tool = portable_tool(tool);
        assert_eq!(tool.name, "files.list");
        assert_eq!(tool.description.as_deref(), Some("Lists files."));
        assert_eq!(
            Value::Object((*tool.input_schema).clone())["properties"]["n"],
            json!({"type": "integer", "minimum": 0})
        );
        let output = tool.output_schema.map(|s| Value::Object((*s).clone()));
        assert_eq!(
            output.expect("an output schema")["properties"]["next"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
    }

    #[test]
    fn findings_name_the_place() {
        let schema = json!({"type": "object",
                            "properties": {"a/b": {"type": ["string", "null"]}, "c": true,
                                           "d": {"description": "anything"},
                                           "e": {"$ref": "https://example.com/s.json"},
                                           "f": {"not": {}}},
                            "additionalProperties": false});
        assert_eq!(
            portability_findings(&schema),
            [
                r#"/properties/a~1b: `type` array ["string","null"]"#,
                "/properties/c: boolean schema `true`",
                "/properties/d: constrains nothing (accepts any value)",
                "/properties/e: `$ref` outside the document: https://example.com/s.json",
            ]
        );
    }
}
