//! The organizer's rules on their own: conditions, category names, both layers.

#![allow(clippy::unwrap_used)]

use super::fsops::Kind;
use super::rules::{Rules, Verdict};
use crate::result::Code;
use mcp_safety_core::policy::raw::RawPolicy;

fn rules(files: &str) -> Result<Rules, super::rules::RuleError> {
    let raw: RawPolicy = toml::from_str(files).unwrap();
    Rules::from_raw(&raw.files)
}

fn restraint(when: &str) -> Rules {
    rules(&format!(
        "[files.categories]\nDocuments = [\".pdf\", \".txt\"]\n[[files.skip]]\nlayer = \"restraint\"\nwhen = [\"{when}\"]\nreason = \"r\"\n"
    ))
    .unwrap()
}

fn skipped(r: &Rules, name: &str) -> bool {
    matches!(
        r.plan_verdict(name, Kind::File),
        Verdict::Skip {
            code: Code::NeedsExplicitRequest,
            ..
        }
    )
}

#[test]
fn each_condition_matches_what_it_names_and_nothing_else() {
    let r = restraint("unsafe-name");
    for odd in ["-rf.txt", " lead.txt", "trail.txt ", "bell\u{7}.txt"] {
        assert!(skipped(&r, odd), "{odd:?}");
    }
    for fine in ["report.pdf", "a-b.txt", "a b.txt"] {
        assert!(!skipped(&r, fine), "{fine:?}");
    }
    let r = restraint("installer");
    assert!(skipped(&r, "SETUP.EXE") && skipped(&r, "x.AppImage"));
    assert!(!skipped(&r, "exe.txt"));
    let r = restraint("dotfile");
    assert!(skipped(&r, ".bashrc") && !skipped(&r, "a.bashrc"));
    // "symlink" is a known condition; it matches symlinks (which the protection layer
    // refuses anyway), never a regular file.
    let r = restraint("symlink");
    assert!(!skipped(&r, "report.pdf"));
    assert!(matches!(
        r.plan_verdict("link.pdf", Kind::Symlink),
        Verdict::Skip {
            code: Code::PolicyDenied,
            ..
        }
    ));
    let e = rules("[[files.skip]]\nlayer = \"restraint\"\nwhen = [\"bogus\"]\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "files.skip[0].when[0] = \"bogus\" is not a condition (use dotfile, installer, unsafe-name or symlink)"
    );
}

#[test]
fn a_category_must_be_a_folder_name() {
    for bad in ["", "a/b", ".", ".."] {
        let e = rules(&format!("[files.categories]\n\"{bad}\" = [\".pdf\"]\n")).unwrap_err();
        assert!(e.problem.contains("is not a folder name"), "{bad:?}: {e}");
        assert_eq!(e.key, format!("files.categories.{bad:?}"));
    }
    for good in ["Docs", ".hidden", "a.b", "..."] {
        let r = rules(&format!("[files.categories]\n\"{good}\" = [\".PDF\"]\n")).unwrap();
        assert_eq!(r.category("x.pdf").as_deref(), Some(good), "{good:?}");
    }
}
