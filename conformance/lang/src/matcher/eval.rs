//! Matching a validated pattern tree against an actual value.
//!
//! The actual side is an `Option<&Value>`: `None` is a missing object key. Modelling absence
//! as a value that only `$absent` accepts makes `$not` and `$one_of` compose with it without
//! special cases (`$one_of: [{$absent: true}, {$type: string}]` is "optional string").

use super::compare::{exact, num_cmp, scalar_eq};
use super::compile::{Bound, Kind, Node, Op};
use super::fail::{Outcome, descend, fail, keep_closest, with_context};
use super::order::increasing;
use super::path::Path;
use super::text::{compact, describe, key_list, type_name};
use super::unordered::unordered;
use serde_json::Value;

/// Matches `node` against `actual` (`None`: the key is missing) found at `path`.
pub(super) fn eval(node: &Node, actual: Option<&Value>, path: &Path<'_>) -> Outcome {
    if let Kind::Ops(ops) = &node.kind {
        for op in ops {
            eval_op(node, op, actual, path)?;
        }
        return Ok(());
    }
    let Some(actual) = actual else {
        return fail(path, &node.source, None, "key is missing".to_owned());
    };
    match &node.kind {
        Kind::Literal => {
            if scalar_eq(&node.source, actual) {
                Ok(())
            } else {
                fail(
                    path,
                    &node.source,
                    Some(actual),
                    format!(
                        "expected {}, got {}",
                        describe(&node.source),
                        describe(actual)
                    ),
                )
            }
        }
        Kind::Object(entries) => {
            let Value::Object(map) = actual else {
                return fail(
                    path,
                    &node.source,
                    Some(actual),
                    format!("expected an object, got {}", describe(actual)),
                );
            };
            for (i, (key, sub)) in entries.iter().enumerate() {
                descend(eval(sub, map.get(key), &path.key(key)), i)?;
            }
            Ok(())
        }
        Kind::Array(items) => {
            let Value::Array(elems) = actual else {
                return fail(
                    path,
                    &node.source,
                    Some(actual),
                    format!("expected an array, got {}", describe(actual)),
                );
            };
            if elems.len() != items.len() {
                return fail(
                    path,
                    &node.source,
                    Some(actual),
                    format!(
                        "expected an array of {} element(s), got {}",
                        items.len(),
                        elems.len()
                    ),
                );
            }
            for (i, (item, elem)) in items.iter().zip(elems).enumerate() {
                descend(eval(item, Some(elem), &path.index(i)), i)?;
            }
            Ok(())
        }
        Kind::Ops(_) => Ok(()), // handled above
    }
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::Regex(_) => "$regex",
        Op::Type(_) => "$type",
        Op::Absent => "$absent",
        Op::Any => "$any",
        Op::Len(_) => "$len",
        Op::Contains(_) => "$contains",
        Op::Bound(Bound::Gte, _) => "$gte",
        Op::Bound(Bound::Lte, _) => "$lte",
        Op::Bound(Bound::Gt, _) => "$gt",
        Op::Bound(Bound::Lt, _) => "$lt",
        Op::Exact(_) => "$exact",
        Op::OneOf(_) => "$one_of",
        Op::Not(_) => "$not",
        Op::Each(_) => "$each",
        Op::Unordered(_) => "$unordered",
        Op::HasKeys(_) => "$has_keys",
        Op::Keys(_) => "$keys",
        Op::Json(_) => "$json",
        Op::Schema(_) => "$schema",
        Op::IsSchema => "$is_schema",
        Op::Increasing(_) => "$increasing",
    }
}

