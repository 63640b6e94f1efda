//! A failed match and how close it came: the ranking `$one_of`, `$contains` and `$unordered`
//! use to report the alternative that got furthest, and the helpers every matcher builds its
//! failures with.

use super::Mismatch;
use super::path::Path;
use serde_json::Value;

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
    pub(super) quality: u8,
}

impl Fail {
    fn closeness(&self) -> (usize, u8) {
        (self.progress, self.quality)
    }
}

/// The result of matching one pattern node: `Ok`, or the failure and its closeness.
pub(super) type Outcome = Result<(), Box<Fail>>;

/// A failure at `path`, ranked by how far `actual` is from the kind of value `expected`.
pub(super) fn fail(
    path: &Path<'_>,
    expected: &Value,
    actual: Option<&Value>,
    reason: String,
) -> Outcome {
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
pub(super) fn descend(outcome: Outcome, matched_before: usize) -> Outcome {
    outcome.map_err(|mut f| {
        f.progress += matched_before + 1;
        f
    })
}

/// Keeps the failure that came closest to matching; on a tie, the earlier one.
pub(super) fn keep_closest(
    best: &mut Option<(usize, Box<Fail>)>,
    index: usize,
    candidate: Box<Fail>,
) {
    if best
        .as_ref()
        .is_none_or(|(_, b)| candidate.closeness() > b.closeness())
    {
        *best = Some((index, candidate));
    }
}

/// Prefixes the reason of a chosen alternative with why alternatives were tried at all.
pub(super) fn with_context(mut f: Box<Fail>, context: String) -> Outcome {
    f.mismatch.reason = format!("{context}: {}", f.mismatch.reason);
    Err(f)
}
