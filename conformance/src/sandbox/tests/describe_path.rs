//! `describe_path`: files, folders, symlinks and missing paths, and large files described by
//! their hash.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

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
