//! The sandbox's public API as the runner uses it: YAML -> spec -> seeded tree -> observations.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use mcp_conformance::sandbox::{Sandbox, SandboxSpec, describe_path};
use serde_json::json;

/// The example published in the docs; keep the two in sync.
const DOC_EXAMPLE: &str = r##"
workspace:
  git:
    branch: main
    config: { core.fileMode: "false" }
    commits:
      - message: initial import
        files:
          README.md: "# demo\n"
          src/old.rs: "// old\n"
      - message: drop old.rs
        files:
          src/old.rs: null
    staged:
      src/new.rs: "// staged\n"
  files:
    README.md: "# demo (edited, see ${home})\n"
    bin/tool.sh: { content: "#!/bin/sh\necho hi\n", mode: "0755" }
    blob.bin: { base64: "AAEC/w==" }
    big.txt: { repeat: "0123456789", bytes: 2000000 }
  dirs: [empty/nested]
  symlinks:
    escape: ../dirs/outside
    secret-link: "${dirs.outside}/secret.txt"
home:
  files:
    .config/app/config.toml: "token = 'x'\n"
dirs:
  outside:
    files:
      secret.txt: "do not leak\n"
"##;

/// Replaces `${name}` with the sandbox's variables, like the runner's interpolation.
fn expand(text: &str, sandbox_vars: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = text.to_owned();
    for (name, value) in sandbox_vars {
        out = out.replace(&format!("${{{name}}}"), value);
    }
    if out.contains("${") {
        return Err(format!("unknown variable in {text:?}"));
    }
    Ok(out)
}

#[test]
fn doc_example_seeds_and_cleans_up() {
    let spec: SandboxSpec = serde_saphyr::from_str(DOC_EXAMPLE).unwrap();
    spec.validate().unwrap();
    let sandbox = Sandbox::create(&spec, &expand).unwrap();
    let ws = sandbox.workspace().to_path_buf();

    let readme = describe_path(&ws.join("README.md"));
    let expected = format!("# demo (edited, see {})\n", sandbox.home().display());
    assert_eq!(readme["content"], json!(expected));
    assert_eq!(
        describe_path(&ws.join("bin/tool.sh"))["mode"],
        json!("0755")
    );
    assert_eq!(describe_path(&ws.join("big.txt"))["size"], json!(2_000_000));
    assert_eq!(describe_path(&ws.join("escape"))["kind"], json!("symlink"));
    assert_eq!(
        describe_path(&ws.join("secret-link"))["target"],
        json!(format!(
            "{}/secret.txt",
            sandbox.dir("outside").unwrap().display()
        ))
    );
    assert_eq!(describe_path(&ws.join("src"))["entries"], json!(["new.rs"]));
    assert_eq!(
        describe_path(&sandbox.home().join(".config/app/config.toml"))["exists"],
        json!(true)
    );

    let root = sandbox.root().to_path_buf();
    sandbox.close().unwrap();
    assert!(!root.exists());
    assert_eq!(describe_path(&root)["exists"], json!(false));
}

#[test]
fn a_bad_path_is_refused_before_any_sandbox_exists() {
    let error =
        serde_saphyr::from_str::<SandboxSpec>("workspace: {files: {'../escape.txt': nope}}")
            .unwrap_err()
            .to_string();
    assert!(
        error.contains("bad sandbox path \"../escape.txt\": contains a `..` component"),
        "{error}"
    );
}
