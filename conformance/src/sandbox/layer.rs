//! Layering two folder seeds: a target's default seed under a scenario's own.

use super::spec::DirSpec;

/// Layering for [`DirSpec`], a type of the language crate: a trait, since this crate cannot add
/// inherent methods to it.
pub trait Layer {
    /// This seed laid over `base`: every file, folder and symlink of both, where an entry of
    /// `self` replaces a file or symlink of `base` at the same path (a scenario's file wins
    /// over the target's default), and `self`'s git history, if any, replaces `base`'s.
    fn layered_over(&self, base: &DirSpec) -> DirSpec;
}

impl Layer for DirSpec {
    fn layered_over(&self, base: &DirSpec) -> DirSpec {
        let mut out = base.clone();
        for (path, file) in &self.files {
            out.symlinks.remove(path);
            out.files.insert(path.clone(), file.clone());
        }
        for (path, target) in &self.symlinks {
            out.files.remove(path);
            out.symlinks.insert(path.clone(), target.clone());
        }
        for dir in &self.dirs {
            if !out.dirs.contains(dir) {
                out.dirs.push(dir.clone());
            }
        }
        if self.git.is_some() {
            out.git = self.git.clone();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec::{FileSpec, GitSpec, SeedPath};
    use super::*;

    fn text(spec: &DirSpec, path: &str) -> Option<String> {
        match spec.files.get(path) {
            Some(FileSpec::Text(t)) => Some(t.clone()),
            _ => None,
        }
    }

    fn dirs(spec: &DirSpec) -> Vec<&str> {
        spec.dirs.iter().map(SeedPath::as_str).collect()
    }

    #[test]
    fn the_upper_seed_wins_path_by_path() {
        let base: DirSpec = serde_saphyr::from_str(
            "files: { hub.toml: default, keep.txt: kept, link-or-file: file }\n\
             dirs: [a, shared]\n\
             symlinks: { l: keep.txt, f: keep.txt }\n\
             git: { branch: base }\n",
        )
        .expect("base");
        let upper: DirSpec = serde_saphyr::from_str(
            "files: { hub.toml: mine, f: now a file }\n\
             dirs: [shared, b]\n\
             symlinks: { link-or-file: keep.txt }\n",
        )
        .expect("upper");
        let merged = upper.layered_over(&base);
        assert_eq!(text(&merged, "hub.toml").as_deref(), Some("mine"));
        assert_eq!(text(&merged, "keep.txt").as_deref(), Some("kept"));
        assert_eq!(text(&merged, "f").as_deref(), Some("now a file"));
        assert!(!merged.symlinks.contains_key("f"));
        assert!(!merged.files.contains_key("link-or-file"));
        assert_eq!(
            merged.symlinks.get("link-or-file").map(String::as_str),
            Some("keep.txt")
        );
        assert_eq!(
            merged.symlinks.get("l").map(String::as_str),
            Some("keep.txt")
        );
        assert_eq!(dirs(&merged), ["a", "shared", "b"]);
        assert_eq!(
            merged.git.as_ref().and_then(|g| g.branch.as_deref()),
            Some("base")
        );
        let with_git = DirSpec {
            git: Some(GitSpec {
                branch: Some("mine".into()),
                ..GitSpec::default()
            }),
            ..DirSpec::default()
        };
        let merged = with_git.layered_over(&base);
        assert_eq!(
            merged.git.as_ref().and_then(|g| g.branch.as_deref()),
            Some("mine")
        );
        assert!(merged.validate("workspace").is_ok());
    }

    #[test]
    fn two_spellings_of_one_path_are_one_entry() {
        let base: DirSpec =
            serde_saphyr::from_str("files: { ./conf//hub.toml: default }\ndirs: [a/]\n")
                .expect("base");
        let upper: DirSpec =
            serde_saphyr::from_str("files: { conf/hub.toml: mine }\ndirs: [./a]\n").expect("upper");
        let merged = upper.layered_over(&base);
        assert_eq!(merged.files.len(), 1);
        assert_eq!(text(&merged, "conf/hub.toml").as_deref(), Some("mine"));
        assert_eq!(dirs(&merged), ["a"]);
    }

    #[test]
    fn an_empty_seed_changes_nothing_either_way() {
        let base: DirSpec = serde_saphyr::from_str("files: { a: x }\ndirs: [d]\n").expect("base");
        let empty = DirSpec::default();
        let merged = empty.layered_over(&base);
        assert_eq!(text(&merged, "a").as_deref(), Some("x"));
        assert_eq!(dirs(&merged), ["d"]);
        let merged = base.layered_over(&empty);
        assert_eq!(text(&merged, "a").as_deref(), Some("x"));
    }
}
