use super::*;
use proptest::prelude::*;

/// A small, independent unified-diff generator (LCS edit script, GNU-style hunks and
/// "\ No newline at end of file" markers) used to check the applier.
fn udiff(a: &str, b: &str, context: usize) -> String {
    fn split(s: &str) -> Vec<(&str, bool)> {
        s.split_inclusive('\n')
            .map(|l| match l.strip_suffix('\n') {
                Some(t) => (t, true),
                None => (l, false),
            })
            .collect()
    }
    let (x, y) = (split(a), split(b));
    let (n, m) = (x.len(), y.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if x[i] == y[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // (tag, old position before the op, new position before the op, line)
    let mut ops: Vec<(char, usize, usize, (&str, bool))> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && x[i] == y[j] {
            ops.push((' ', i, j, x[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', i, j, y[j]));
            j += 1;
        } else {
            ops.push(('-', i, j, x[i]));
            i += 1;
        }
    }
    let changes: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut out = String::from("--- a/file.txt\n+++ b/file.txt\n");
    let mut k = 0;
    while k < changes.len() {
        let start = changes[k].saturating_sub(context);
        let mut last = changes[k];
        while k + 1 < changes.len() && changes[k + 1] <= last + 2 * context + 1 {
            k += 1;
            last = changes[k];
        }
        k += 1;
        let end = (last + context + 1).min(ops.len());
        let body = &ops[start..end];
        let old_n = body.iter().filter(|o| o.0 != '+').count();
        let new_n = body.iter().filter(|o| o.0 != '-').count();
        let (o0, n0) = (body[0].1, body[0].2);
        let os = if old_n == 0 { o0 } else { o0 + 1 };
        let ns = if new_n == 0 { n0 } else { n0 + 1 };
        out.push_str(&format!("@@ -{os},{old_n} +{ns},{new_n} @@\n"));
        for (tag, _, _, (text, nl)) in body {
            out.push(*tag);
            out.push_str(text);
            out.push('\n');
            if !nl {
                out.push_str("\\ No newline at end of file\n");
            }
        }
    }
    out
}

#[test]
fn applies_simple_hunk_with_headers() {
    let orig = "one\ntwo\nthree\n";
    let diff = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let r = apply_unified_diff(orig, diff).unwrap();
    assert_eq!(r.text, "one\nTWO\nthree\n");
    assert_eq!((r.additions, r.deletions, r.hunks), (1, 1, 1));
}

#[test]
fn headers_optional_and_preamble_ignored() {
    let orig = "a\nb\n";
    let diff = "diff --git a/x b/x\nindex 123..456 100644\n@@ -1,2 +1,3 @@\n a\n+mid\n b\n";
    assert_eq!(apply_unified_diff(orig, diff).unwrap().text, "a\nmid\nb\n");
    // Header without counts means one line.
    assert_eq!(
        apply_unified_diff("a\n", "@@ -1 +1 @@\n-a\n+b\n")
            .unwrap()
            .text,
        "b\n"
    );
}

#[test]
fn no_newline_at_end_of_file_both_ways() {
    let diff = "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n";
    assert_eq!(apply_unified_diff("a\nb", diff).unwrap().text, "a\nb\n");
    let diff = "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n";
    assert_eq!(apply_unified_diff("a\nb\n", diff).unwrap().text, "a\nb");
    // Context claiming a newline that the file lacks does not match.
    let diff = "@@ -1,2 +1,2 @@\n-a\n+A\n b\n";
    assert!(matches!(
        apply_unified_diff("a\nb", diff),
        Err(PatchError::DoesNotApply { .. })
    ));
}

#[test]
fn creation_and_deletion_of_all_content() {
    let diff = "--- /dev/null\n+++ b/new\n@@ -0,0 +1,2 @@\n+x\n+y\n";
    assert_eq!(apply_unified_diff("", diff).unwrap().text, "x\ny\n");
    let diff = "@@ -1,2 +0,0 @@\n-x\n-y\n";
    assert_eq!(apply_unified_diff("x\ny\n", diff).unwrap().text, "");
}

#[test]
fn mismatching_context_is_a_conflict() {
    let diff = "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let e = apply_unified_diff("one\n2\nthree\n", diff).unwrap_err();
    assert_eq!(
        e,
        PatchError::DoesNotApply {
            hunk: 1,
            expected_line: 1
        }
    );
    assert_eq!(e.code(), "PATCH_DOES_NOT_APPLY");
    // Whitespace differences are differences.
    assert!(apply_unified_diff("one\ntwo \nthree\n", diff).is_err());
}

#[test]
fn offset_hunks_are_found_but_not_reordered() {
    let orig = "x\nx\none\ntwo\nthree\n";
    let diff = "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    assert_eq!(
        apply_unified_diff(orig, diff).unwrap().text,
        "x\nx\none\nTWO\nthree\n"
    );
    // Two hunks; the second must come after the first.
    let orig = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let diff = "@@ -2,1 +2,1 @@\n-b\n+B\n@@ -7,1 +7,1 @@\n-g\n+G\n";
    assert_eq!(
        apply_unified_diff(orig, diff).unwrap().text,
        "a\nB\nc\nd\ne\nf\nG\nh\n"
    );
    let diff = "@@ -7,1 +7,1 @@\n-g\n+G\n@@ -2,1 +2,1 @@\n-b\n+B\n";
    assert!(apply_unified_diff(orig, diff).is_err());
}

#[test]
fn malformed_inputs() {
    for (diff, code) in [
        ("", "PATCH_EMPTY"),
        ("just text\n", "PATCH_EMPTY"),
        ("@@ -1,2 +1,2 @@\n a\n", "PATCH_MALFORMED"),
        ("@@ bogus @@\n", "PATCH_MALFORMED"),
        ("@@ -x +1 @@\n", "PATCH_MALFORMED"),
        ("@@ -1,1 +1,1 @@\n-a\n+b\n*junk\n", "PATCH_MALFORMED"),
        (
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
            "PATCH_MULTIPLE_FILES",
        ),
        (
            "@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\n",
            "PATCH_MULTIPLE_FILES",
        ),
    ] {
        assert_eq!(
            apply_unified_diff("a\n", diff).unwrap_err().code(),
            code,
            "{diff:?}"
        );
    }
}

#[test]
fn a_moved_hunk_goes_to_the_nearest_match_and_the_first_of_a_tie() {
    let orig = "x\na\nx\nx\nx\nx\na\n";
    // Stated at line 6 (an `x`): the `a` at line 7 is nearer than the one at line 2.
    let r = apply_unified_diff(orig, "@@ -6,1 +6,1 @@\n-a\n+A\n").unwrap();
    assert_eq!(r.text, "x\na\nx\nx\nx\nx\nA\n");
    // Stated at line 5: lines 3 and 7 are as near; the earlier one wins.
    let orig = "x\nx\na\nx\nx\nx\na\n";
    let r = apply_unified_diff(orig, "@@ -5,1 +5,1 @@\n-a\n+A\n").unwrap();
    assert_eq!(r.text, "x\nx\nA\nx\nx\nx\na\n");
}

#[test]
fn a_line_without_newline_gets_one_when_others_follow() {
    let r =
        apply_unified_diff("a\nb", "@@ -0,0 +1 @@\n+z\n\\ No newline at end of file\n").unwrap();
    assert_eq!(r.text, "z\na\nb");
}

#[test]
fn a_malformed_diff_names_its_line() {
    let line = |diff: &str| match apply_unified_diff("a\n", diff).unwrap_err() {
        PatchError::Malformed { line, reason } => (line, reason),
        other => panic!("{diff:?}: {other:?}"),
    };
    // The hunk header's own line, wherever it is; signs in the wrong order or missing.
    let header = "bad hunk header".to_string();
    assert_eq!(line("--- a/x\n+++ b/x\n@@ +1 -1 @@\n"), (3, header.clone()));
    assert_eq!(line("@@ -1 x1 @@\n-a\n"), (1, header.clone()));
    assert_eq!(line("@@ y1 +1 @@\n-a\n"), (1, header));
    // A line that is no hunk line inside a hunk: that line.
    assert_eq!(
        line("@@ -1,2 +1,2 @@\n a\n*junk\n"),
        (3, "hunk is shorter than its header says".to_string())
    );
    // More removed lines than stated, though the added ones still fit: the line past the count.
    assert_eq!(
        line("@@ -1,1 +1,2 @@\n a\n-b\n+c\n"),
        (3, "hunk is longer than its header says".to_string())
    );
    assert_eq!(
        line("@@ -1,2 +1,1 @@\n a\n+c\n-b\n"),
        (3, "hunk is longer than its header says".to_string())
    );
    // A hunk cut short: the first line past the end of the diff.
    assert_eq!(
        line("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n"),
        (5, "hunk is shorter than its header says".to_string())
    );
}

#[test]
fn crlf_content_is_matched_exactly() {
    let orig = "a\r\nb\r\n";
    let diff = "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n";
    assert_eq!(apply_unified_diff(orig, diff).unwrap().text, "a\r\nc\r\n");
    assert!(apply_unified_diff(orig, "@@ -1,2 +1,2 @@\n a\n-b\n+c\n").is_err());
}

#[test]
fn generated_diff_applies() {
    let a = "fn main() {\n    println!(\"hi\");\n}\n";
    let b = "fn main() {\n    println!(\"hello\");\n    return;\n}";
    let d = udiff(a, b, 3);
    let r = apply_unified_diff(a, &d).unwrap();
    assert_eq!(r.text, b);
}

fn lines() -> impl Strategy<Value = Vec<String>> {
    // A small alphabet makes repeated lines (and thus ambiguous matches) common.
    prop::collection::vec(prop_oneof!["[abc]{0,3}", Just(String::new()), " ?x"], 0..30)
}

fn join(lines: &[String], final_newline: bool) -> String {
    let mut s = lines.join("\n");
    if final_newline && !lines.is_empty() {
        s.push('\n');
    }
    s
}

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Insert(usize, String),
    Replace(usize, String),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        prop_oneof![
            any::<usize>().prop_map(Edit::Delete),
            (any::<usize>(), "[abcd]{0,3}").prop_map(|(i, s)| Edit::Insert(i, s)),
            (any::<usize>(), "[abcd]{0,3}").prop_map(|(i, s)| Edit::Replace(i, s)),
        ],
        0..8,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// A diff generated (by an independent implementation) from random line edits applies to
    /// the original and reproduces the target exactly.
    #[test]
    fn prop_generated_diffs_apply(
        orig in lines(),
        edits in edits(),
        nl_a in any::<bool>(),
        nl_b in any::<bool>(),
        context in 0usize..4,
    ) {
        let mut target = orig.clone();
        for e in edits {
            match e {
                Edit::Delete(i) if !target.is_empty() => { let i = i % target.len(); target.remove(i); }
                Edit::Insert(i, s) => { let i = i % (target.len() + 1); target.insert(i, s); }
                Edit::Replace(i, s) if !target.is_empty() => { let i = i % target.len(); target[i] = s; }
                _ => {}
            }
        }
        let a = join(&orig, nl_a);
        let b = join(&target, nl_b);
        let d = udiff(&a, &b, context);
        if a == b {
            prop_assert!(apply_unified_diff(&a, &d).is_err());
        } else {
            let r = apply_unified_diff(&a, &d);
            prop_assert!(r.is_ok(), "diff failed: {:?}\n{}", r, d);
            prop_assert_eq!(r.unwrap().text, b, "diff:\n{}", d);
        }
    }

    /// Garbage never panics.
    #[test]
    fn prop_never_panics(orig in "[a-c\n]{0,40}", diff in "[-+ @,0-9a-c\\\\\n]{0,80}") {
        let _ = apply_unified_diff(&orig, &diff);
    }
}
