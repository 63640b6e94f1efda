//! `FileSpec` parsing: string and object forms, modes, validation, base64, and the schema.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::sandbox::spec::decode_base64;

fn file_spec(yaml: &str) -> Result<FileSpec, serde_saphyr::Error> {
    serde_saphyr::from_str(yaml)
}

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
