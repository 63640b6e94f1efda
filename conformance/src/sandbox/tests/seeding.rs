//! Seeding: the sandbox layout and variables, files, folders and symlinks, paths refused when
//! read, never writing through a symlink, and expansion errors naming the file.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::*;

#[test]
fn layout_and_variables() {
    let sandbox = Sandbox::create(&spec("dirs: {outside: {}}"), &no_expand).unwrap();
    let root = sandbox.root().to_path_buf();
    assert!(
        root.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("mcpc-")
    );
    assert_eq!(root, fs::canonicalize(&root).unwrap());
    for dir in [
        sandbox.workspace(),
        sandbox.state(),
        sandbox.home(),
        sandbox.tmp(),
    ] {
        assert!(dir.is_dir() && dir.starts_with(&root));
    }
    assert_eq!(
        sandbox.dir("outside"),
        Some(root.join("dirs/outside").as_path())
    );
    assert_eq!(sandbox.dir("missing"), None);
    let vars = sandbox.variables();
    assert_eq!(
        vars.keys().collect::<Vec<_>>(),
        [
            "dirs.outside",
            "home",
            "sandbox",
            "state",
            "tmp",
            "workspace"
        ]
    );
    assert_eq!(vars["sandbox"], root.to_string_lossy());
    assert_eq!(vars["workspace"], root.join("workspace").to_string_lossy());
    sandbox.close().unwrap();
    assert!(!root.exists());
}

#[test]
fn seeds_files_dirs_and_symlinks() {
    let spec = spec(
        r##"
workspace:
  files:
    README.md: "hello ${greeting}\n"
    src/deep/main.rs: "fn main() {}\n"
    bin/run.sh: { content: "#!/bin/sh\n", mode: "0755" }
    data.bin: { base64: "AAEC/w==" }
    big.txt: { repeat: "abc", bytes: 100000 }
    empty: {}
  dirs: [empty-dir, nested/empty]
  symlinks:
    escape: ../dirs/outside
    absolute: "${dirs.outside}/secret.txt"
    src/up: ..
dirs:
  outside:
    files:
      secret.txt: top secret
"##,
    );
    let extra = BTreeMap::from([("greeting".to_owned(), "world".to_owned())]);
    let sandbox = Sandbox::create(&spec, &expander(extra)).unwrap();

    let ws = sandbox.workspace();
    assert_eq!(
        fs::read_to_string(ws.join("README.md")).unwrap(),
        "hello world\n"
    );
    assert_eq!(
        fs::read_to_string(ws.join("src/deep/main.rs")).unwrap(),
        "fn main() {}\n"
    );
    assert_eq!(fs::read(ws.join("data.bin")).unwrap(), [0, 1, 2, 255]);
    let big = fs::read(ws.join("big.txt")).unwrap();
    assert_eq!(big.len(), 100_000);
    assert!(big.starts_with(b"abcabc") && big.ends_with(b"bca"));
    assert_eq!(fs::read(ws.join("empty")).unwrap(), b"");
    assert!(ws.join("empty-dir").is_dir() && ws.join("nested/empty").is_dir());

    let mode = |p: &str| fs::metadata(ws.join(p)).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode("bin/run.sh"), 0o755);
    assert_eq!(mode("README.md"), 0o644);
    assert_eq!(mode("src/deep"), 0o755);

    let outside = sandbox.dir("outside").unwrap();
    assert_eq!(
        fs::read_link(ws.join("escape")).unwrap(),
        Path::new("../dirs/outside")
    );
    assert_eq!(
        fs::read_link(ws.join("absolute")).unwrap(),
        outside.join("secret.txt")
    );
    assert_eq!(
        fs::read_to_string(ws.join("escape/secret.txt")).unwrap(),
        "top secret"
    );
    assert_eq!(fs::read_link(ws.join("src/up")).unwrap(), Path::new(".."));
}

/// A bad path never reaches seeding: the scenario is refused when it is read, with the line and
/// column of the path and what is wrong with it.
#[test]
fn bad_paths_are_refused_when_read() {
    let cases = [
        (
            "workspace: {files: {'../x': a}}",
            "\"../x\": contains a `..` component",
            21,
        ),
        (
            "workspace: {files: {'a/../../x': a}}",
            "\"a/../../x\": contains a `..`",
            21,
        ),
        (
            "workspace: {files: {'/etc/passwd': a}}",
            "\"/etc/passwd\": is absolute",
            21,
        ),
        ("workspace: {files: {'': a}}", "\"\": is empty", 21),
        ("workspace: {files: {'./.': a}}", "\"./.\": is empty", 21),
        ("state: {dirs: ['..']}", "\"..\": contains a `..`", 16),
        (
            "home: {symlinks: {'/abs': target}}",
            "\"/abs\": is absolute",
            19,
        ),
        (
            "dirs: {out: {symlinks: {'../link': target}}}",
            "\"../link\": contains a `..`",
            25,
        ),
        (
            "workspace: {git: {commits: [{message: m, files: {'../x': a}}]}}",
            "\"../x\": contains a `..`",
            50,
        ),
        (
            "workspace: {git: {staged: {'/x': a}}}",
            "\"/x\": is absolute",
            28,
        ),
        ("dirs: {'..': {}}", "\"dirs...\": is `.` or `..`", 8),
        (
            "dirs: {'a/b': {}}",
            "\"dirs.a/b\": must be a single folder name",
            8,
        ),
    ];
    for (yaml, message, column) in cases {
        let error = serde_saphyr::from_str::<SandboxSpec>(yaml)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(&format!("bad sandbox path {message}")),
            "{yaml}: {error}"
        );
        assert!(
            error.contains(&format!("line 1 column {column}")),
            "{yaml}: {error}"
        );
    }
}

#[test]
fn never_writes_through_a_symlink() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().to_string_lossy().into_owned();
    let first = spec(&format!("workspace: {{symlinks: {{link: '{target}'}}}}"));
    let mut sandbox = Sandbox::create(&first, &no_expand).unwrap();

    for yaml in [
        "workspace: {files: {link/pwned.txt: x}}",
        "workspace: {dirs: [link/pwned]}",
        "workspace: {symlinks: {link/pwned: x}}",
        "workspace: {files: {link: x}}",
    ] {
        let error = sandbox.seed(&spec(yaml), &no_expand).unwrap_err();
        assert!(
            matches!(error, SandboxError::BadPath { .. }),
            "{yaml}: {error}"
        );
    }
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn expand_errors_name_the_file() {
    let error = Sandbox::create(
        &spec("workspace: {files: {a.txt: '${nope}'}}"),
        &expander(BTreeMap::new()),
    )
    .unwrap_err();
    assert!(
        matches!(&error, SandboxError::Expand { path, message } if path == "workspace/a.txt" && message.contains("nope")),
        "{error}"
    );
}
