//! Arguments made from a tool's `inputSchema`: schema-valid sets, drawn from a seeded
//! generator, and the invalid variants a server must refuse. Every value is checked against
//! the schema itself (the `jsonschema` crate) before it is used, so a generator that
//! misreads a keyword yields fewer cases, never a wrong verdict: a "valid" set the schema
//! rejects is dropped, and so is an "invalid" variant the schema accepts.

use crate::matcher::type_name;
use serde_json::{Map, Value, json};

/// A small seeded generator (SplitMix64): the same seed gives the same cases on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// The deepest a generated value nests (recursive schemas stop here).
pub(super) const MAX_DEPTH: usize = 6;
/// Attempts at a schema-valid set before giving up on a case.
pub(super) const ATTEMPTS: usize = 40;

/// Draws up to `cases` distinct schema-valid argument objects for `schema`.
pub fn valid_sets(schema: &Value, cases: usize, rng: &mut Rng) -> Vec<Value> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    let mut out: Vec<Value> = Vec::new();
    let mut attempts = 0;
    while out.len() < cases && attempts < cases * ATTEMPTS {
        attempts += 1;
        // The second set gives only what is required (once: a server's default for a left-out
        // property, say a 10 s `duration`, is paid once); every other set gives every property.
        let optional = out.len() != 1;
        let candidate = draw(schema, schema, rng, 0, true, optional);
        if let Some(v) = candidate
            && v.is_object()
            && validator.is_valid(&v)
            && !out.contains(&v)
        {
            out.push(v);
        }
    }
    out
}

/// One invalid argument set and what makes it invalid (`missing required "x"`...).
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub what: String,
    pub args: Value,
}

/// The invalid variants of `base` (a valid set): each required property missing, each
/// property of a wrong type, an unknown property where `additionalProperties` is false, and
/// arguments that are not an object. Only variants the schema really rejects are kept.
pub fn invalid_variants(schema: &Value, base: &Value) -> Vec<Invalid> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    let Some(base_map) = base.as_object() else {
        return Vec::new();
    };
    let props = schema.get("properties").and_then(Value::as_object);
    let mut out = Vec::new();
    for name in required(schema) {
        let mut args = base_map.clone();
        args.remove(&name);
        out.push(Invalid {
            what: format!("required property {name:?} missing"),
            args: Value::Object(args),
        });
    }
    for (name, sub) in props.into_iter().flatten() {
        if let Some(wrong) = wrong_type(sub) {
            let mut args = base_map.clone();
            args.insert(name.clone(), wrong.clone());
            out.push(Invalid {
                what: format!(
                    "property {name:?} of the wrong type ({})",
                    type_name(&wrong)
                ),
                args: Value::Object(args),
            });
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        let mut args = base_map.clone();
        args.insert("conformance_unknown_property".into(), json!(1));
        out.push(Invalid {
            what: "an unknown property where additionalProperties is false".into(),
            args: Value::Object(args),
        });
    }
    out.push(Invalid {
        what: "arguments that are not an object".into(),
        args: json!("not an object"),
    });
    out.retain(|v| !validator.is_valid(&v.args));
    out
}

pub(super) fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A value of a JSON type `sub` does not allow, when there is one.
fn wrong_type(sub: &Value) -> Option<Value> {
    let allowed = types_of(sub);
    let candidates = [
        json!("conformance"),
        json!(12345),
        json!(true),
        json!({"unexpected": true}),
        json!([1, 2]),
    ];
    candidates
        .into_iter()
        .find(|c| !allowed.is_empty() && !allowed.iter().any(|t| admits(t, c)))
}

