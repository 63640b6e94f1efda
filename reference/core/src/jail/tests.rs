use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};

const SECRET: &[u8] = b"OUTSIDE-SECRET\n";

struct Fixture {
    _tmp: tempfile::TempDir,
    ws: Workspace,
    ws_path: PathBuf,
    outside: PathBuf,
}

/// ws/ with real files and symlinks leading out (to a dir, to a file, relative, dangling,
/// from a parent), and outside/ with a secret.
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let ws_path = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(ws_path.join("sub/deeper")).unwrap();
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("dir/inner.txt"), SECRET).unwrap();
    std::fs::write(ws_path.join("notes.txt"), b"v1\n").unwrap();
    std::fs::write(ws_path.join("sub/a.txt"), b"a\n").unwrap();
    symlink(&outside, ws_path.join("link_dir")).unwrap();
    symlink(outside.join("secret.txt"), ws_path.join("link_file")).unwrap();
    symlink("../../outside", ws_path.join("sub/inner_link")).unwrap();
    symlink("../outside/secret.txt", ws_path.join("rel_link")).unwrap();
    symlink(outside.join("new-file.txt"), ws_path.join("dangling")).unwrap();
    symlink("sub", ws_path.join("inside_link")).unwrap();
    let ws = Workspace::open(ws_path.to_str().unwrap()).unwrap();
    Fixture {
        _tmp: tmp,
        ws,
        ws_path,
        outside,
    }
}

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    fn walk(base: &Path, d: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_path_buf();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                walk(base, &p, out);
            } else if ft.is_symlink() {
                out.insert(
                    rel,
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                );
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

fn rp(s: &str) -> RelPath {
    RelPath::parse(s).unwrap()
}

#[test]
fn relpath_table() {
    for (raw, norm) in [
        ("", ""),
        (".", ""),
        ("./", ""),
        ("a", "a"),
        ("a/b", "a/b"),
        ("a//b/./c/", "a/b/c"),
        ("./a", "a"),
        ("...", "..."),
        ("a/..b/c..", "a/..b/c.."),
        (" spaced name ", " spaced name "),
    ] {
        assert_eq!(RelPath::parse(raw).unwrap().as_str(), norm, "{raw:?}");
    }
    for (raw, code) in [
        ("/etc/passwd", "PATH_ABSOLUTE"),
        ("/", "PATH_ABSOLUTE"),
        ("..", "PATH_TRAVERSAL"),
        ("../x", "PATH_TRAVERSAL"),
        ("a/../b", "PATH_TRAVERSAL"),
        ("a/..", "PATH_TRAVERSAL"),
        ("a\0b", "PATH_INVALID"),
        ("..\\x", "PATH_INVALID"),
    ] {
        assert_eq!(RelPath::parse(raw).unwrap_err().code(), code, "{raw:?}");
    }
    let long = "a".repeat(MAX_COMPONENT_BYTES + 1);
    assert_eq!(RelPath::parse(&long).unwrap_err().code(), "PATH_INVALID");
    assert!(RelPath::try_from("x/y").is_ok());
    assert!(rp(".").is_root());
    assert_eq!(rp("a/b").file_name(), Some("b"));
    assert_eq!(rp("").display(), ".");
}

#[test]
fn workspace_open_validation() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    assert!(matches!(
        Workspace::open(""),
        Err(ConfigError::WorkspaceMissing)
    ));
    assert!(matches!(
        Workspace::open("relative/dir"),
        Err(ConfigError::WorkspaceNotAbsolute)
    ));
    assert!(matches!(
        Workspace::open(t.path().join("missing").to_str().unwrap()),
        Err(ConfigError::WorkspaceNotFound)
    ));
    assert!(matches!(
        Workspace::open(file.to_str().unwrap()),
        Err(ConfigError::WorkspaceNotDirectory)
    ));
    // Under a file (ENOTDIR) is as missing as under nothing; any other failure is an I/O error.
    assert!(matches!(
        Workspace::open(file.join("sub").to_str().unwrap()),
        Err(ConfigError::WorkspaceNotFound)
    ));
    let too_long = format!("/{}", "a".repeat(300));
    assert!(matches!(
        Workspace::open(&too_long),
        Err(ConfigError::WorkspaceIo(reason)) if reason == "file name too long"
    ));
    assert_eq!(
        Workspace::open(file.to_str().unwrap())
            .unwrap_err()
            .to_string(),
        "workspace is not a directory"
    );
    // A symlink to a directory is canonicalized once.
    let link = t.path().join("l");
    symlink(t.path(), &link).unwrap();
    let w = Workspace::open(link.to_str().unwrap()).unwrap();
    assert_eq!(w.root(), std::fs::canonicalize(t.path()).unwrap());
    assert_eq!(w.id(), crate::digest::sha256_hex(w.root_str().as_bytes()));
}

