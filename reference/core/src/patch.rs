//! Applying a single-file unified diff, exactly.
//!
//! Accepted input: optional preamble lines (`diff --git`, `index`, ...), optional `---`/`+++`
//! headers (file names are ignored: the caller already chose the target path), then one or
//! more `@@ -a[,b] +c[,d] @@` hunks whose line counts must match their bodies. Context and
//! removed lines must match the original exactly (including a missing final newline, marked by
//! `\ No newline at end of file`). A hunk whose text is not found at its stated line is looked
//! for at the nearest other position after the previous hunk (like `patch` with offset but
//! no fuzz); if it is found nowhere, [`PatchError::DoesNotApply`].
//! A second file's headers after a hunk are refused ([`PatchError::MultipleFiles`]).

use serde::Serialize;

/// The patched text and line statistics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatchResult {
    /// The new content.
    pub text: String,
    /// Lines added.
    pub additions: usize,
    /// Lines removed.
    pub deletions: usize,
    /// Hunks applied.
    pub hunks: usize,
}

/// Why a diff was not applied. Nothing is ever partially applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatchError {
    /// The diff is not a well-formed unified diff.
    #[error("malformed diff at line {line}: {reason}")]
    Malformed {
        /// 1-based line in the diff.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The diff has no hunks.
    #[error("diff contains no hunks")]
    Empty,
    /// The diff touches more than one file.
    #[error("diff touches more than one file")]
    MultipleFiles,
    /// A hunk's context or removed lines do not match the original (a conflict).
    #[error("hunk {hunk} does not apply (expected at line {expected_line})")]
    DoesNotApply {
        /// 1-based hunk number.
        hunk: usize,
        /// The 1-based original line the hunk names.
        expected_line: usize,
    },
}

impl PatchError {
    /// A stable machine code: `PATCH_MALFORMED`, `PATCH_EMPTY`, `PATCH_MULTIPLE_FILES`,
    /// `PATCH_DOES_NOT_APPLY`.
    pub fn code(&self) -> &'static str {
        match self {
            PatchError::Malformed { .. } => "PATCH_MALFORMED",
            PatchError::Empty => "PATCH_EMPTY",
            PatchError::MultipleFiles => "PATCH_MULTIPLE_FILES",
            PatchError::DoesNotApply { .. } => "PATCH_DOES_NOT_APPLY",
        }
    }
}

/// One line with its terminator state.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line<'a> {
    text: &'a str,
    newline: bool,
}

#[derive(Debug)]
struct Hunk<'a> {
    old_start: usize,
    old: Vec<Line<'a>>,
    new: Vec<Line<'a>>,
    additions: usize,
    deletions: usize,
}

fn split_lines(s: &str) -> Vec<Line<'_>> {
    s.split_inclusive('\n')
        .map(|l| match l.strip_suffix('\n') {
            Some(t) => Line {
                text: t,
                newline: true,
            },
            None => Line {
                text: l,
                newline: false,
            },
        })
        .collect()
}

fn parse_range(s: &str, line: usize) -> Result<(usize, usize), PatchError> {
    let bad = || PatchError::Malformed {
        line,
        reason: format!("bad range {s:?}"),
    };
    let (a, b) = match s.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let start = a.parse::<usize>().map_err(|_| bad())?;
    let count = match b {
        Some(b) => b.parse::<usize>().map_err(|_| bad())?,
        None => 1,
    };
    Ok((start, count))
}

