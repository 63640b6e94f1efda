//! Plain values for a schema, the ones an edge case ([`super::edges`]) changes one of: small,
//! inside the bounds, and off the edges where that can be, so an edge case differs from the
//! plain argument set in its one edge, and a `duration` or `count` left plain costs little.

use serde_json::{Map, Number, Value, json};

use super::edges::{MAX_ITEMS, MAX_STRING};
use super::values::{self, Rng, required, resolve, types_of};

/// A non-negative integer keyword (`minLength`, `maxItems`...).
pub(super) fn length(schema: &Value, key: &str) -> Option<u64> {
    schema.get(key).and_then(Value::as_u64)
}

/// `x` as a JSON integer, when it is one a JSON number holds exactly.
pub(super) fn whole(x: f64) -> Option<Value> {
    (x.is_finite() && x.abs() <= 9_007_199_254_740_992.0).then(|| json!(x as i64))
}

/// A plain value for `schema`: small, inside its bounds, not itself an edge where one can be
/// avoided (so an edge case differs from the plain set in its one edge). `object` forces an
/// object (the arguments themselves).
pub(super) fn neutral(root: &Value, schema: &Value, depth: usize, object: bool) -> Option<Value> {
    if depth > values::MAX_DEPTH {
        return None;
    }
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => resolve(root, reference)?,
        None => schema,
    };
    match schema {
        Value::Bool(true) => return Some(if object { json!({}) } else { json!("x") }),
        Value::Bool(false) => return None,
        _ => {}
    }
    if let Some(c) = schema.get("const") {
        return Some(c.clone());
    }
    if let Some(Value::Array(members)) = schema.get("enum") {
        return members.first().cloned();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return neutral(root, first, depth + 1, object);
        }
    }
    let ty = match types_of(schema).first() {
        _ if object => "object".to_string(),
        Some(t) => t.clone(),
        None => values::infer(schema),
    };
    Some(match ty.as_str() {
        "object" => {
            let mut map = Map::new();
            let props = schema.get("properties").and_then(Value::as_object);
            for name in required(schema) {
                let sub = props
                    .and_then(|p| p.get(&name))
                    .unwrap_or(&Value::Bool(true));
                map.insert(name, neutral(root, sub, depth + 1, false)?);
            }
            Value::Object(map)
        }
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
            let n = length(schema, "minItems").unwrap_or(0).min(MAX_ITEMS);
            let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
            let item = |i| match unique {
                true => distinct(root, &items, i, depth),
                false => neutral(root, &items, depth + 1, false),
            };
            Value::Array((0..n).map(item).collect::<Option<_>>()?)
        }
        "string" => plain_string(schema),
        "integer" => {
            let (low, high) = inner_range(schema);
            whole(plain_number(low.ceil(), high.floor(), 1.0))?
        }
        "number" => {
            let (low, high) = inner_range(schema);
            Number::from_f64(plain_number(low, high, 1.0)).map(Value::Number)?
        }
        "boolean" => json!(false),
        "null" => Value::Null,
        _ => return None,
    })
}

/// The `i`-th of distinct plain values for `schema` (for `uniqueItems`).
pub(super) fn distinct(root: &Value, schema: &Value, i: u64, depth: usize) -> Option<Value> {
    let plain = neutral(root, schema, depth + 1, false)?;
    if i == 0 {
        return Some(plain);
    }
    Some(match plain {
        Value::String(s) => Value::String(format!("{s}{i}")),
        Value::Number(n) => match n.as_i64() {
            Some(k) => json!(k.saturating_add(i64::try_from(i).unwrap_or(i64::MAX))),
            None => Number::from_f64(n.as_f64().unwrap_or(0.0) + i as f64).map(Value::Number)?,
        },
        Value::Bool(b) => match i {
            0 => Value::Bool(b),
            1 => Value::Bool(!b),
            _ => return None,
        },
        _ => return None,
    })
}

fn plain_string(schema: &Value) -> Value {
    if schema.get("format").is_some() || schema.get("pattern").is_some() {
        return Value::String(values::string(schema, &mut Rng::new(0)));
    }
    let min = length(schema, "minLength").unwrap_or(0).max(1);
    let n = length(schema, "maxLength").map_or(min, |max| min.min(max));
    Value::String("a".repeat(usize::try_from(n.min(MAX_STRING)).unwrap_or(1)))
}

/// The valid range of a number schema, exclusive bounds moved inside.
fn inner_range(schema: &Value) -> (f64, f64) {
    let f = |k: &str| schema.get(k).and_then(Value::as_f64);
    let low = match (f("minimum"), f("exclusiveMinimum")) {
        (Some(a), Some(b)) => a.max(b.next_up()),
        (a, b) => a.or(b.map(f64::next_up)).unwrap_or(f64::NEG_INFINITY),
    };
    let high = match (f("maximum"), f("exclusiveMaximum")) {
        (Some(a), Some(b)) => a.min(b.next_down()),
        (a, b) => a.or(b.map(f64::next_down)).unwrap_or(f64::INFINITY),
    };
    (low, high)
}

/// A small value in `low..=high`: one step above `low` where that fits, `one` where nothing
/// bounds it (a `duration` or `count` stays small).
fn plain_number(low: f64, high: f64, one: f64) -> f64 {
    match (low.is_finite(), high.is_finite()) {
        (false, false) => one,
        (false, true) => one.min(high),
        (true, _) if low + one <= high => low + one,
        (true, true) => low + (high - low) / 2.0,
        (true, false) => low + one,
    }
}
