//! A damaged record, as another program could leave one: the server refuses it (fail
//! closed), and the operator's CLI shows the rest, names it, exports the rest on request and
//! removes it, instead of failing on the whole store.

mod common;

use common::Sandbox;
use serde_json::{Value, json};

/// The store's database file, wherever the state root keeps it.
fn database(sb: &Sandbox) -> std::path::PathBuf {
    fn find(dir: &std::path::Path) -> Option<std::path::PathBuf> {
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == "approvals.sqlite3") {
                return Some(path);
            }
            if path.is_dir()
                && let Some(found) = find(&path)
            {
                return Some(found);
            }
        }
        None
    }
    find(&sb.state).expect("approvals.sqlite3 under the state root")
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

#[test]
fn a_damaged_record_is_refused_by_the_server_and_dealt_with_by_the_operator() {
    let sb = Sandbox::new();
    let mut server = sb.server();
    server.initialize();
    let request = |server: &mut common::Server| -> String {
        let made = server.structured("shell.run", json!({"program": "/bin/true", "args": []}));
        made["request_id"]
            .as_str()
            .expect("a request id")
            .to_owned()
    };
    let (good, bad) = (request(&mut server), request(&mut server));
    let db = rusqlite::Connection::open(database(&sb)).expect("open the database");
    db.execute(
        "UPDATE approvals SET record = CAST(x'7bff7d' AS TEXT) WHERE request_id = ?1",
        [&bad],
    )
    .expect("damage the record");
    drop(db);

    // The server fails closed on it (an internal error naming the damage), and serves the
    // others.
    let status = server.request(
        "tools/call",
        json!({"name": "toolhub.request_status", "arguments": {"request_id": bad}}),
    );
    assert!(
        status["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("malformed")),
        "{status}"
    );
    let fine: Value = server.structured("toolhub.request_status", json!({"request_id": good}));
    assert_eq!(fine["approval"]["status"], "PENDING", "{fine}");
    drop(server);

    // list: the readable requests, the damaged one named, exit 1 with the way out.
    let listed = sb.admin(&["list"], "").code(1);
    let out = stdout(&listed);
    assert!(out.contains(&format!("{good}  PENDING")), "{out}");
    assert!(out.contains(&format!("{bad}  DAMAGED   ")), "{out}");
    assert!(
        stderr(&listed).contains("prune damaged --apply"),
        "{}",
        stderr(&listed)
    );

    // export refuses, naming the way out; --skip-damaged saves the rest.
    let refused = sb.admin(&["export"], "").code(1);
    assert!(
        stderr(&refused).contains("export --skip-damaged"),
        "{}",
        stderr(&refused)
    );
    let saved = sb.admin(&["export", "--skip-damaged"], "").success();
    let backup: Value = serde_json::from_str(&stdout(&saved)).expect("the export is JSON");
    let ids: Vec<&str> = backup["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["request_id"].as_str())
        .collect();
    assert_eq!(ids, [good.as_str()]);
    assert!(
        stderr(&saved).contains(&format!("left out damaged request {bad}")),
        "{}",
        stderr(&saved)
    );

    // prune approvals still works and names it; prune damaged removes it.
    let pruned = sb
        .admin(&["prune", "approvals", "--older-than-days", "0"], "")
        .success();
    assert!(
        stdout(&pruned).contains(&format!("damaged {bad}")),
        "{}",
        stdout(&pruned)
    );
    let dry = sb.admin(&["prune", "damaged"], "").success();
    assert!(
        stdout(&dry).contains(&format!("would remove {bad}")),
        "{}",
        stdout(&dry)
    );
    sb.admin(&["list"], "").code(1);
    let removed = sb.admin(&["prune", "damaged", "--apply"], "").success();
    assert!(
        stdout(&removed).contains(&format!("removed {bad}")),
        "{}",
        stdout(&removed)
    );
    let after = sb.admin(&["list"], "").success();
    assert!(!stdout(&after).contains("DAMAGED"), "{}", stdout(&after));
    let mut server = sb.server();
    server.initialize();
    let gone: Value = server.structured("toolhub.request_status", json!({"request_id": bad}));
    assert_eq!(gone["error"]["code"], "REQUEST_NOT_FOUND", "{gone}");
}
