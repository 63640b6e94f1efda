//! Matching a validated pattern tree against an actual value.
//!
//! The actual side is an `Option<&Value>`: `None` is a missing object key. Modelling absence
//! as a value that only `$absent` accepts makes `$not` and `$one_of` compose with it without
//! special cases (`$one_of: [{$absent: true}, {$type: string}]` is "optional string").

use super::Mismatch;
use super::compile::{Bound, Kind, Node, Op};
use super::path::Path;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// A mismatch plus how close the value came to matching, so that `$one_of`, `$contains` and
/// `$unordered` can report the alternative that got furthest. Boxed: failures are the cold
/// path, and alternatives make many of them.
#[derive(Debug)]
pub(super) struct Fail {
    pub(super) mismatch: Mismatch,
    /// Steps taken towards the failure: one per level descended plus one per sibling that
    /// matched before the failing one. An option that matched `type` and then failed on
    /// `text` got further than one that failed on `type`.
    progress: usize,
    /// How wrong the final value is: 0 missing (or present but required absent), 1 present
    /// but of another kind than expected, 2 same kind.
    quality: u8,
}

impl Fail {
    fn closeness(&self) -> (usize, u8) {
        (self.progress, self.quality)
    }
}

pub(super) type Outcome = Result<(), Box<Fail>>;

fn fail(path: &Path<'_>, expected: &Value, actual: Option<&Value>, reason: String) -> Outcome {
    let quality = match actual {
        None => 0,
        Some(a) if std::mem::discriminant(a) == std::mem::discriminant(expected) => 2,
        Some(_) => 1,
    };
    Err(Box::new(Fail {
        mismatch: Mismatch {
            path: path.render(),
            expected: expected.clone(),
            actual: actual.cloned(),
            reason,
        },
        progress: 0,
        quality,
    }))
}

/// Credits a child's failure with the descent into it and the `matched_before` siblings
/// that matched ahead of it.
fn descend(outcome: Outcome, matched_before: usize) -> Outcome {
    outcome.map_err(|mut f| {
        f.progress += matched_before + 1;
        f
    })
}

/// Keeps the failure that came closest to matching; on a tie, the earlier one.
fn keep_closest(best: &mut Option<(usize, Box<Fail>)>, index: usize, candidate: Box<Fail>) {
    if best
        .as_ref()
        .is_none_or(|(_, b)| candidate.closeness() > b.closeness())
    {
        *best = Some((index, candidate));
    }
}

/// Prefixes the reason of a chosen alternative with why alternatives were tried at all.
fn with_context(mut f: Box<Fail>, context: String) -> Outcome {
    f.mismatch.reason = format!("{context}: {}", f.mismatch.reason);
    Err(f)
}

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
        Op::Unordered(items) => unordered(node, items, v, path),
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

fn key_list(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    format!(
        "key{} {}",
        if keys.len() == 1 { "" } else { "s" },
        quoted.join(", ")
    )
}

/// `$unordered`: same length, and a one-to-one assignment of patterns to elements exists.
/// The assignment is a bipartite matching (augmenting paths), so no valid order is missed.
fn unordered(node: &Node, items: &[Node], v: &Value, path: &Path<'_>) -> Outcome {
    let src = &node.source;
    let Value::Array(elems) = v else {
        return fail(
            path,
            src,
            Some(v),
            format!("`$unordered` needs an array, got {}", describe(v)),
        );
    };
    if elems.len() != items.len() {
        return fail(
            path,
            src,
            Some(v),
            format!(
                "`$unordered` expects {} element(s), got {}",
                items.len(),
                elems.len()
            ),
        );
    }
    let fits: Vec<Vec<bool>> = items
        .iter()
        .map(|item| {
            elems
                .iter()
                .enumerate()
                .map(|(j, elem)| eval(item, Some(elem), &path.index(j)).is_ok())
                .collect()
        })
        .collect();
    for (i, row) in fits.iter().enumerate() {
        if row.iter().any(|&ok| ok) {
            continue;
        }
        let mut best = None;
        for (j, elem) in elems.iter().enumerate() {
            if let Err(f) = descend(eval(&items[i], Some(elem), &path.index(j)), 0) {
                keep_closest(&mut best, j, f);
            }
        }
        if let Some((j, f)) = best {
            return with_context(
                f,
                format!("`$unordered` pattern {i} matches no element; closest is [{j}]"),
            );
        }
    }
    let mut owner: Vec<Option<usize>> = vec![None; elems.len()];
    let mut unassigned = Vec::new();
    for i in 0..items.len() {
        let mut seen = vec![false; elems.len()];
        if !augment(i, &fits, &mut seen, &mut owner) {
            unassigned.push(i.to_string());
        }
    }
    if unassigned.is_empty() {
        Ok(())
    } else {
        fail(
            path,
            src,
            Some(v),
            format!(
                "`$unordered`: every pattern matches some element, but no one-to-one assignment \
                 exists; pattern(s) {} are left without an element of their own",
                unassigned.join(", ")
            ),
        )
    }
}

