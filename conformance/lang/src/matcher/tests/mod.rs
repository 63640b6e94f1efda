//! Tests of the matcher: the helpers they share; the tests are grouped by subject in the
//! modules declared below.

#![allow(clippy::unwrap_used)]

mod explanation;
mod increasing;
mod literals;
mod operators;
mod patterns;

use super::*;

#[track_caller]
fn ok(pattern: Value, actual: Value) {
    check_pattern(&pattern).unwrap();
    if let Err(m) = matches(&pattern, &actual) {
        panic!("expected a match, got:\n{}", explain(&m));
    }
}

#[track_caller]
fn bad(pattern: Value, actual: Value) -> Mismatch {
    check_pattern(&pattern).unwrap();
    matches(&pattern, &actual).unwrap_err()
}

/// The mismatch must be at `path`; returns it for further checks.
#[track_caller]
fn bad_at(pattern: Value, actual: Value, path: &str) -> Mismatch {
    let m = bad(pattern, actual);
    assert_eq!(m.path, path, "reason: {}", m.reason);
    m
}

#[track_caller]
fn pattern_error(pattern: Value) -> PatternError {
    check_pattern(&pattern).unwrap_err()
}
