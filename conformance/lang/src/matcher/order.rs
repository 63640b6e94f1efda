//! `$increasing`: every element of an array greater than the one before it (strictly), as
//! the progress page asks of `progress` values ("The `progress` value MUST increase with each
//! notification"). With a key, that member of each element is compared.

use super::compare::num_cmp;
use super::fail::{Outcome, fail};
use super::path::Path;
use super::text::describe;
use serde_json::Value;

/// Matches `actual` (present: the caller handles a missing key) against `$increasing`,
/// comparing the elements themselves (`key` `None`) or their member `key`.
pub(super) fn increasing(
    src: &Value,
    key: Option<&str>,
    actual: &Value,
    path: &Path<'_>,
) -> Outcome {
    let Value::Array(elems) = actual else {
        return fail(
            path,
            src,
            Some(actual),
            format!("`$increasing` needs an array, got {}", describe(actual)),
        );
    };
    let mut before: Option<&serde_json::Number> = None;
    for (i, elem) in elems.iter().enumerate() {
        let item = path.index(i);
        let member;
        let (value, at) = match key {
            None => (Some(elem), &item),
            Some(key) => {
                member = item.key(key);
                (elem.get(key), &member)
            }
        };
        let Some(value) = value else {
            return fail(
                at,
                src,
                None,
                "key is missing (`$increasing` compares numbers)".to_owned(),
            );
        };
        let Value::Number(n) = value else {
            return fail(
                at,
                src,
                Some(value),
                format!("`$increasing` compares numbers, got {}", describe(value)),
            );
        };
        if let Some(prev) = before
            && !num_cmp(n, prev).is_some_and(|o| o.is_gt())
        {
            return fail(
                at,
                src,
                Some(value),
                format!("{n} is not greater than the element before it, {prev}"),
            );
        }
        before = Some(n);
    }
    Ok(())
}