/// Kuhn's augmenting path step: tries to give pattern `i` an element, re-seating others.
/// Recursion depth is bounded by the number of patterns the author wrote.
fn augment(i: usize, fits: &[Vec<bool>], seen: &mut [bool], owner: &mut [Option<usize>]) -> bool {
    for j in 0..owner.len() {
        if !fits[i][j] || seen[j] {
            continue;
        }
        seen[j] = true;
        let free = match owner[j] {
            None => true,
            Some(other) => augment(other, fits, seen, owner),
        };
        if free {
            owner[j] = Some(i);
            return true;
        }
    }
    false
}

/// `$exact`: deep equality, numbers numerically, objects with exactly the same keys.
/// Reports the first difference at its own path.
fn exact(expected: &Value, actual: &Value, path: &Path<'_>) -> Outcome {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (i, (key, ev)) in e.iter().enumerate() {
                match a.get(key) {
                    Some(av) => descend(exact(ev, av, &path.key(key)), i)?,
                    None => {
                        return descend(
                            fail(
                                &path.key(key),
                                ev,
                                None,
                                "key is missing (`$exact`)".to_owned(),
                            ),
                            i,
                        );
                    }
                }
            }
            if let Some(extra) = a.keys().find(|k| !e.contains_key(k.as_str())) {
                return fail(
                    path,
                    expected,
                    Some(actual),
                    format!("unexpected key `{extra}` (`$exact` allows no extra keys)"),
                );
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return fail(
                    path,
                    expected,
                    Some(actual),
                    format!(
                        "expected an array of {} element(s), got {} (`$exact`)",
                        e.len(),
                        a.len()
                    ),
                );
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                descend(exact(ev, av, &path.index(i)), i)?;
            }
            Ok(())
        }
        (Value::Object(_) | Value::Array(_), _) | (_, Value::Object(_) | Value::Array(_)) => fail(
            path,
            expected,
            Some(actual),
            format!(
                "expected {}, got {} (`$exact`)",
                describe(expected),
                describe(actual)
            ),
        ),
        _ if scalar_eq(expected, actual) => Ok(()),
        _ => fail(
            path,
            expected,
            Some(actual),
            format!(
                "expected {}, got {} (`$exact`)",
                describe(expected),
                describe(actual)
            ),
        ),
    }
}

/// Equality of scalars, numbers compared numerically (`1 == 1.0`).
fn scalar_eq(pattern: &Value, actual: &Value) -> bool {
    match (pattern, actual) {
        (Value::Number(p), Value::Number(a)) => num_cmp(p, a) == Some(Ordering::Equal),
        _ => pattern == actual,
    }
}

/// A JSON number as an exact integer or a float.
enum Num {
    Int(i128),
    Float(f64),
}

fn num(n: &Number) -> Option<Num> {
    if let Some(i) = n.as_i64() {
        Some(Num::Int(i128::from(i)))
    } else if let Some(u) = n.as_u64() {
        Some(Num::Int(i128::from(u)))
    } else {
        n.as_f64().map(Num::Float)
    }
}

/// Numeric comparison that is exact between integers and between an integer and an integral
/// float (so `9007199254740993` is not equal to `9007199254740992.0`).
fn num_cmp(a: &Number, b: &Number) -> Option<Ordering> {
    match (num(a)?, num(b)?) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Int(x), Num::Float(y)) => int_float_cmp(x, y),
        (Num::Float(x), Num::Int(y)) => int_float_cmp(y, x).map(Ordering::reverse),
    }
}

fn int_float_cmp(i: i128, f: f64) -> Option<Ordering> {
    // 2^126: integral floats below this convert to i128 exactly. Otherwise either the float
    // is huge (any JSON integer, at most 64 bits, is far smaller in magnitude) or it has a
    // fraction (so it is below 2^52, and an integer that rounds in `as f64` is far larger):
    // in both cases the float comparison orders them correctly.
    const LIMIT: f64 = 8.507_059_173_023_462e37;
    if f.is_finite() && f.fract() == 0.0 && f.abs() < LIMIT {
        #[allow(clippy::cast_possible_truncation)]
        let fi = f as i128;
        Some(i.cmp(&fi))
    } else {
        #[allow(clippy::cast_precision_loss)]
        let fi = i as f64;
        fi.partial_cmp(&f)
    }
}

/// The JSON type name of a value.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

const SHORT: usize = 60;

/// A one-line, bounded rendering of a value for reasons: scalars as JSON, containers by size.
fn describe(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("an array of {} element(s)", a.len()),
        Value::Object(m) => format!("an object with {} key(s)", m.len()),
        _ => compact(v),
    }
}

/// Compact JSON, cut at [`SHORT`] characters so a reason stays on one readable line.
fn compact(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= SHORT {
        text
    } else {
        let cut: String = text.chars().take(SHORT).collect();
        format!("{cut}…")
    }
}
