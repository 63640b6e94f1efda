//! Parsing git's machine-readable output: `status --porcelain=v1 -z --branch` and
//! `diff --numstat -z`. Pure functions over captured bytes; nothing here runs git.
//!
//! Captured output may have been cut at the capture limit. Records are NUL-terminated, so
//! whatever follows the last NUL is an incomplete record and is ignored.

use crate::contract::GitStatusEntry;

/// Unexpected git output (a format this parser does not understand).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unexpected git output: {0}")]
pub struct ParseError(pub &'static str);

/// The complete NUL-terminated records of `bytes` (a trailing partial record is dropped).
fn records(bytes: &[u8]) -> Vec<&[u8]> {
    let mut parts: Vec<&[u8]> = bytes.split(|b| *b == 0).collect();
    // The piece after the last NUL is empty for complete output, partial when cut.
    parts.pop();
    parts
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Parsed `git status --porcelain=v1 -z --branch`.
#[derive(Debug, Clone, Default)]
pub struct StatusParse {
    /// The current branch; `None` when detached or when git names none.
    pub branch: Option<String>,
    /// One entry per path, in git's order; renames and copies carry the new path.
    pub entries: Vec<GitStatusEntry>,
}

/// The branch named by a porcelain v1 `## ` header (without the `## ` prefix).
///
/// Forms: `main`, `main...origin/main [ahead 1]`, `No commits yet on main`,
/// `Initial commit on main` (older git), `HEAD (no branch)` (detached).
pub fn branch_from_header(header: &str) -> Option<String> {
    let rest = header
        .strip_prefix("No commits yet on ")
        .or_else(|| header.strip_prefix("Initial commit on "))
        .unwrap_or(header);
    if rest.starts_with("HEAD (no branch)") {
        return None;
    }
    // Branch names cannot contain "..." (no "..") nor spaces (check-ref-format).
    let name = rest.split("...").next().unwrap_or_default();
    let name = name.split(' ').next().unwrap_or_default();
    (!name.is_empty()).then(|| name.to_string())
}

/// Parses `git status --porcelain=v1 -z --branch` output.
///
/// Each entry is `XY path` NUL; when X or Y is `R` or `C` a second record holds the original
/// path (ignored: the entry reports the new path).
pub fn parse_status_z(bytes: &[u8]) -> Result<StatusParse, ParseError> {
    let mut out = StatusParse::default();
    let mut recs = records(bytes).into_iter();
    while let Some(rec) = recs.next() {
        if let Some(header) = rec.strip_prefix(b"## ") {
            out.branch = branch_from_header(&lossy(header));
            continue;
        }
        if rec.len() < 4 || rec[2] != b' ' {
            return Err(ParseError("malformed status record"));
        }
        let (x, y) = (rec[0], rec[1]);
        if !x.is_ascii_graphic() && x != b' ' || !y.is_ascii_graphic() && y != b' ' {
            return Err(ParseError("malformed status code"));
        }
        if matches!(x, b'R' | b'C') || matches!(y, b'R' | b'C') {
            // The original path; absent only when the output was cut right here.
            recs.next();
        }
        out.entries.push(GitStatusEntry {
            status: lossy(&rec[..2]),
            path: lossy(&rec[3..]),
        });
    }
    Ok(out)
}

/// Totals of `git diff --numstat -z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NumstatTotals {
    /// Added lines over all text files.
    pub additions: u64,
    /// Deleted lines over all text files.
    pub deletions: u64,
    /// True when any file is binary (`-` counts).
    pub binary: bool,
}

/// Parses `git diff --numstat -z` output: `A TAB D TAB path` NUL, or for renames and copies
/// `A TAB D TAB` NUL `old` NUL `new` NUL. Binary files have `-` for both counts.
pub fn parse_numstat_z(bytes: &[u8]) -> Result<NumstatTotals, ParseError> {
    let mut totals = NumstatTotals::default();
    let mut recs = records(bytes).into_iter();
    while let Some(rec) = recs.next() {
        let mut fields = rec.splitn(3, |b| *b == b'\t');
        let (Some(a), Some(d), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            return Err(ParseError("malformed numstat record"));
        };
        if path.is_empty() {
            // Rename or copy: the old and new paths follow as two records.
            recs.next();
            recs.next();
        }
        match (a, d) {
            (b"-", b"-") => totals.binary = true,
            _ => {
                totals.additions = totals.additions.saturating_add(count(a)?);
                totals.deletions = totals.deletions.saturating_add(count(d)?);
            }
        }
    }
    Ok(totals)
}

fn count(field: &[u8]) -> Result<u64, ParseError> {
    std::str::from_utf8(field)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or(ParseError("malformed numstat count"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(status: &str, path: &str) -> (String, String) {
        (status.to_string(), path.to_string())
    }

    fn pairs(p: &StatusParse) -> Vec<(String, String)> {
        p.entries
            .iter()
            .map(|e| (e.status.clone(), e.path.clone()))
            .collect()
    }

    #[test]
    fn branch_header_forms() {
        assert_eq!(branch_from_header("main").as_deref(), Some("main"));
        assert_eq!(
            branch_from_header("feature/x...origin/feature/x [ahead 1, behind 2]").as_deref(),
            Some("feature/x")
        );
        assert_eq!(
            branch_from_header("No commits yet on trunk").as_deref(),
            Some("trunk")
        );
        assert_eq!(
            branch_from_header("Initial commit on dev").as_deref(),
            Some("dev")
        );
        assert_eq!(branch_from_header("HEAD (no branch)"), None);
        assert_eq!(branch_from_header(""), None);
    }

    #[test]
    fn status_entries_and_renames() {
        let out = b"## main...origin/main [ahead 1]\0 M a.txt\0R  new name.txt\0old.txt\0?? dir/u v\0UU conflict\0";
        let p = parse_status_z(out).expect("parses");
        assert_eq!(p.branch.as_deref(), Some("main"));
        assert_eq!(
            pairs(&p),
            vec![
                entry(" M", "a.txt"),
                entry("R ", "new name.txt"),
                entry("??", "dir/u v"),
                entry("UU", "conflict"),
            ]
        );
    }

    #[test]
    fn status_clean_detached_and_empty() {
        let p = parse_status_z(b"## HEAD (no branch)\0").expect("parses");
        assert!(p.branch.is_none() && p.entries.is_empty());
        let p = parse_status_z(b"").expect("parses");
        assert!(p.branch.is_none() && p.entries.is_empty());
    }

    #[test]
    fn status_paths_with_newlines_and_arrows_are_literal() {
        let p = parse_status_z(b"?? a -> b\0?? line\nbreak\0").expect("parses");
        assert_eq!(
            pairs(&p),
            vec![entry("??", "a -> b"), entry("??", "line\nbreak")]
        );
    }

    #[test]
    fn status_cut_output_drops_the_partial_record() {
        let p = parse_status_z(b"## main\0 M a\0 M partial-na").expect("parses");
        assert_eq!(pairs(&p), vec![entry(" M", "a")]);
        // A rename whose original path was cut still reports the new path.
        let p = parse_status_z(b"R  new\0ol").expect("parses");
        assert_eq!(pairs(&p), vec![entry("R ", "new")]);
    }

    #[test]
    fn status_malformed_is_an_error() {
        assert!(parse_status_z(b"garbage\0").is_err());
        assert!(parse_status_z(b"M\0").is_err());
        assert!(parse_status_z(b"\x01M a\0").is_err());
    }

    #[test]
    fn numstat_sums_text_and_flags_binary() {
        let t = parse_numstat_z(b"3\t1\ta.txt\0-\t-\timg.png\0\x30\t2\tb c.txt\0").expect("parses");
        assert_eq!(
            t,
            NumstatTotals {
                additions: 3,
                deletions: 3,
                binary: true
            }
        );
    }

    #[test]
    fn numstat_renames_skip_both_paths() {
        let t = parse_numstat_z(b"1\t0\t\0old\0new\0\x32\t2\tz\0").expect("parses");
        assert_eq!(
            t,
            NumstatTotals {
                additions: 3,
                deletions: 2,
                binary: false
            }
        );
    }

    #[test]
    fn numstat_paths_containing_tabs() {
        let t = parse_numstat_z(b"1\t1\ta\tb\0").expect("parses");
        assert_eq!((t.additions, t.deletions), (1, 1));
    }

    #[test]
    fn numstat_empty_and_malformed() {
        assert_eq!(
            parse_numstat_z(b"").expect("parses"),
            NumstatTotals::default()
        );
        assert!(parse_numstat_z(b"x\t1\ta\0").is_err());
        assert!(parse_numstat_z(b"nofields\0").is_err());
        // A cut trailing record is ignored.
        assert_eq!(
            parse_numstat_z(b"1\t2\ta\0\x35\t")
                .expect("parses")
                .additions,
            1
        );
    }
}
