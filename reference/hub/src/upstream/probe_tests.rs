//! The `server/discover` probe decides the generation as the 2026-07-28 stdio binding's
//! "Backward Compatibility" says (see the module documentation of [`super`]): a modern
//! version offered is modern, -32022 is retried once, anything else (or silence) is legacy.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::*;
use crate::config::InstanceId;

/// A fake upstream answering each `server/discover` with the next scripted answer
/// (`None`: silence), reporting every request it receives.
fn upstream(script: Vec<Option<Value>>) -> (Arc<Session>, mpsc::UnboundedReceiver<Value>) {
    let (hub_in, up_in, mut up_out, hub_out) = test_pipes();
    let (seen_tx, seen) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut script = script.into_iter();
        let mut lines = BufReader::new(up_in).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let _ = seen_tx.send(message.clone());
            if message["method"] != "server/discover" {
                continue;
            }
            if let Some(Some(mut answer)) = script.next() {
                answer["jsonrpc"] = json!("2.0");
                answer["id"] = message["id"].clone();
                let _ = up_out.write_all(format!("{answer}\n").as_bytes()).await;
            }
        }
    });
    let id = InstanceId::try_from("probe".to_owned()).expect("id");
    (Session::start(id, hub_in, hub_out), seen)
}

fn unsupported(supported: Value) -> Option<Value> {
    Some(
        json!({"error": {"code": -32022, "message": "Unsupported protocol version",
        "data": {"requested": "2026-07-28", "supported": supported}}}),
    )
}

async fn run(script: Vec<Option<Value>>) -> (Result<Probed, StartError>, Vec<Value>) {
    let (session, mut seen) = upstream(script);
    let outcome = probe(&session, Duration::from_millis(200)).await;
    session.close();
    let mut requests = Vec::new();
    while let Ok(message) = seen.try_recv() {
        requests.push(message);
    }
    (outcome, requests)
}

#[tokio::test]
async fn a_discover_result_with_a_modern_version_is_modern() {
    bounded(async {
        let (outcome, requests) = run(vec![Some(json!({"result": {
            "supportedVersions": ["2025-11-25", "2026-07-28"], "capabilities": {}}}))])
        .await;
        assert_eq!(outcome.ok(), Some(Probed::Modern("2026-07-28".into())));
        let meta = &requests[0]["params"]["_meta"];
        assert_eq!(meta[wire::META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(meta[wire::META_CLIENT_CAPABILITIES], json!({}));
        assert_eq!(meta[wire::META_CLIENT_INFO]["name"], "mcp-hub");
    })
    .await;
}

#[tokio::test]
async fn unsupported_version_is_retried_once_then_legacy_or_omitted() {
    bounded(async {
        let retried = run(vec![
            unsupported(json!(["2026-07-28"])),
            Some(json!({"result": {"supportedVersions": ["2026-07-28"], "capabilities": {}}})),
        ])
        .await;
        assert_eq!(retried.0.ok(), Some(Probed::Modern("2026-07-28".into())));
        assert_eq!(retried.1.len(), 2);
        let looping = run(vec![
            unsupported(json!(["2026-07-28"])),
            unsupported(json!(["2026-07-28"])),
        ])
        .await;
        assert!(matches!(looping.0, Err(StartError::NoCommonVersion(_))));
        let legacy = run(vec![unsupported(json!(["2025-06-18"]))]).await;
        assert_eq!(legacy.0.ok(), Some(Probed::Legacy));
        let foreign = run(vec![unsupported(json!(["2099-01-01"]))]).await;
        assert!(matches!(foreign.0, Err(StartError::NoCommonVersion(v)) if v == ["2099-01-01"]));
    })
    .await;
}

#[tokio::test]
async fn any_other_error_a_malformed_answer_or_silence_is_legacy() {
    bounded(async {
        for answer in [
            Some(json!({"error": {"code": -32601, "message": "no"}})),
            Some(json!({"error": {"code": -32602, "message": "no"}})),
            Some(json!({"error": {"code": -32603, "message": "no"}})),
            Some(json!({"result": {"unexpected": true}})),
            None,
        ] {
            let (outcome, _) = run(vec![answer.clone()]).await;
            assert_eq!(outcome.ok(), Some(Probed::Legacy), "{answer:?}");
        }
        let legacy_only = run(vec![Some(json!({"result": {
            "supportedVersions": ["2025-11-25"], "capabilities": {}}}))])
        .await;
        assert_eq!(legacy_only.0.ok(), Some(Probed::Legacy));
    })
    .await;
}