fn parse(diff: &str) -> Result<Vec<Hunk<'_>>, PatchError> {
    let lines = split_lines(diff);
    let mut hunks = Vec::new();
    let mut i = 0;
    let mut seen_header = false;
    while i < lines.len() {
        let l = lines[i].text;
        let lineno = i + 1;
        if let Some(rest) = l.strip_prefix("@@ ") {
            let inner = rest.split(" @@").next().unwrap_or("");
            let mut parts = inner.split_whitespace();
            let (old_r, new_r) = match (parts.next(), parts.next()) {
                (Some(o), Some(n)) if o.starts_with('-') && n.starts_with('+') => (o, n),
                _ => {
                    return Err(PatchError::Malformed {
                        line: lineno,
                        reason: "bad hunk header".into(),
                    });
                }
            };
            if !rest.contains(" @@") {
                return Err(PatchError::Malformed {
                    line: lineno,
                    reason: "bad hunk header".into(),
                });
            }
            let (old_start, old_count) = parse_range(&old_r[1..], lineno)?;
            let (_new_start, new_count) = parse_range(&new_r[1..], lineno)?;
            i += 1;
            let mut h = Hunk {
                old_start,
                old: Vec::new(),
                new: Vec::new(),
                additions: 0,
                deletions: 0,
            };
            while h.old.len() < old_count || h.new.len() < new_count {
                let Some(bl) = lines.get(i) else {
                    return Err(PatchError::Malformed {
                        line: i + 1,
                        reason: "hunk is shorter than its header says".into(),
                    });
                };
                let (tag, text) = match bl.text.chars().next() {
                    Some(c @ (' ' | '-' | '+')) => (c, &bl.text[1..]),
                    // Some tools strip the space of empty context lines.
                    None => (' ', ""),
                    Some('\\') => {
                        i += 1;
                        continue;
                    }
                    Some(_) => {
                        return Err(PatchError::Malformed {
                            line: i + 1,
                            reason: "hunk is shorter than its header says".into(),
                        });
                    }
                };
                // A following "\ No newline at end of file" strips this line's newline.
                let newline = !lines.get(i + 1).is_some_and(|n| n.text.starts_with('\\'));
                let line = Line { text, newline };
                match tag {
                    ' ' => {
                        h.old.push(line.clone());
                        h.new.push(line);
                    }
                    '-' => {
                        h.old.push(line);
                        h.deletions += 1;
                    }
                    _ => {
                        h.new.push(line);
                        h.additions += 1;
                    }
                }
                i += 1;
                if h.old.len() > old_count || h.new.len() > new_count {
                    return Err(PatchError::Malformed {
                        line: i,
                        reason: "hunk is longer than its header says".into(),
                    });
                }
            }
            // Skip a trailing "\ No newline" marker belonging to the last line.
            while lines.get(i).is_some_and(|n| n.text.starts_with('\\')) {
                i += 1;
            }
            hunks.push(h);
            continue;
        }
        if l.starts_with("--- ") || l.starts_with("+++ ") {
            if !hunks.is_empty() && l.starts_with("--- ") {
                return Err(PatchError::MultipleFiles);
            }
            if l.starts_with("--- ") && seen_header && hunks.is_empty() {
                return Err(PatchError::MultipleFiles);
            }
            if l.starts_with("--- ") {
                seen_header = true;
            }
        } else if !hunks.is_empty() && !l.trim().is_empty() {
            if l.starts_with("diff ") {
                return Err(PatchError::MultipleFiles);
            }
            return Err(PatchError::Malformed {
                line: lineno,
                reason: "unexpected line after a hunk".into(),
            });
        }
        i += 1;
    }
    if hunks.is_empty() {
        return Err(PatchError::Empty);
    }
    Ok(hunks)
}

fn matches_at(orig: &[Line<'_>], at: usize, old: &[Line<'_>]) -> bool {
    at + old.len() <= orig.len() && orig[at..at + old.len()] == *old
}

/// Applies `diff` to `original`; see the module documentation.
pub fn apply_unified_diff(original: &str, diff: &str) -> Result<PatchResult, PatchError> {
    let hunks = parse(diff)?;
    let orig = split_lines(original);
    let mut out: Vec<Line<'_>> = Vec::with_capacity(orig.len());
    let mut pos = 0; // next unconsumed original line
    let (mut additions, mut deletions) = (0, 0);
    for (n, h) in hunks.iter().enumerate() {
        // `-0,0` (or `-N,0`) means "insert after line N".
        let stated = if h.old.is_empty() {
            h.old_start
        } else {
            h.old_start.saturating_sub(1)
        };
        let found = if stated >= pos && matches_at(&orig, stated, &h.old) {
            Some(stated)
        } else {
            // Nearest match at or after `pos`.
            let max = orig.len().saturating_sub(h.old.len());
            let mut best: Option<usize> = None;
            for cand in pos..=max.max(pos) {
                if matches_at(&orig, cand, &h.old)
                    && best.is_none_or(|b| cand.abs_diff(stated) < b.abs_diff(stated))
                {
                    best = Some(cand);
                }
            }
            best
        };
        let at = found.ok_or(PatchError::DoesNotApply {
            hunk: n + 1,
            expected_line: h.old_start,
        })?;
        out.extend_from_slice(&orig[pos..at]);
        out.extend(h.new.iter().cloned());
        pos = at + h.old.len();
        additions += h.additions;
        deletions += h.deletions;
    }
    out.extend_from_slice(&orig[pos..]);
    let mut text = String::with_capacity(original.len() + diff.len());
    for (i, l) in out.iter().enumerate() {
        text.push_str(l.text);
        // A line that lost its newline can only be the last one; if more follow, it needs one.
        if l.newline || i + 1 < out.len() {
            text.push('\n');
        }
    }
    Ok(PatchResult {
        text,
        additions,
        deletions,
        hunks: hunks.len(),
    })
}

#[cfg(test)]
mod tests;