pub(super) fn types_of(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn admits(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// A candidate value for `schema` (within `root`, for local `$ref`s). `top` forces an object.
pub(super) fn draw(
    root: &Value,
    schema: &Value,
    rng: &mut Rng,
    depth: usize,
    top: bool,
    optional: bool,
) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => resolve(root, reference)?,
        None => schema,
    };
    match schema {
        Value::Bool(true) => return Some(json!("x")),
        Value::Bool(false) => return None,
        _ => {}
    }
    if let Some(c) = schema.get("const") {
        return Some(c.clone());
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        let n = options.len() as u64;
        return options.get(rng.below(n) as usize).cloned();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(options)) = schema.get(key)
            && !options.is_empty()
        {
            let pick = &options[rng.below(options.len() as u64) as usize];
            return draw(root, pick, rng, depth + 1, top, optional);
        }
    }
    let types = types_of(schema);
    let ty = if top {
        "object".to_string()
    } else if types.is_empty() {
        infer(schema)
    } else {
        types[rng.below(types.len() as u64) as usize].clone()
    };
    Some(match ty.as_str() {
        "object" => object(root, schema, rng, depth, optional),
        "array" => array(root, schema, rng, depth, optional),
        "string" => Value::String(string(schema, rng)),
        "integer" => json!(integer(schema, rng)),
        "number" => number(schema, rng),
        "boolean" => Value::Bool(rng.coin()),
        "null" => Value::Null,
        _ => return None,
    })
}

/// The type a schema without `type` means, from its keywords.
pub(super) fn infer(schema: &Value) -> String {
    let has = |k: &str| schema.get(k).is_some();
    if has("properties") || has("required") || has("additionalProperties") {
        "object"
    } else if has("items") || has("minItems") || has("maxItems") {
        "array"
    } else if has("minimum") || has("maximum") || has("exclusiveMinimum") {
        "number"
    } else {
        "string"
    }
    .to_string()
}

pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

fn object(root: &Value, schema: &Value, rng: &mut Rng, depth: usize, optional: bool) -> Value {
    let mut map = Map::new();
    let required = required(schema);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            if (required.contains(name) || optional)
                && let Some(v) = draw(root, sub, rng, depth + 1, false, optional)
            {
                map.insert(name.clone(), v);
            }
        }
    }
    Value::Object(map)
}

fn array(root: &Value, schema: &Value, rng: &mut Rng, depth: usize, optional: bool) -> Value {
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
    let max = schema
        .get("maxItems")
        .and_then(Value::as_u64)
        .unwrap_or(min + 3)
        .max(min);
    let len = min + rng.below(max.min(min + 3) - min + 1);
    let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
    Value::Array(
        (0..len)
            .filter_map(|_| draw(root, &items, rng, depth + 1, false, optional))
            .collect(),
    )
}

/// A short, harmless string: letters and digits, or a well-known form for `format`.
pub(super) fn string(schema: &Value, rng: &mut Rng) -> String {
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        let known = match format {
            "date-time" => Some("2025-01-01T00:00:00Z"),
            "date" => Some("2025-01-01"),
            "time" => Some("00:00:00Z"),
            "email" => Some("someone@example.com"),
            "uri" | "url" | "iri" => Some("https://example.com/conformance"),
            "uuid" => Some("123e4567-e89b-12d3-a456-426614174000"),
            "ipv4" => Some("192.0.2.1"),
            "ipv6" => Some("2001:db8::1"),
            "hostname" => Some("example.com"),
            _ => None,
        };
        if let Some(s) = known {
            return s.to_string();
        }
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Some(s) = from_pattern(pattern, rng)
    {
        return s;
    }
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    let max = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(min + 8)
        .max(min);
    let len = min + rng.below(max.min(min + 8) - min + 1);
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..len)
        .map(|_| CHARS[rng.below(CHARS.len() as u64) as usize] as char)
        .collect()
}

/// A string matching `pattern`, drawn from proptest's regex strategy with a seed from `rng`.
/// A pattern matches anywhere in a string, so a string matching it whole does; a leading `^`
/// and a trailing `$` are dropped (the strategy cannot generate anchors). `None` for what the
/// strategy cannot do (lookaround, backreferences): the schema filter then decides.
fn from_pattern(pattern: &str, rng: &mut Rng) -> Option<String> {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let core = pattern.strip_prefix('^').unwrap_or(pattern);
    let core = match core.strip_suffix('$') {
        Some(c) if !c.ends_with('\\') => c,
        _ => core,
    };
    let strategy = proptest::string::string_regex(core).ok()?;
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&rng.below(u64::MAX).to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    );
    strategy
        .new_tree(&mut runner)
        .ok()
        .map(|tree| tree.current())
}

