//! Validation of a pattern into a small tree that the evaluator walks.
//!
//! Everything that can be wrong with a pattern is found here, before any server runs:
//! unknown operators, wrong argument types, invalid regexes, `$` keys mixed with plain keys.
//! The evaluator can then trust the tree and never has to report a pattern bug as a server
//! failure.

use super::PatternError;
use super::path::Path;
use regex::Regex;
use serde_json::{Map, Number, Value};

/// A validated sub-pattern together with the JSON it came from (shown in mismatch reports).
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) source: Value,
    pub(super) kind: Kind,
}

#[derive(Debug, Clone)]
pub(super) enum Kind {
    /// A scalar (null, boolean, number, string), compared by equality with `source`.
    Literal,
    /// A plain object: each (actual key, sub-pattern) must match; extra actual keys are fine.
    Object(Vec<(String, Node)>),
    /// A plain array: same length, elementwise.
    Array(Vec<Node>),
    /// An operator object: every operator must hold.
    Ops(Vec<Op>),
}

/// One `$` operator with its validated argument.
#[derive(Debug, Clone)]
pub(super) enum Op {
    Regex(Regex),
    Type(Vec<JsonType>),
    Absent,
    Any,
    Len(Box<Node>),
    Contains(Box<Node>),
    Bound(Bound, Number),
    Exact(Value),
    OneOf(Vec<Node>),
    Not(Box<Node>),
    Each(Box<Node>),
    Unordered(Vec<Node>),
    HasKeys(Vec<String>),
    Keys(Vec<String>),
    Json(Box<Node>),
    Schema(super::schema::SchemaCheck),
    IsSchema,
    /// `$increasing`: `None` compares the elements, `Some(key)` that member of each.
    Increasing(Option<String>),
}

/// The numeric bound operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bound {
    Gte,
    Lte,
    Gt,
    Lt,
}

impl Bound {
    pub(super) fn symbol(self) -> &'static str {
        match self {
            Bound::Gte => ">=",
            Bound::Lte => "<=",
            Bound::Gt => ">",
            Bound::Lt => "<",
        }
    }
}

/// The names `$type` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JsonType {
    String,
    Number,
    Integer,
    Boolean,
    Object,
    Array,
    Null,
}

const TYPE_NAMES: &str = "string, number, integer, boolean, object, array, null";

impl JsonType {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "null" => JsonType::Null,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Null => "null",
        }
    }

    /// Whether `value` has this type. As in JSON Schema, `integer` is any number with no
    /// fractional part, so `1.0` is an integer (numbers compare numerically everywhere else too).
    pub(super) fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (JsonType::String, Value::String(_))
            | (JsonType::Number, Value::Number(_))
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Object, Value::Object(_))
            | (JsonType::Array, Value::Array(_))
            | (JsonType::Null, Value::Null) => true,
            (JsonType::Integer, Value::Number(n)) => {
                n.is_i64()
                    || n.is_u64()
                    || n.as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            }
            _ => false,
        }
    }
}

/// Every operator name, for validation and "did you mean" suggestions.
pub(super) const OPERATORS: &[&str] = &[
    "$regex",
    "$type",
    "$absent",
    "$any",
    "$len",
    "$contains",
    "$gte",
    "$lte",
    "$gt",
    "$lt",
    "$exact",
    "$one_of",
    "$not",
    "$each",
    "$unordered",
    "$has_keys",
    "$keys",
    "$json",
    "$schema",
    "$is_schema",
    "$increasing",
];

/// A key that names an operator: starts with `$` but not with the `$$` escape, nor with
/// `${` (a variable, so a key only the server knows can be matched once it is saved:
/// patterns are expanded before they are matched).
pub(super) fn is_operator_key(key: &str) -> bool {
    key.starts_with('$') && !key.starts_with("$$") && !key.starts_with("${")
}

/// The actual key a plain pattern key stands for: `$$ref` matches `$ref`.
fn unescape_key(key: &str) -> &str {
    if key.starts_with("$$") {
        &key[1..]
    } else {
        key
    }
}

