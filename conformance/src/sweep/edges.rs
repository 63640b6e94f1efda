//! The edges of a tool's `inputSchema`, called at every seed before the seeded draws of
//! [`super::values`]: servers break at boundaries, and a draw reaches a given boundary only at
//! some seeds. Each edge case changes one value of an otherwise plain argument set (the
//! required properties only, each at a small value inside its bounds; [`super::plain`]) to one
//! edge of its schema:
//!
//! - strings: empty (or `minLength` long) and `maxLength` long (up to [`MAX_STRING`]);
//! - integers and numbers: `minimum`, `maximum`, and the nearest valid value inside
//!   `exclusiveMinimum` / `exclusiveMaximum` (respecting an integral `multipleOf`); zero
//!   where there is no bound;
//! - every `enum` member, the `const`; `true` and `false`; `null`;
//! - arrays: empty (or `minItems` long) and `maxItems` long (up to [`MAX_ITEMS`]);
//! - each optional property given alone (beside the required ones), at each of its edges;
//! - every alternative of `anyOf` / `oneOf`, each type of a `type` list, and the properties
//!   of nested objects, recursively (to [`MAX_DEPTH`]; named `outer.inner`).
//!
//! The properties take turns (the first edge of each, then the second...), so a long `enum`
//! cannot crowd out the bounds of the next property, and at most [`MAX_EDGES`] cases are kept
//! per tool (`--edges`). Every case is checked against the schema itself, like the seeded
//! ones: an edge the schema rejects (a length a `pattern` forbids, say) is dropped.

use serde_json::{Map, Number, Value, json};

use super::plain::{distinct, length, neutral, whole};
use super::values::{self, ATTEMPTS, Rng, required, resolve, types_of};

/// The default cap on edge cases per tool.
pub const MAX_EDGES: usize = 24;
/// The longest string an edge case sends: a longer `maxLength` is not made a case.
pub const MAX_STRING: u64 = 65_536;
/// The most items an array edge case holds: a larger `maxItems` is not made a case.
pub const MAX_ITEMS: u64 = 1_000;
/// The deepest nested object whose properties get edge cases of their own.
pub const MAX_DEPTH: usize = 4;

/// One edge case: which edge (`text empty string`, `count maximum 1000`) and the arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub what: String,
    pub args: Value,
}

/// The edge cases of `schema` (a tool's `inputSchema`), at most `budget`, each valid against
/// it; none when no plain argument set valid against it can be made.
pub fn edges(schema: &Value, budget: usize) -> Vec<Edge> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    let Some(base) = base(schema, &validator) else {
        return Vec::new();
    };
    let mut lanes = object_lanes(schema, schema, &base, 0);
    let plain = if base.is_empty() {
        "no arguments"
    } else {
        "only the required properties, at plain values"
    };
    lanes.push(vec![(plain.to_string(), Value::Object(base))]);
    let mut out: Vec<Edge> = Vec::new();
    let longest = lanes.iter().map(Vec::len).max().unwrap_or(0);
    for turn in 0..longest {
        for lane in &lanes {
            let Some((what, args)) = lane.get(turn) else {
                continue;
            };
            if out.len() < budget
                && validator.is_valid(args)
                && !out.iter().any(|e| e.args == *args)
            {
                out.push(Edge {
                    what: what.clone(),
                    args: args.clone(),
                });
            }
        }
    }
    out
}

/// The plain argument set every edge case starts from: the required properties at their
/// plain values ([`neutral`]), or, when the schema rejects that, the first required-only set a fixed
/// seed draws (so it is the same at every seed).
fn base(schema: &Value, validator: &jsonschema::Validator) -> Option<Map<String, Value>> {
    if let Some(Value::Object(map)) = neutral(schema, schema, 0, true)
        && validator.is_valid(&Value::Object(map.clone()))
    {
        return Some(map);
    }
    let mut rng = Rng::new(0);
    (0..ATTEMPTS)
        .filter_map(|_| values::draw(schema, schema, &mut rng, 0, true, false))
        .find(|v| v.is_object() && validator.is_valid(v))
        .and_then(|v| v.as_object().cloned())
}

