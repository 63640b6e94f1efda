#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

use super::seed::Seeder;
use super::spec::decode_base64;
use super::*;

fn no_expand(text: &str, _sandbox_vars: &BTreeMap<String, String>) -> Result<String, String> {
    Ok(text.to_owned())
}

/// A tiny `${name}` expander over the sandbox's variables plus `extra`, standing in for the
/// runner's.
fn expander(
    extra: BTreeMap<String, String>,
) -> impl Fn(&str, &BTreeMap<String, String>) -> Result<String, String> {
    move |text: &str, sandbox_vars: &BTreeMap<String, String>| {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or("unclosed ${")?;
            let name = &after[..end];
            let value = extra.get(name).or_else(|| sandbox_vars.get(name));
            out.push_str(value.ok_or(format!("unknown variable {name}"))?);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

fn spec(yaml: &str) -> SandboxSpec {
    serde_saphyr::from_str(yaml).unwrap()
}

fn file_spec(yaml: &str) -> Result<FileSpec, serde_saphyr::Error> {
    serde_saphyr::from_str(yaml)
}

// ---------------------------------------------------------------- FileSpec parsing

#[test]
fn file_spec_string_form() {
    let FileSpec::Text(text) = file_spec("\"hello ${workspace}\"").unwrap() else {
        panic!("expected the text form");
    };
    assert_eq!(text, "hello ${workspace}");
    let dir: DirSpec = serde_saphyr::from_str("files:\n  a.txt: |\n    line\n").unwrap();
    assert!(matches!(&dir.files["a.txt"], FileSpec::Text(t) if t == "line\n"));
}

#[test]
fn file_spec_object_forms() {
    let FileSpec::Detailed(d) = file_spec("content: hi\nmode: 493").unwrap() else {
        panic!("expected the object form");
    };
    assert_eq!(d.content.as_deref(), Some("hi"));
    assert_eq!(d.mode.map(FileMode::bits), Some(0o755));

    let FileSpec::Detailed(d) = file_spec("base64: aGVsbG8=").unwrap() else {
        panic!("expected the object form");
    };
    assert_eq!(
        decode_base64(d.base64.as_deref().unwrap()).unwrap(),
        b"hello"
    );

    let FileSpec::Detailed(d) = file_spec("{repeat: ab, bytes: 5}").unwrap() else {
        panic!("expected the object form");
    };
    assert_eq!((d.repeat.as_deref(), d.bytes), (Some("ab"), Some(5)));

    // An empty object is an empty file.
    assert!(matches!(file_spec("{}").unwrap(), FileSpec::Detailed(_)));
}

#[test]
fn file_mode_as_int_and_string() {
    let mode = |yaml: &str| file_spec(yaml).map(|f| f.mode().map(FileMode::bits));
    assert_eq!(mode("mode: 493").unwrap(), Some(0o755));
    assert_eq!(mode("mode: 0o755").unwrap(), Some(0o755));
    assert_eq!(mode("mode: \"0755\"").unwrap(), Some(0o755));
    assert_eq!(mode("mode: '644'").unwrap(), Some(0o644));
    assert_eq!(mode("mode: \"0o600\"").unwrap(), Some(0o600));
    // Ambiguous or out-of-range spellings are errors, not strange modes.
    assert!(
        mode("mode: 0755").is_err(),
        "unquoted 0755 is not a YAML 1.2 integer"
    );
    assert!(
        mode("mode: 755").is_ok(),
        "755 decimal is 0o1363, within range"
    );
    assert!(mode("mode: 4096").is_err());
    assert!(mode("mode: \"0789\"").is_err());
    assert!(mode("mode: -1").is_err());
}

#[test]
fn file_spec_rejects_unknown_fields_and_non_strings() {
    let error = file_spec("contnet: hi").unwrap_err().to_string();
    assert!(error.contains("contnet"), "{error}");
    assert!(file_spec("42").is_err());
    assert!(file_spec("true").is_err());
    assert!(serde_saphyr::from_str::<DirSpec>("files: {}\nfolders: []").is_err());
    assert!(serde_saphyr::from_str::<SandboxSpec>("workspace: {}\nworkdir: {}").is_err());
    assert!(serde_saphyr::from_str::<GitSpec>("commits: [{message: m, author: x}]").is_err());
}

#[test]
fn file_spec_validation() {
    let bad = |yaml: &str| file_spec(yaml).unwrap().validate().unwrap_err();
    assert!(bad("{content: a, base64: YQ==}").contains("at most one"));
    assert!(bad("{repeat: a}").contains("needs `bytes`"));
    assert!(bad("{bytes: 3}").contains("needs `repeat`"));
    assert!(bad("{repeat: '', bytes: 3}").contains("empty"));
    assert!(bad("{repeat: a, bytes: 2000000000}").contains("limit"));
    assert!(bad("{base64: 'a$=='}").contains("base64"));
}

#[test]
fn base64_decoding() {
    assert_eq!(decode_base64("").unwrap(), b"");
    assert_eq!(decode_base64("YQ").unwrap(), b"a");
    assert_eq!(decode_base64("YWI=").unwrap(), b"ab");
    assert_eq!(decode_base64("YWJj").unwrap(), b"abc");
    assert_eq!(decode_base64("AP8A\n/w==").unwrap(), [0, 255, 0, 255]);
    assert!(decode_base64("Y").is_err());
    assert!(decode_base64("YQ===").is_err());
    assert!(decode_base64("YQ=").is_err());
}

#[test]
fn schema_is_generated() {
    let schema = serde_json::to_value(schemars::schema_for!(SandboxSpec)).unwrap();
    let text = schema.to_string();
    assert!(text.contains("FileMode"), "{text}");
    assert!(
        text.contains("The folder the server is told to work in"),
        "{text}"
    );
}

// ---------------------------------------------------------------- seeding

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

// ---------------------------------------------------------------- git

fn git_spec() -> SandboxSpec {
    spec(
        r#"
workspace:
  git:
    branch: trunk
    config:
      core.fileMode: "false"
    commits:
      - message: first
        files:
          README.md: "v1\n"
          old.txt: "old\n"
          src/lib.rs: "// lib\n"
      - message: second
        files:
          README.md: "v2\n"
          old.txt: null
    staged:
      new.txt: "staged\n"
      src/lib.rs: null
  files:
    README.md: "v3 (modified)\n"
    untracked.txt: "u\n"
"#,
    )
}

#[test]
fn seeds_a_git_repository() {
    let sandbox = Sandbox::create(&git_spec(), &no_expand).unwrap();
    let ws = sandbox.workspace();
    let vars = sandbox.variables();
    let seeder = Seeder {
        expand: &no_expand,
        vars: &vars,
        home: sandbox.home(),
        tmp: sandbox.tmp(),
    };
    let git = |args: &[&str]| seeder.git(ws, 0, args).unwrap();

    assert_eq!(git(&["rev-list", "--count", "HEAD"]).trim(), "2");
    assert_eq!(git(&["log", "--format=%s"]), "second\nfirst\n");
    assert_eq!(git(&["branch", "--show-current"]).trim(), "trunk");
    assert_eq!(git(&["config", "--local", "core.fileMode"]).trim(), "false");
    let status = git(&["status", "--porcelain"]);
    let mut lines: Vec<&str> = status.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            " M README.md",
            "?? untracked.txt",
            "A  new.txt",
            "D  src/lib.rs"
        ],
        "{status}"
    );
    assert!(!ws.join("old.txt").exists() && !ws.join("src/lib.rs").exists());
    assert_eq!(
        fs::read_to_string(ws.join("README.md")).unwrap(),
        "v3 (modified)\n"
    );
    assert!(!ws.join(".git/hooks").exists(), "no template hooks");

    // Fixed identity and dates: the same spec gives the same hashes in another sandbox.
    let head = git(&["rev-parse", "HEAD"]);
    let other = Sandbox::create(&git_spec(), &no_expand).unwrap();
    let other_vars = other.variables();
    let other_seeder = Seeder {
        expand: &no_expand,
        vars: &other_vars,
        home: other.home(),
        tmp: other.tmp(),
    };
    assert_eq!(
        other_seeder
            .git(other.workspace(), 0, ["rev-parse", "HEAD"])
            .unwrap(),
        head
    );
    assert_eq!(
        git(&["log", "-1", "--format=%an <%ae> %ad", "--date=iso-strict"]).trim(),
        "MCP Conformance <conformance@example.invalid> 2024-01-01T00:01:00Z"
    );
}

