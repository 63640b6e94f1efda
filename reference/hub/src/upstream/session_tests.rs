//! The client session against an in-process fake upstream: nothing stays registered after a
//! call ends (answered, cancelled, abandoned or failed), and cancellations are exact.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

use super::*;
use crate::upstream::wire::parse_response;

/// A fake upstream: answers `tools/call` of `echo` at once, never answers `hang`, and
/// reports every notification it receives.
async fn fake_upstream(
    input: DuplexStream,
    mut output: DuplexStream,
    notes: mpsc::UnboundedSender<Value>,
) {
    let mut lines = BufReader::new(input).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match (message.get("id"), message["params"]["name"].as_str()) {
            (Some(id), Some("echo")) => {
                let answer = json!({"jsonrpc": "2.0", "id": id,
                    "result": {"content": [{"type": "text", "text": "ok"}]}});
                let _ = output.write_all(format!("{answer}\n").as_bytes()).await;
            }
            (None, _) => {
                let _ = notes.send(message);
            }
            _ => {}
        }
    }
}

fn session() -> (Arc<Session>, mpsc::UnboundedReceiver<Value>) {
    let (hub_in, up_in) = tokio::io::duplex(64 * 1024);
    let (up_out, hub_out) = tokio::io::duplex(64 * 1024);
    let (notes_tx, notes) = mpsc::unbounded_channel();
    tokio::spawn(fake_upstream(up_in, up_out, notes_tx));
    let id = InstanceId::try_from("fake".to_owned()).expect("id");
    (Session::start(id, hub_in, hub_out), notes)
}

#[tokio::test]
async fn answered_calls_leave_nothing_behind() {
    let (session, _notes) = session();
    for _ in 0..1000 {
        let call = session.begin_call("echo", None, None).expect("begin");
        let line = call.response().await.expect("answer");
        let result: Value = parse_response(&line).expect("result");
        assert_eq!(result["content"][0]["text"], "ok");
        assert_eq!(session.pending_calls(), 0);
    }
}

#[tokio::test]
async fn abandoned_calls_leave_nothing_behind() {
    let (session, _notes) = session();
    let call = session.begin_call("hang", None, None).expect("begin");
    let waited = tokio::time::timeout(Duration::from_millis(20), call.response()).await;
    assert!(waited.is_err(), "hang never answers");
    assert_eq!(session.pending_calls(), 0);
}

#[tokio::test]
async fn a_cancellation_is_forwarded_once_with_the_upstream_id() {
    let (session, mut notes) = session();
    let mut call = session.begin_call("hang", None, None).expect("begin");
    let id = call.id();
    call.send().await.expect("sent");
    assert!(
        session
            .cancel(id, Some("bored".into()), Some(json!({"k": 1})))
            .await
    );
    assert_eq!(call.response().await, Err(SessionError::Cancelled));
    assert!(!session.cancel(id, None, None).await, "repeated");
    assert!(!session.cancel(id + 100, None, None).await, "unknown");
    let note = notes.recv().await.expect("notification");
    assert_eq!(
        note,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": id, "reason": "bored", "_meta": {"k": 1}}})
    );
    assert_eq!(session.pending_calls(), 0);
}

#[tokio::test]
async fn a_closed_session_fails_waiting_and_new_calls() {
    let (session, _notes) = session();
    let mut call = session.begin_call("hang", None, None).expect("begin");
    call.send().await.expect("sent");
    session.close();
    assert!(matches!(
        call.response().await,
        Err(SessionError::Closed(_))
    ));
    assert!(matches!(
        session.begin_call("echo", None, None),
        Err(SessionError::Closed(_))
    ));
    assert_eq!(session.pending_calls(), 0);
}