/// For each property of the object schema `schema`, its edge cases as whole objects: `base`
/// with that one property changed (or, when optional, added).
fn object_lanes(
    root: &Value,
    schema: &Value,
    base: &Map<String, Value>,
    depth: usize,
) -> Vec<Vec<(String, Value)>> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut lanes = Vec::new();
    for (name, sub) in props {
        let mut lane = Vec::new();
        let mut found = value_edges(root, sub, base.get(name), depth + 1);
        if found.is_empty()
            && !required(schema).contains(name)
            && let Some(v) = neutral(root, sub, depth + 1, false)
        {
            found.push(Edge {
                what: "given".into(),
                args: v,
            });
        }
        for edge in found {
            let mut args = base.clone();
            args.insert(name.clone(), edge.args);
            let sep = if edge.what.starts_with('.') { "" } else { " " };
            lane.push((format!("{name}{sep}{}", edge.what), Value::Object(args)));
        }
        lanes.push(lane);
    }
    lanes
}

/// The edge values of `schema` (a property's schema); `current` is the value the plain set
/// gives it, if any (a nested object's edges change one of its properties).
fn value_edges(root: &Value, schema: &Value, current: Option<&Value>, depth: usize) -> Vec<Edge> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => match resolve(root, reference) {
            Some(s) => s,
            None => return Vec::new(),
        },
        None => schema,
    };
    let edge = |what: String, args: Value| Edge { what, args };
    if let Some(c) = schema.get("const") {
        return vec![edge(format!("const {}", shown(c)), c.clone())];
    }
    if let Some(Value::Array(members)) = schema.get("enum") {
        return members
            .iter()
            .map(|m| edge(format!("enum member {}", shown(m)), m.clone()))
            .collect();
    }
    let mut out = Vec::new();
    for key in ["anyOf", "oneOf"] {
        for alternative in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.extend(value_edges(root, alternative, current, depth));
        }
    }
    if !out.is_empty() {
        return out;
    }
    let types = match types_of(schema) {
        t if t.is_empty() && schema.is_object() => vec![values::infer(schema)],
        t => t,
    };
    for ty in types {
        match ty.as_str() {
            "string" => out.extend(string_edges(schema)),
            "integer" => out.extend(number_edges(schema, true)),
            "number" => out.extend(number_edges(schema, false)),
            "boolean" => out.extend([
                edge("true".into(), json!(true)),
                edge("false".into(), json!(false)),
            ]),
            "null" => out.push(edge("null".into(), Value::Null)),
            "array" => out.extend(array_edges(root, schema, depth)),
            "object" => out.extend(object_edges(root, schema, current, depth)),
            _ => {}
        }
    }
    out
}

/// A value as a label shows it: JSON, cut to 40 characters.
fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 {
        return text;
    }
    let cut: String = text.chars().take(37).collect();
    format!("{cut}...")
}

fn string_edges(schema: &Value) -> Vec<Edge> {
    let min = length(schema, "minLength").unwrap_or(0);
    let text = |n: u64| Value::String("x".repeat(usize::try_from(n).unwrap_or(0)));
    let mut out = Vec::new();
    if min == 0 {
        out.push(Edge {
            what: "empty string".into(),
            args: text(0),
        });
    } else if min <= MAX_STRING {
        out.push(Edge {
            what: format!("minLength {min}"),
            args: text(min),
        });
    }
    if let Some(max) = length(schema, "maxLength")
        && max != min
        && max <= MAX_STRING
    {
        out.push(Edge {
            what: format!("maxLength {max}"),
            args: text(max),
        });
    }
    out
}