#[test]
fn reads_inside_work() {
    let f = fixture();
    let r = f.ws.read_file(&rp("notes.txt"), 1024).unwrap();
    assert_eq!(r.bytes, b"v1\n");
    assert_eq!(r.size, 3);
    assert_eq!(r.sha256, crate::digest::sha256_hex(b"v1\n"));
    assert_eq!(
        f.ws.read_file(&rp("./sub//a.txt"), 1024).unwrap().bytes,
        b"a\n"
    );
    assert_eq!(
        f.ws.read_file(&rp("notes.txt"), 2).unwrap_err().code(),
        "TOO_LARGE"
    );
    assert_eq!(f.ws.read_file(&rp("notes.txt"), 3).unwrap().size, 3);
    assert_eq!(
        f.ws.read_file(&rp("nope"), 9).unwrap_err().code(),
        "NOT_FOUND"
    );
    assert_eq!(
        f.ws.read_file(&rp("nope/x"), 9).unwrap_err().code(),
        "NOT_FOUND"
    );
    assert_eq!(
        f.ws.read_file(&rp("sub"), 9).unwrap_err().code(),
        "NOT_A_FILE"
    );
    assert_eq!(f.ws.read_file(&rp(""), 9).unwrap_err().code(), "NOT_A_FILE");
    assert_eq!(
        f.ws.read_file(&rp("notes.txt/x"), 9).unwrap_err().code(),
        "NOT_A_DIRECTORY"
    );
}

