//! `$unordered`: an array matched against a list of patterns in any order, as a bipartite
//! matching (augmenting paths), so no valid assignment is missed.

use super::compile::Node;
use super::fail::{Outcome, descend, fail, keep_closest, with_context};
use super::path::Path;
use super::text::describe;
use serde_json::Value;

/// How one element is matched against one pattern: the evaluator itself, passed in by its
/// caller (`eval`), so this module needs nothing of the module that calls it.
pub(super) type Eval = fn(&Node, Option<&Value>, &Path<'_>) -> Outcome;

/// `$unordered`: same length, and a one-to-one assignment of patterns to elements exists.
/// The assignment is a bipartite matching (augmenting paths), so no valid order is missed.
pub(super) fn unordered(
    node: &Node,
    items: &[Node],
    v: &Value,
    path: &Path<'_>,
    eval: Eval,
) -> Outcome {
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