fn error(path: &Path<'_>, message: impl Into<String>) -> PatternError {
    PatternError {
        path: path.render(),
        message: message.into(),
    }
}

/// Validates `pattern` (found at `path` of the whole pattern) and builds its tree.
pub(super) fn compile(pattern: &Value, path: &Path<'_>) -> Result<Node, PatternError> {
    let kind = match pattern {
        Value::Object(map) => compile_object(map, path)?,
        Value::Array(items) => Kind::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| compile(item, &path.index(i)))
                .collect::<Result<_, _>>()?,
        ),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => Kind::Literal,
    };
    Ok(Node {
        source: pattern.clone(),
        kind,
    })
}

fn compile_object(map: &Map<String, Value>, path: &Path<'_>) -> Result<Kind, PatternError> {
    let first_op = map.keys().find(|k| is_operator_key(k));
    let first_plain = map.keys().find(|k| !is_operator_key(k));
    match (first_op, first_plain) {
        (Some(op), Some(plain)) => Err(error(
            path,
            format!(
                "operator `{op}` cannot be mixed with plain key `{plain}` in one object \
                 (write a literal key that starts with `$` with a doubled dollar, e.g. `$$ref`)"
            ),
        )),
        (Some(_), None) => {
            if map.contains_key("$absent") && map.len() > 1 {
                return Err(error(
                    path,
                    "`$absent` cannot be combined with other operators (they need a value)",
                ));
            }
            let ops = map
                .iter()
                .map(|(k, arg)| compile_op(k, arg, &path.key(k)))
                .collect::<Result<_, _>>()?;
            Ok(Kind::Ops(ops))
        }
        _ => {
            let entries = map
                .iter()
                .map(|(k, sub)| Ok((unescape_key(k).to_owned(), compile(sub, &path.key(k))?)))
                .collect::<Result<_, PatternError>>()?;
            Ok(Kind::Object(entries))
        }
    }
}

fn compile_op(name: &str, arg: &Value, path: &Path<'_>) -> Result<Op, PatternError> {
    let op = match name {
        "$regex" => {
            let Value::String(re) = arg else {
                return Err(error(path, format!("`$regex` takes a string, got {arg}")));
            };
            Op::Regex(Regex::new(re).map_err(|e| error(path, format!("invalid regex: {e}")))?)
        }
        "$type" => Op::Type(compile_types(arg, path)?),
        "$absent" => {
            if arg != &Value::Bool(true) {
                return Err(error(
                    path,
                    format!(
                        "`$absent` only takes `true` (use `$any: true` to require a key), got {arg}"
                    ),
                ));
            }
            Op::Absent
        }
        "$any" => {
            if arg != &Value::Bool(true) {
                return Err(error(
                    path,
                    format!(
                        "`$any` only takes `true` (use `$absent: true` to forbid a key), got {arg}"
                    ),
                ));
            }
            Op::Any
        }
        "$len" => {
            let valid = match arg {
                Value::Number(n) => n.is_u64(),
                Value::Object(m) => !m.is_empty() && m.keys().all(|k| is_operator_key(k)),
                _ => false,
            };
            if !valid {
                return Err(error(
                    path,
                    format!(
                        "`$len` takes a non-negative integer or an operator pattern \
                         such as {{\"$gte\": 1}}, got {arg}"
                    ),
                ));
            }
            Op::Len(Box::new(compile(arg, path)?))
        }
        "$contains" => Op::Contains(Box::new(compile(arg, path)?)),
        "$gte" | "$lte" | "$gt" | "$lt" => {
            let Value::Number(n) = arg else {
                return Err(error(path, format!("`{name}` takes a number, got {arg}")));
            };
            let bound = match name {
                "$gte" => Bound::Gte,
                "$lte" => Bound::Lte,
                "$gt" => Bound::Gt,
                _ => Bound::Lt,
            };
            Op::Bound(bound, n.clone())
        }
        "$exact" => Op::Exact(arg.clone()),
        "$one_of" => match arg {
            Value::Array(options) if !options.is_empty() => Op::OneOf(compile_list(options, path)?),
            _ => {
                return Err(error(
                    path,
                    format!("`$one_of` takes a non-empty list of patterns, got {arg}"),
                ));
            }
        },
        "$not" => Op::Not(Box::new(compile(arg, path)?)),
        "$each" => Op::Each(Box::new(compile(arg, path)?)),
        "$unordered" => match arg {
            Value::Array(items) => Op::Unordered(compile_list(items, path)?),
            _ => {
                return Err(error(
                    path,
                    format!("`$unordered` takes a list of patterns, got {arg}"),
                ));
            }
        },
        "$has_keys" => Op::HasKeys(compile_key_list(name, arg, path)?),
        "$keys" => Op::Keys(compile_key_list(name, arg, path)?),
        "$json" => Op::Json(Box::new(compile(arg, path)?)),
        "$schema" => {
            Op::Schema(super::schema::SchemaCheck::compile(arg).map_err(|e| error(path, e))?)
        }
        "$is_schema" => {
            if arg != &Value::Bool(true) {
                return Err(error(
                    path,
                    format!("`$is_schema` only takes `true`, got {arg}"),
                ));
            }
            Op::IsSchema
        }
        "$increasing" => match arg {
            Value::Bool(true) => Op::Increasing(None),
            Value::String(key) if !key.is_empty() => Op::Increasing(Some(key.clone())),
            _ => {
                return Err(error(
                    path,
                    format!(
                        "`$increasing` takes `true` (the elements are numbers) or a key name \
                         (that member of each element), got {arg}"
                    ),
                ));
            }
        },
        _ => return Err(error(path, unknown_operator(name))),
    };
    Ok(op)
}