#[test]
fn symlinks_are_refused_everywhere_and_nothing_outside_changes() {
    let f = fixture();
    let before = snapshot(&f.outside);
    let refused = [
        "link_file",
        "rel_link",
        "dangling",
        "link_dir",
        "link_dir/secret.txt",
        "link_dir/dir/inner.txt",
        "sub/inner_link",
        "sub/inner_link/secret.txt",
        "inside_link",
        "inside_link/a.txt",
    ];
    for p in refused {
        let e = f.ws.read_file(&rp(p), 1 << 20).unwrap_err();
        assert_eq!(e.code(), "SYMLINK_REFUSED", "read {p}: {e}");
        assert!(!e.to_string().contains(f.outside.to_str().unwrap()));
        let e = f.ws.write_file_atomic(&rp(p), b"pwned", false).unwrap_err();
        assert_eq!(e.code(), "SYMLINK_REFUSED", "write {p}: {e}");
        let e = f.ws.write_file_atomic(&rp(p), b"pwned", true).unwrap_err();
        assert_eq!(e.code(), "SYMLINK_REFUSED", "write+parents {p}: {e}");
        let e = f.ws.current_sha256(&rp(p)).unwrap_err();
        assert_eq!(e.code(), "SYMLINK_REFUSED", "hash {p}: {e}");
    }
    for p in [
        "link_dir/new.txt",
        "sub/inner_link/new.txt",
        "link_dir/a/b/c.txt",
    ] {
        let e = f.ws.write_file_atomic(&rp(p), b"pwned", true).unwrap_err();
        assert_eq!(e.code(), "SYMLINK_REFUSED", "write {p}: {e}");
    }
    for p in ["link_dir", "sub/inner_link", "link_dir/dir", "inside_link"] {
        let e = f.ws.list_dir(&rp(p)).unwrap_err();
        assert_eq!(e.code(), "SYMLINK_REFUSED", "list {p}: {e}");
    }
    assert_eq!(f.ws.stat(&rp("link_dir")).unwrap().kind, EntryKind::Symlink);
    assert_eq!(
        f.ws.stat(&rp("link_dir/secret.txt")).unwrap_err().code(),
        "SYMLINK_REFUSED"
    );
    assert_eq!(snapshot(&f.outside), before, "outside changed");
    // The symlinks themselves are intact, and no temp files are left behind.
    assert!(
        std::fs::symlink_metadata(f.ws_path.join("link_file"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        !snapshot(&f.ws_path)
            .keys()
            .any(|k| k.to_string_lossy().contains("toolhub-tmp"))
    );
}

#[test]
fn a_bounded_listing_stops_one_past_the_limit() {
    let f = fixture();
    let all = f.ws.list_dir(&RelPath::root()).unwrap();
    let exact = f.ws.list_dir_at_most(&RelPath::root(), all.len()).unwrap();
    assert_eq!(exact.as_ref().map(Vec::len), Some(all.len()));
    assert!(
        f.ws.list_dir_at_most(&RelPath::root(), all.len() - 1)
            .unwrap()
            .is_none()
    );
    assert!(
        f.ws.list_dir_at_most(&RelPath::root(), 0)
            .unwrap()
            .is_none()
    );
}

#[test]
fn replacing_a_target_over_the_limit_is_refused_from_its_size() {
    // 16 MiB, as the README says: a target of exactly that size is still hashed and replaced.
    let limit = 16 * 1024 * 1024;
    assert_eq!(MAX_REPLACED_FILE_BYTES, limit);
    let f = fixture();
    let at_limit = std::fs::File::create(f.ws_path.join("at-limit.bin")).unwrap();
    at_limit.set_len(limit).unwrap();
    drop(at_limit);
    assert!(f.ws.current_sha256(&rp("at-limit.bin")).unwrap().is_some());
    let huge = std::fs::File::create(f.ws_path.join("huge.bin")).unwrap();
    huge.set_len(MAX_REPLACED_FILE_BYTES + 1).unwrap();
    drop(huge);
    let e = f.ws.current_sha256(&rp("huge.bin")).unwrap_err();
    assert_eq!(e.code(), "TOO_LARGE");
    let e =
        f.ws.write_file_checked(&rp("huge.bin"), b"x", false, &Precondition::Any)
            .unwrap_err();
    assert_eq!(e.code(), "TOO_LARGE");
    assert_eq!(
        std::fs::metadata(f.ws_path.join("huge.bin")).unwrap().len(),
        MAX_REPLACED_FILE_BYTES + 1,
        "nothing replaced"
    );
}

#[test]
fn listing_is_sorted_and_reports_kinds_without_following() {
    let f = fixture();
    let entries = f.ws.list_dir(&RelPath::root()).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "dangling",
            "inside_link",
            "link_dir",
            "link_file",
            "notes.txt",
            "rel_link",
            "sub"
        ]
    );
    let by: BTreeMap<_, _> = entries.iter().map(|e| (e.name.as_str(), e)).collect();
    assert_eq!(by["notes.txt"].kind, EntryKind::File);
    assert_eq!(by["notes.txt"].size, Some(3));
    assert_eq!(by["sub"].kind, EntryKind::Dir);
    assert_eq!(by["sub"].size, None);
    assert_eq!(by["link_dir"].kind, EntryKind::Symlink);
    assert_eq!(by["link_file"].kind, EntryKind::Symlink);
    let sub = f.ws.list_dir(&rp("sub")).unwrap();
    assert_eq!(sub.len(), 3);
    assert_eq!(
        f.ws.list_dir(&rp("notes.txt")).unwrap_err().code(),
        "NOT_A_DIRECTORY"
    );
    assert_eq!(
        f.ws.list_dir(&rp("missing")).unwrap_err().code(),
        "NOT_FOUND"
    );
    assert_eq!(serde_json::to_value(&sub[0]).unwrap()["kind"], "file");
}