fn eval_op(node: &Node, op: &Op, actual: Option<&Value>, path: &Path<'_>) -> Outcome {
    let src = &node.source;
    // The three operators that have an opinion about a missing key.
    match op {
        Op::Absent => {
            return match actual {
                None => Ok(()),
                // Ranked like a missing key: as a `$one_of` alternative, "should be absent"
                // says less about a present value than any option that looked at it.
                Some(v) => fail(
                    path,
                    src,
                    Some(v),
                    format!("key must be absent, but it is present: {}", describe(v)),
                )
                .map_err(|mut f| {
                    f.quality = 0;
                    f
                }),
            };
        }
        Op::Not(inner) => {
            return match eval(inner, actual, path) {
                Err(_) => Ok(()),
                Ok(()) => fail(
                    path,
                    src,
                    actual,
                    format!(
                        "{} matches the pattern under `$not`: {}",
                        actual.map_or_else(|| "the missing key".to_owned(), describe),
                        compact(&inner.source)
                    ),
                ),
            };
        }
        Op::OneOf(options) => {
            let mut best = None;
            for (i, option) in options.iter().enumerate() {
                match eval(option, actual, path) {
                    Ok(()) => return Ok(()),
                    Err(f) => keep_closest(&mut best, i, f),
                }
            }
            let context = format!("none of the {} `$one_of` options matched", options.len());
            return match best {
                Some((i, f)) => with_context(f, format!("{context}; closest is option {i}")),
                None => fail(path, src, actual, context),
            };
        }
        _ => {}
    }
    let Some(v) = actual else {
        return fail(
            path,
            src,
            None,
            format!("key is missing (`{}` needs a value)", op_name(op)),
        );
    };
    match op {
        Op::Absent | Op::Not(_) | Op::OneOf(_) | Op::Any => Ok(()),
        Op::Regex(re) => match v {
            Value::String(s) if re.is_match(s) => Ok(()),
            Value::String(_) => fail(
                path,
                src,
                Some(v),
                format!("{} does not match regex /{re}/", describe(v)),
            ),
            _ => fail(
                path,
                src,
                Some(v),
                format!("`$regex` needs a string, got {}", describe(v)),
            ),
        },
        Op::Type(types) => {
            if types.iter().any(|t| t.admits(v)) {
                Ok(())
            } else {
                let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
                fail(
                    path,
                    src,
                    Some(v),
                    format!(
                        "expected type {}, got {} {}",
                        names.join(" or "),
                        type_name(v),
                        describe(v)
                    ),
                )
            }
        }
        Op::Len(inner) => {
            let len = match v {
                Value::String(s) => s.chars().count(),
                Value::Array(a) => a.len(),
                Value::Object(m) => m.len(),
                _ => {
                    return fail(
                        path,
                        src,
                        Some(v),
                        format!(
                            "`$len` needs a string, array or object, got {}",
                            describe(v)
                        ),
                    );
                }
            };
            match eval(inner, Some(&Value::from(len)), path) {
                Ok(()) => Ok(()),
                Err(f) => fail(
                    path,
                    src,
                    Some(v),
                    format!("length {len} does not match `$len`: {}", f.mismatch.reason),
                ),
            }
        }
        Op::Contains(inner) => match v {
            Value::Array(elems) => {
                let mut best = None;
                for (i, elem) in elems.iter().enumerate() {
                    match descend(eval(inner, Some(elem), &path.index(i)), 0) {
                        Ok(()) => return Ok(()),
                        Err(f) => keep_closest(&mut best, i, f),
                    }
                }
                match best {
                    Some((i, f)) => with_context(
                        f,
                        format!(
                            "none of the {} element(s) matches `$contains`; closest is [{i}]",
                            elems.len()
                        ),
                    ),
                    None => fail(
                        path,
                        src,
                        Some(v),
                        "the array is empty, so no element matches `$contains`".to_owned(),
                    ),
                }
            }
            Value::Object(map) => {
                let mut best = None;
                for (i, (key, value)) in map.iter().enumerate() {
                    match descend(eval(inner, Some(value), &path.key(key)), 0) {
                        Ok(()) => return Ok(()),
                        Err(f) => keep_closest(&mut best, i, f),
                    }
                }
                match best {
                    Some((i, f)) => with_context(
                        f,
                        format!(
                            "none of the {} value(s) matches `$contains`; closest is {:?}",
                            map.len(),
                            map.keys().nth(i).map_or("", String::as_str)
                        ),
                    ),
                    None => fail(
                        path,
                        src,
                        Some(v),
                        "the object is empty, so no value matches `$contains`".to_owned(),
                    ),
                }
            }
            Value::String(s) => match inner.source.as_str() {
                Some(needle) if s.contains(needle) => Ok(()),
                Some(needle) => fail(
                    path,
                    src,
                    Some(v),
                    format!(
                        "{} does not contain {}",
                        describe(v),
                        describe(&Value::from(needle))
                    ),
                ),
                None => fail(
                    path,
                    src,
                    Some(v),
                    format!(
                        "`$contains` on a string needs a string argument, got {}",
                        compact(&inner.source)
                    ),
                ),
            },
            _ => fail(
                path,
                src,
                Some(v),
                format!(
                    "`$contains` needs an array or a string, got {}",
                    describe(v)
                ),
            ),
        },
        Op::Bound(bound, limit) => {
            let holds = match v {
                Value::Number(n) => num_cmp(n, limit).is_some_and(|o| match bound {
                    Bound::Gte => o.is_ge(),
                    Bound::Lte => o.is_le(),
                    Bound::Gt => o.is_gt(),
                    Bound::Lt => o.is_lt(),
                }),
                _ => false,
            };
            if holds {
                Ok(())
            } else {
                fail(
                    path,
                    src,
                    Some(v),
                    format!(
                        "expected a number {} {limit}, got {}",
                        bound.symbol(),
                        describe(v)
                    ),
                )
            }
        }
        Op::Exact(expected) => exact(expected, v, path),
        Op::Each(inner) => match v {
            Value::Array(elems) => {
                for (i, elem) in elems.iter().enumerate() {
                    descend(eval(inner, Some(elem), &path.index(i)), i)?;
                }
                Ok(())
            }
            Value::Object(map) => {
                for (i, (key, value)) in map.iter().enumerate() {
                    descend(eval(inner, Some(value), &path.key(key)), i)?;
                }
                Ok(())
            }
            _ => fail(
                path,
                src,
                Some(v),
                format!("`$each` needs an array or an object, got {}", describe(v)),
            ),
        },
        Op::Unordered(items) => unordered(node, items, v, path, eval),
        Op::Increasing(key) => increasing(src, key.as_deref(), v, path),
        Op::Schema(check) => match check.check(v) {
            Ok(()) => Ok(()),
            Err(e) => fail(path, src, Some(v), format!("`$schema`: {e}")),
        },
        Op::IsSchema => match super::schema::is_schema(v) {
            Ok(()) => Ok(()),
            Err(e) => fail(path, src, Some(v), format!("`$is_schema`: {e}")),
        },
        Op::HasKeys(keys) | Op::Keys(keys) => {
            let Value::Object(map) = v else {
                return fail(
                    path,
                    src,
                    Some(v),
                    format!("`{}` needs an object, got {}", op_name(op), describe(v)),
                );
            };
            let missing: Vec<&str> = keys
                .iter()
                .filter(|k| !map.contains_key(k.as_str()))
                .map(String::as_str)
                .collect();
            let extra: Vec<&str> = if matches!(op, Op::Keys(_)) {
                map.keys()
                    .filter(|k| !keys.contains(k))
                    .map(String::as_str)
                    .collect()
            } else {
                Vec::new()
            };
            if missing.is_empty() && extra.is_empty() {
                return Ok(());
            }
            let mut problems = Vec::new();
            if !missing.is_empty() {
                problems.push(format!("missing {}", key_list(&missing)));
            }
            if !extra.is_empty() {
                problems.push(format!("unexpected {}", key_list(&extra)));
            }
            fail(
                path,
                src,
                Some(v),
                format!("`{}`: {}", op_name(op), problems.join("; ")),
            )
        }
        Op::Json(inner) => {
            let Value::String(text) = v else {
                return fail(
                    path,
                    src,
                    Some(v),
                    format!(
                        "`$json` needs a string that holds JSON, got {}",
                        describe(v)
                    ),
                );
            };
            match serde_json::from_str::<Value>(text) {
                Ok(parsed) => descend(eval(inner, Some(&parsed), &path.json()), 0),
                Err(e) => fail(
                    path,
                    src,
                    Some(v),
                    format!("`$json`: the string is not valid JSON ({e})"),
                ),
            }
        }
    }
}
