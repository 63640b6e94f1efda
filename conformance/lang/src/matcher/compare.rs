//! Equality and order of JSON values as patterns mean them: numbers compared numerically and
//! exactly (`1 == 1.0`, but 2^53 + 1 is not 2^53), `$exact`'s deep equality reported at the
//! first difference.

use super::fail::{Outcome, descend, fail};
use super::path::Path;
use super::text::describe;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// `$exact`: deep equality, numbers numerically, objects with exactly the same keys.
/// Reports the first difference at its own path.
pub(super) fn exact(expected: &Value, actual: &Value, path: &Path<'_>) -> Outcome {
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
pub(super) fn scalar_eq(pattern: &Value, actual: &Value) -> bool {
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
pub(super) fn num_cmp(a: &Number, b: &Number) -> Option<Ordering> {
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
