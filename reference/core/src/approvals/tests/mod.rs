//! The approval store's tests, by subject; this file holds what they share: a store on a
//! fresh state root with a manual clock, and records to restore.

mod capacity;
mod damage;
mod database;
mod expiry;
mod lifecycle;
mod prune;
mod stored_form;

use super::*;
use crate::clock::{Clock, ManualClock};
use std::sync::Arc;

const T0: i64 = 1_800_000_000_000;
const TTL: Duration = Duration::from_secs(600);

struct Env {
    _tmp: tempfile::TempDir,
    ws: std::path::PathBuf,
    state: StateRoot,
    clock: Arc<ManualClock>,
    store: ApprovalStore,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    env_for(tmp, ws)
}

/// A fresh state root (in a temporary folder of its own) for `workspace`.
fn env_for(tmp: tempfile::TempDir, ws: std::path::PathBuf) -> Env {
    let state = crate::state::test_root(tmp.path(), &ws);
    let clock = ManualClock::shared(Timestamp::from_unix_millis(T0));
    let store = ApprovalStore::new(&state, clock.clone(), TTL);
    Env {
        _tmp: tmp,
        ws,
        state,
        clock,
        store,
    }
}

/// Another, fresh state root for `e`'s workspace (a restore target).
fn env_sharing_workspace(e: &Env) -> Env {
    env_for(tempfile::tempdir().unwrap(), e.ws.clone())
}

/// The whole store in its JSON form: two equal snapshots mean nothing changed.
fn file_bytes(e: &Env) -> Option<Vec<u8>> {
    e.state
        .approvals_db_path()
        .exists()
        .then(|| e.store.export().unwrap())
}

/// The JSON form of `records`, as an earlier version's `approvals.json` or an export holds it.
fn json_form(records: &[ApprovalRecord]) -> Vec<u8> {
    let texts: Vec<String> = records
        .iter()
        .map(|r| schema::record_text(&stored::StoredRecord::from_public(r).unwrap()).unwrap())
        .collect();
    json_form::serialize(texts.iter().map(String::as_str))
}

fn synthetic(e: &Env, i: usize, status: ApprovalStatus, payload: Value) -> ApprovalRecord {
    let now = Timestamp::from_unix_millis(T0);
    ApprovalRecord {
        request_id: format!("req_{i:032x}"),
        trace_id: "t".into(),
        operation: Operation::WriteFile,
        workspace_id: e.state.workspace_id().to_string(),
        status,
        payload,
        created_at: now,
        expires_at: now.saturating_add(TTL),
        decided_at: None,
        consumed_at: None,
        terminal_at: None,
    }
}

/// A store holding `records`, restored the way an operator restores one: `approvals.json` in a
/// state root without a database, migrated when the store is first used.
fn write_store(e: &Env, records: Vec<ApprovalRecord>) {
    assert!(
        !e.state.approvals_db_path().exists(),
        "restore into a fresh root"
    );
    std::fs::write(e.state.approvals_path(), json_form(&records)).unwrap();
}