fn compile_list(items: &[Value], path: &Path<'_>) -> Result<Vec<Node>, PatternError> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| compile(item, &path.index(i)))
        .collect()
}

fn compile_types(arg: &Value, path: &Path<'_>) -> Result<Vec<JsonType>, PatternError> {
    let one = |name: &Value, path: &Path<'_>| match name {
        Value::String(s) => JsonType::parse(s).ok_or_else(|| {
            error(
                path,
                format!("unknown type `{s}`; expected one of {TYPE_NAMES}"),
            )
        }),
        _ => Err(error(
            path,
            format!("`$type` takes a type name or a list of them, got {name}"),
        )),
    };
    match arg {
        Value::Array(names) if !names.is_empty() => names
            .iter()
            .enumerate()
            .map(|(i, name)| one(name, &path.index(i)))
            .collect(),
        Value::Array(_) => Err(error(path, "`$type` takes a non-empty list of type names")),
        _ => Ok(vec![one(arg, path)?]),
    }
}

fn compile_key_list(name: &str, arg: &Value, path: &Path<'_>) -> Result<Vec<String>, PatternError> {
    let Value::Array(items) = arg else {
        return Err(error(
            path,
            format!("`{name}` takes a list of key names, got {arg}"),
        ));
    };
    let mut keys: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::String(key) = item else {
            return Err(error(
                &path.index(i),
                format!("`{name}` takes key names (strings), got {item}"),
            ));
        };
        if keys.contains(key) {
            return Err(error(
                &path.index(i),
                format!("`{name}` lists `{key}` twice"),
            ));
        }
        keys.push(key.clone());
    }
    Ok(keys)
}

/// The message for an unknown operator, with the nearest known one when it looks like a typo.
fn unknown_operator(name: &str) -> String {
    let nearest = OPERATORS
        .iter()
        .map(|op| (edit_distance(name, op), *op))
        .min_by_key(|(d, _)| *d);
    match nearest {
        Some((d, op)) if d <= 2 => format!("unknown operator `{name}` (did you mean `{op}`?)"),
        _ => format!(
            "unknown operator `{name}`; known operators: {} \
             (write a literal key that starts with `$` as `$${}`)",
            OPERATORS.join(", "),
            name.strip_prefix('$').unwrap_or(name)
        ),
    }
}

/// Levenshtein distance over chars; operator names are short, so the quadratic table is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