fn bounds(schema: &Value) -> (f64, f64) {
    let f = |k: &str| schema.get(k).and_then(Value::as_f64);
    let low = f("minimum").or(f("exclusiveMinimum").map(|x| x + 1.0));
    let high = f("maximum").or(f("exclusiveMaximum").map(|x| x - 1.0));
    match (low, high) {
        (Some(l), Some(h)) => (l, h.max(l)),
        (Some(l), None) => (l, l + 2.0),
        (None, Some(h)) => ((h - 2.0).min(0.0).max(h - 2.0), h),
        // Unbounded: small values, so a `duration` or `count` argument costs seconds, not
        // minutes, and zero and one (where servers go wrong) come often.
        (None, None) => (0.0, 2.0),
    }
}

fn integer(schema: &Value, rng: &mut Rng) -> i64 {
    let (low, high) = bounds(schema);
    let (low, high) = (low.ceil() as i64, high.floor() as i64);
    if high <= low {
        return low;
    }
    let span = (high - low) as u64;
    // The edges first, where servers go wrong.
    match rng.below(4) {
        0 => low,
        1 => high,
        _ => low + rng.below(span + 1) as i64,
    }
}

fn number(schema: &Value, rng: &mut Rng) -> Value {
    let (low, high) = bounds(schema);
    let step = rng.below(1001) as f64 / 1000.0;
    let x = low + (high - low) * step;
    serde_json::Number::from_f64((x * 1000.0).round() / 1000.0)
        .map(Value::Number)
        .unwrap_or(json!(0))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 1, "maxLength": 5},
                "n": {"type": "integer", "minimum": 1, "maximum": 3},
                "mode": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                "when": {"type": "string", "format": "date-time"},
                "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                "inner": {"$ref": "#/$defs/inner"}
            },
            "required": ["text", "n", "code"],
            "additionalProperties": false,
            "$defs": {"inner": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}
        })
    }

    #[test]
    fn valid_sets_are_valid_distinct_and_the_same_for_a_seed() {
        let validator = jsonschema::validator_for(&schema()).unwrap();
        let sets = valid_sets(&schema(), 8, &mut Rng::new(7));
        assert!(sets.len() >= 4, "{sets:?}");
        for s in &sets {
            assert!(validator.is_valid(s), "{s}");
        }
        assert_eq!(sets, valid_sets(&schema(), 8, &mut Rng::new(7)));
        assert_ne!(sets, valid_sets(&schema(), 8, &mut Rng::new(8)));
    }

    #[test]
    fn every_invalid_variant_is_invalid_and_each_kind_is_there() {
        let validator = jsonschema::validator_for(&schema()).unwrap();
        let base = valid_sets(&schema(), 1, &mut Rng::new(1)).remove(0);
        let variants = invalid_variants(&schema(), &base);
        for v in &variants {
            assert!(!validator.is_valid(&v.args), "{v:?}");
        }
        let whats: Vec<&str> = variants.iter().map(|v| v.what.as_str()).collect();
        assert!(
            whats.contains(&"required property \"text\" missing"),
            "{whats:?}"
        );
        assert!(
            whats
                .iter()
                .any(|w| w.starts_with("property \"n\" of the wrong type"))
        );
        assert!(whats.contains(&"an unknown property where additionalProperties is false"));
        assert!(whats.contains(&"arguments that are not an object"));
    }

    #[test]
    fn a_schema_nothing_satisfies_yields_no_case() {
        let never = json!({"type": "object", "properties": {"x": false}, "required": ["x"]});
        assert!(valid_sets(&never, 3, &mut Rng::new(1)).is_empty());
    }
}