/// `minimum`, the nearest valid value above `exclusiveMinimum`, `maximum`, the nearest below
/// `exclusiveMaximum`, or zero when there is no bound.
fn number_edges(schema: &Value, integer: bool) -> Vec<Edge> {
    let step = schema
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|m| *m > 0.0 && m.fract() == 0.0);
    let mut out = Vec::new();
    for (key, up) in [
        ("minimum", true),
        ("exclusiveMinimum", true),
        ("maximum", false),
        ("exclusiveMaximum", false),
    ] {
        let Some(bound) = schema.get(key).filter(|b| b.is_number()) else {
            continue;
        };
        let Some(x) = bound.as_f64() else {
            continue;
        };
        let exclusive = key.starts_with("exclusive");
        let value = match (integer, step) {
            (_, Some(m)) => whole(inside_multiple(x, m, up, exclusive)),
            (true, None) => whole(inside_integer(x, up, exclusive)),
            (false, None) if !exclusive => Some(bound.clone()),
            (false, None) => {
                let next = if up { x.next_up() } else { x.next_down() };
                Number::from_f64(next).map(Value::Number)
            }
        };
        let Some(value) = value else {
            continue;
        };
        let what = if exclusive {
            format!("{key} {bound}: {value}")
        } else {
            format!("{key} {value}")
        };
        out.push(Edge { what, args: value });
    }
    if out.is_empty() {
        out.push(Edge {
            what: "zero".into(),
            args: json!(0),
        });
    }
    out
}

/// The integer nearest `x` on the inside (`up`: at or above it), past it when `exclusive`.
fn inside_integer(x: f64, up: bool, exclusive: bool) -> f64 {
    match (up, exclusive) {
        (true, false) => x.ceil(),
        (true, true) => x.floor() + 1.0,
        (false, false) => x.floor(),
        (false, true) => x.ceil() - 1.0,
    }
}

/// The multiple of `m` nearest `x` on the inside, past it when `exclusive`.
fn inside_multiple(x: f64, m: f64, up: bool, exclusive: bool) -> f64 {
    inside_integer(x / m, up, exclusive) * m
}

fn array_edges(root: &Value, schema: &Value, depth: usize) -> Vec<Edge> {
    let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
    let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
    let fill = |n: u64| -> Option<Value> {
        (0..n)
            .map(|i| {
                if unique {
                    distinct(root, &items, i, depth)
                } else {
                    neutral(root, &items, depth + 1, false)
                }
            })
            .collect::<Option<Vec<Value>>>()
            .map(Value::Array)
    };
    let min = length(schema, "minItems").unwrap_or(0);
    let mut out = Vec::new();
    let mut push = |what: String, n: u64| {
        if n <= MAX_ITEMS
            && let Some(args) = fill(n)
        {
            out.push(Edge { what, args });
        }
    };
    if min == 0 {
        push("empty array".into(), 0);
    } else {
        push(format!("minItems {min}"), min);
    }
    if let Some(max) = length(schema, "maxItems").filter(|max| *max != min) {
        push(format!("maxItems {max}"), max);
    }
    out
}

/// A nested object: with only its required properties, then each edge of each of its
/// properties (named `.inner ...`, after the outer property).
fn object_edges(root: &Value, schema: &Value, current: Option<&Value>, depth: usize) -> Vec<Edge> {
    let base = match current {
        Some(Value::Object(map)) => map.clone(),
        _ => match neutral(root, schema, depth, true) {
            Some(Value::Object(map)) => map,
            _ => return Vec::new(),
        },
    };
    let plain = if base.is_empty() {
        "empty object"
    } else {
        "with only its required properties"
    };
    let mut out = vec![Edge {
        what: plain.into(),
        args: Value::Object(base.clone()),
    }];
    let lanes = object_lanes(root, schema, &base, depth);
    let longest = lanes.iter().map(Vec::len).max().unwrap_or(0);
    for turn in 0..longest {
        for lane in &lanes {
            if let Some((what, args)) = lane.get(turn) {
                out.push(Edge {
                    what: format!(".{what}"),
                    args: args.clone(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "edges_tests.rs"]
mod tests;