#[test]
fn writes_are_atomic_and_report_hashes() {
    let f = fixture();
    let out =
        f.ws.write_file_atomic(&rp("new.txt"), b"hello", false)
            .unwrap();
    assert!(out.created);
    assert_eq!(out.previous_sha256, None);
    assert_eq!(out.new_sha256, crate::digest::sha256_hex(b"hello"));
    assert_eq!(out.bytes_written, 5);
    std::fs::set_permissions(
        f.ws_path.join("notes.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let out =
        f.ws.write_file_atomic(&rp("notes.txt"), b"v2\n", false)
            .unwrap();
    assert!(!out.created);
    assert_eq!(
        out.previous_sha256.as_deref(),
        Some(crate::digest::sha256_hex(b"v1\n").as_str())
    );
    assert_eq!(std::fs::read(f.ws_path.join("notes.txt")).unwrap(), b"v2\n");
    let mode = std::fs::metadata(f.ws_path.join("notes.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "mode preserved");
    // Parents.
    assert_eq!(
        f.ws.write_file_atomic(&rp("x/y/z.txt"), b"z", false)
            .unwrap_err()
            .code(),
        "NOT_FOUND"
    );
    assert!(!f.ws_path.join("x").exists());
    f.ws.write_file_atomic(&rp("x/y/z.txt"), b"z", true)
        .unwrap();
    assert_eq!(std::fs::read(f.ws_path.join("x/y/z.txt")).unwrap(), b"z");
    // Not over a directory, not under a file, not the root.
    assert_eq!(
        f.ws.write_file_atomic(&rp("sub"), b"z", false)
            .unwrap_err()
            .code(),
        "NOT_A_FILE"
    );
    assert_eq!(
        f.ws.write_file_atomic(&rp("notes.txt/z"), b"z", true)
            .unwrap_err()
            .code(),
        "NOT_A_DIRECTORY"
    );
    assert_eq!(
        f.ws.write_file_atomic(&rp(""), b"z", false)
            .unwrap_err()
            .code(),
        "NOT_A_FILE"
    );
    assert!(f.ws_path.join("sub").is_dir());
    assert!(
        !snapshot(&f.ws_path)
            .keys()
            .any(|k| k.to_string_lossy().contains("toolhub-tmp"))
    );
}

#[test]
fn preconditions_detect_conflicts() {
    let f = fixture();
    let v1 = crate::digest::sha256_hex(b"v1\n");
    assert_eq!(
        f.ws.current_sha256(&rp("notes.txt")).unwrap(),
        Some(v1.clone())
    );
    assert_eq!(f.ws.current_sha256(&rp("missing")).unwrap(), None);
    assert_eq!(f.ws.current_sha256(&rp("missing/dir/x")).unwrap(), None);
    assert_eq!(
        f.ws.current_sha256(&rp("sub")).unwrap_err().code(),
        "NOT_A_FILE"
    );
    let e =
        f.ws.write_file_checked(
            &rp("notes.txt"),
            b"x",
            false,
            &Precondition::Sha256("00".repeat(32)),
        )
        .unwrap_err();
    assert_eq!(e.code(), "CONFLICT");
    assert_eq!(std::fs::read(f.ws_path.join("notes.txt")).unwrap(), b"v1\n");
    let e =
        f.ws.write_file_checked(&rp("notes.txt"), b"x", false, &Precondition::Absent)
            .unwrap_err();
    assert!(matches!(
        e,
        JailError::Conflict {
            expected: None,
            actual: Some(_)
        }
    ));
    let e =
        f.ws.write_file_checked(&rp("fresh"), b"x", false, &Precondition::Sha256(v1.clone()))
            .unwrap_err();
    assert!(matches!(e, JailError::Conflict { actual: None, .. }));
    assert!(!f.ws_path.join("fresh").exists());
    f.ws.write_file_checked(
        &rp("notes.txt"),
        b"x",
        false,
        &Precondition::Sha256(v1.to_uppercase()),
    )
    .unwrap();
    f.ws.write_file_checked(&rp("fresh"), b"x", false, &Precondition::matching(None))
        .unwrap();
    assert!(
        !snapshot(&f.ws_path)
            .keys()
            .any(|k| k.to_string_lossy().contains("toolhub-tmp"))
    );
}

#[test]
fn special_files_are_refused_without_blocking() {
    let f = fixture();
    nix::unistd::mkfifo(&f.ws_path.join("fifo"), Mode::from_bits_truncate(0o644)).unwrap();
    assert_eq!(
        f.ws.read_file(&rp("fifo"), 10).unwrap_err().code(),
        "NOT_A_FILE"
    );
    assert_eq!(
        f.ws.write_file_atomic(&rp("fifo"), b"x", false)
            .unwrap_err()
            .code(),
        "NOT_A_FILE"
    );
    assert_eq!(f.ws.stat(&rp("fifo")).unwrap().kind, EntryKind::Other);
}

#[test]
fn root_is_frozen_at_open() {
    let f = fixture();
    let moved = f.ws_path.with_file_name("ws-moved");
    std::fs::rename(&f.ws_path, &moved).unwrap();
    std::fs::create_dir(&f.ws_path).unwrap();
    std::fs::write(f.ws_path.join("notes.txt"), b"impostor").unwrap();
    assert_eq!(
        f.ws.read_file(&rp("notes.txt"), 100).unwrap().bytes,
        b"v1\n"
    );
}

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just(String::new()),
        Just("sub".to_string()),
        Just("link_dir".to_string()),
        Just("link_file".to_string()),
        Just("inner_link".to_string()),
        Just("rel_link".to_string()),
        Just("inside_link".to_string()),
        Just("secret.txt".to_string()),
        Just("dir".to_string()),
        Just("inner.txt".to_string()),
        Just("a.txt".to_string()),
        "[a-z.]{1,4}",
    ]
}

fn raw_path() -> impl Strategy<Value = String> {
    (any::<bool>(), prop::collection::vec(component(), 0..6))
        .prop_map(|(abs, comps)| format!("{}{}", if abs { "/" } else { "" }, comps.join("/")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn prop_relpath_rules(raw in raw_path(), junk in "[ -~]{0,12}") {
        for candidate in [raw.clone(), format!("{raw}{junk}"), format!("{junk}/{raw}")] {
            let has_dotdot = candidate.split('/').any(|c| c == "..");
            match RelPath::parse(&candidate) {
                Ok(p) => {
                    prop_assert!(!has_dotdot);
                    prop_assert!(!candidate.starts_with('/'));
                    prop_assert!(!p.as_str().starts_with('/'));
                    prop_assert!(p.components().all(|c| !c.is_empty() && c != "." && c != ".."));
                    prop_assert!(!p.as_str().contains('\\') && !p.as_str().contains('\0'));
                    // Normalization is idempotent.
                    prop_assert_eq!(RelPath::parse(p.as_str()).unwrap(), p.clone());
                    // Lexically it never leaves the root.
                    let joined = Path::new("/ws").join(p.as_str());
                    prop_assert!(joined.starts_with("/ws"));
                }
                Err(e) => {
                    prop_assert!(has_dotdot || candidate.starts_with('/')
                        || candidate.contains('\\') || candidate.contains('\0'),
                        "unexpected rejection of {:?}: {}", candidate, e);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// Whatever path is asked for, no read returns outside content, no listing shows outside
    /// entries, and no write changes anything outside.
    #[test]
    fn prop_confinement(paths in prop::collection::vec(raw_path(), 1..6)) {
        let f = fixture();
        let before = snapshot(&f.outside);
        for raw in &paths {
            let Ok(p) = RelPath::parse(raw) else { continue };
            if let Ok(r) = f.ws.read_file(&p, 1 << 20) {
                prop_assert_ne!(r.bytes.as_slice(), SECRET);
            }
            if let Ok(entries) = f.ws.list_dir(&p) {
                // Files we write are 5 bytes; the outside secrets are not.
                prop_assert!(entries.iter().all(|e| e.size != Some(SECRET.len() as u64)));
            }
            let _ = f.ws.write_file_atomic(&p, b"pwned", true);
        }
        prop_assert_eq!(snapshot(&f.outside), before);
    }
}

#[test]
fn path_limits_hold_at_their_exact_edges() {
    // 4,096 bytes a path, 255 a component: both accepted at the limit, refused one over.
    let component = "c".repeat(255);
    assert!(RelPath::parse(&component).is_ok());
    let too_long_component = "c".repeat(256);
    let e = RelPath::parse(&too_long_component).unwrap_err();
    assert_eq!(e.to_string(), "invalid path: path component is too long");
    let path = [&component[..]; 16].join("/"); // 16 * 255 + 15 = 4,095 bytes
    let at_limit = format!("{path}/"); // an empty last component is dropped
    assert_eq!(at_limit.len(), 4096);
    assert!(RelPath::parse(&at_limit).is_ok());
    let over = format!("{path}//");
    let e = RelPath::parse(&over).unwrap_err();
    assert_eq!(e.to_string(), "invalid path: path is too long");
}

#[test]
fn names_and_displays() {
    assert!(!rp("a").is_root());
    assert!(rp("").is_root());
    assert_eq!(rp("./a//b/").to_string(), "a/b");
    let kinds = [
        EntryKind::File,
        EntryKind::Dir,
        EntryKind::Symlink,
        EntryKind::Other,
    ];
    assert_eq!(
        kinds.map(EntryKind::as_str),
        ["file", "dir", "symlink", "other"]
    );
    let e = JailError::Conflict {
        expected: Some("ab".into()),
        actual: None,
    };
    assert_eq!(
        e.to_string(),
        "file changed: expected sha256 ab, found no file"
    );
    let refusals = [
        (JailError::PathAbsolute, true),
        (JailError::PathTraversal, true),
        (JailError::SymlinkRefused { path: "l".into() }, true),
        (JailError::NotFound { path: "n".into() }, false),
        (JailError::TooLarge { size: 1, limit: 0 }, false),
    ];
    for (e, refusal) in refusals {
        assert_eq!(e.is_confinement_refusal(), refusal, "{e:?}");
    }
}

#[test]
fn a_conflict_names_the_expected_hash_in_lowercase() {
    let f = fixture();
    let want = "AB".repeat(32);
    let e =
        f.ws.write_file_checked(&rp("notes.txt"), b"x", false, &Precondition::Sha256(want))
            .unwrap_err();
    match e {
        JailError::Conflict { expected, actual } => {
            assert_eq!(expected, Some("ab".repeat(32)));
            assert!(actual.is_some());
        }
        other => panic!("{other:?}"),
    }
}