#[test]
fn git_failures_name_the_command() {
    let error = Sandbox::create(
        &spec("workspace: {git: {staged: {never-tracked.txt: null}}}"),
        &no_expand,
    )
    .unwrap_err();
    match &error {
        SandboxError::Git {
            command, stderr, ..
        } => {
            assert!(command.starts_with("git rm --cached"), "{command}");
            assert!(stderr.contains("did not match"), "{stderr}");
        }
        other => panic!("expected a git error, got {other}"),
    }
}

// ---------------------------------------------------------------- cleanup

#[test]
fn drop_removes_everything_but_outside_targets() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("keep.txt"), "keep").unwrap();
    let target = outside.path().to_string_lossy().into_owned();
    let sandbox = Sandbox::create(
        &spec(&format!(
            "workspace:\n  files: {{locked/inner/f.txt: x}}\n  symlinks: {{out: '{target}', \
             locked/out: '{target}'}}"
        )),
        &no_expand,
    )
    .unwrap();
    let root = sandbox.root().to_path_buf();
    let locked = sandbox.workspace().join("locked");
    fs::set_permissions(locked.join("inner"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o500)).unwrap();
    fs::set_permissions(sandbox.workspace(), fs::Permissions::from_mode(0o555)).unwrap();
    // The outside folder is read-only too: cleanup must not chmod it through the link.
    fs::set_permissions(outside.path(), fs::Permissions::from_mode(0o555)).unwrap();

    drop(sandbox);

    assert!(!root.exists(), "sandbox root must be gone");
    assert_eq!(
        fs::read_to_string(outside.path().join("keep.txt")).unwrap(),
        "keep"
    );
    let mode = fs::metadata(outside.path()).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o555);
    fs::set_permissions(outside.path(), fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn close_and_keep() {
    let sandbox = Sandbox::create(&SandboxSpec::default(), &no_expand).unwrap();
    let root = sandbox.root().to_path_buf();
    fs::set_permissions(sandbox.state(), fs::Permissions::from_mode(0o000)).unwrap();
    sandbox.close().unwrap();
    assert!(!root.exists());

    let kept = Sandbox::create(&SandboxSpec::default(), &no_expand)
        .unwrap()
        .keep();
    assert!(kept.join("workspace").is_dir());
    fs::remove_dir_all(&kept).unwrap();
}

// ---------------------------------------------------------------- describe_path

#[test]
fn describe_file_dir_symlink_missing() {
    let sandbox = Sandbox::create(
        &spec(
            "workspace:\n  files:\n    a.txt: hello\n    sub/b.bin: {base64: '/w==', mode: 0o600}\n  \
             dirs: [sub/empty]\n  symlinks: {link: a.txt, dangling: nowhere}",
        ),
        &no_expand,
    )
    .unwrap();
    let ws = sandbox.workspace();

    assert_eq!(
        describe_path(&ws.join("a.txt")),
        json!({
            "exists": true, "kind": "file", "size": 5,
            "sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
            "content": "hello", "target": null, "entries": null, "mode": "0644",
        })
    );
    let binary = describe_path(&ws.join("sub/b.bin"));
    assert_eq!(binary["content"], json!(null), "not UTF-8");
    assert_eq!(binary["size"], json!(1));
    assert_eq!(binary["mode"], json!("0600"));

    let dir = describe_path(&ws.join("sub"));
    assert_eq!(dir["kind"], json!("dir"));
    assert_eq!(dir["entries"], json!(["b.bin", "empty"]));
    assert_eq!(dir["size"], json!(null));
    assert_eq!(dir["mode"], json!("0755"));
    assert_eq!(
        describe_path(ws)["entries"],
        json!(["a.txt", "dangling", "link", "sub"])
    );

    let link = describe_path(&ws.join("link"));
    assert_eq!(link["kind"], json!("symlink"));
    assert_eq!(link["target"], json!("a.txt"));
    assert_eq!(link["content"], json!(null), "the link is not followed");
    let dangling = describe_path(&ws.join("dangling"));
    assert_eq!(
        (dangling["exists"].clone(), dangling["target"].clone()),
        (json!(true), json!("nowhere"))
    );

    let missing = describe_path(&ws.join("missing"));
    assert_eq!(
        missing,
        json!({"exists": false, "kind": null, "size": null, "sha256": null, "content": null,
               "target": null, "entries": null, "mode": null})
    );
    assert_eq!(
        describe_path(&ws.join("a.txt/below"))["exists"],
        json!(false)
    );
}

#[test]
fn describe_large_file_has_hash_but_no_content() {
    let sandbox = Sandbox::create(
        &spec("workspace: {files: {big: {repeat: x, bytes: 1048577}, edge: {repeat: x, bytes: 1048576}}}"),
        &no_expand,
    )
    .unwrap();
    let big = describe_path(&sandbox.workspace().join("big"));
    assert_eq!(big["size"], json!(1_048_577));
    assert_eq!(big["content"], json!(null));
    assert_eq!(big["sha256"].as_str().unwrap().len(), 64);
    let edge = describe_path(&sandbox.workspace().join("edge"));
    assert_eq!(edge["content"].as_str().unwrap().len(), 1_048_576);
}
