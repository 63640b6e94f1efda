//! The client session against an in-process fake upstream: nothing stays registered after a
//! call ends (answered, cancelled, abandoned or failed), and cancellations are exact.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::sync::mpsc;

use super::*;
use crate::upstream::bounded;
use crate::upstream::wire::parse_response;

/// A fake upstream: answers `tools/call` of `echo` at once, never answers `hang`, and
/// reports every notification it receives.
async fn fake_upstream(
    input: pipe::Receiver,
    mut output: pipe::Sender,
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
            // Oversized lines (see `LIMIT`): the id first, the id last, or a notification
            // before a normal answer.
            (Some(id), Some("big")) => {
                let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"x":"{HUGE}"}}}}"#);
                let _ = output.write_all(format!("{answer}\n").as_bytes()).await;
            }
            (Some(id), Some("big_id_last")) => {
                let answer = format!(r#"{{"jsonrpc":"2.0","result":{{"x":"{HUGE}"}},"id":{id}}}"#);
                let _ = output.write_all(format!("{answer}\n").as_bytes()).await;
            }
            // An oversized response whose id is sure but none of ours (the hub's ids are
            // numbers), then the real answer.
            (Some(id), Some("big_foreign_id")) => {
                let foreign =
                    format!(r#"{{"jsonrpc":"2.0","id":"not-ours","result":{{"x":"{HUGE}"}}}}"#);
                let answer = json!({"jsonrpc": "2.0", "id": id,
                    "result": {"content": [{"type": "text", "text": "ok"}]}});
                let _ = output
                    .write_all(format!("{foreign}\n{answer}\n").as_bytes())
                    .await;
            }
            (Some(id), Some("big_note")) => {
                let note = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{HUGE}"}}}}"#
                );
                let answer = json!({"jsonrpc": "2.0", "id": id,
                    "result": {"content": [{"type": "text", "text": "ok"}]}});
                let _ = output
                    .write_all(format!("{note}\n{answer}\n").as_bytes())
                    .await;
            }
            (None, _) => {
                let _ = notes.send(message);
            }
            _ => {}
        }
    }
}

/// The line limit of these sessions, and a string that makes a line longer.
const LIMIT: usize = 4096;
const HUGE: &str = match str::from_utf8(&[b'x'; 3 * LIMIT]) {
    Ok(s) => s,
    Err(_) => panic!(),
};

fn session() -> (Arc<Session>, mpsc::UnboundedReceiver<Value>) {
    let (hub_in, up_in, up_out, hub_out) = super::super::test_pipes();
    let (notes_tx, notes) = mpsc::unbounded_channel();
    tokio::spawn(fake_upstream(up_in, up_out, notes_tx));
    let id = InstanceId::try_from("fake".to_owned()).expect("id");
    (Session::start_with_limit(id, hub_in, hub_out, LIMIT), notes)
}

#[tokio::test]
async fn answered_calls_leave_nothing_behind() {
    bounded(async {
        let (session, _notes) = session();
        for _ in 0..1000 {
            let call = session.begin_call("echo", None, None).expect("begin");
            let line = call.response().await.expect("answer");
            let result: Value = parse_response(&line).expect("result");
            assert_eq!(result["content"][0]["text"], "ok");
            assert_eq!(session.pending_calls(), 0);
        }
    })
    .await;
}

#[tokio::test]
async fn abandoned_calls_leave_nothing_behind() {
    bounded(async {
        let (session, _notes) = session();
        let call = session.begin_call("hang", None, None).expect("begin");
        let waited = tokio::time::timeout(Duration::from_millis(20), call.response()).await;
        assert!(waited.is_err(), "hang never answers");
        assert_eq!(session.pending_calls(), 0);
    })
    .await;
}

#[tokio::test]
async fn a_cancellation_is_forwarded_once_with_the_upstream_id() {
    bounded(async {
        let (session, mut notes) = session();
        let mut call = session.begin_call("hang", None, None).expect("begin");
        let id = call.id();
        call.send().expect("sent");
        assert!(session.cancel(id, Some("bored".into()), Some(json!({"k": 1}))));
        assert_eq!(call.response().await, Err(SessionError::Cancelled));
        assert!(!session.cancel(id, None, None), "repeated");
        assert!(!session.cancel(id + 100, None, None), "unknown");
        let note = notes.recv().await.expect("notification");
        assert_eq!(
            note,
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": id, "reason": "bored", "_meta": {"k": 1}}})
        );
        assert_eq!(session.pending_calls(), 0);
    })
    .await;
}

#[tokio::test]
async fn a_closed_session_fails_waiting_and_new_calls() {
    bounded(async {
        let (session, _notes) = session();
        let mut call = session.begin_call("hang", None, None).expect("begin");
        call.send().expect("sent");
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
    })
    .await;
}

/// The JSON-RPC error a call got.
async fn rpc_error(call: Call<'_>) -> crate::upstream::wire::RpcError {
    let line = call.response().await.expect("an answer, not silence");
    match parse_response::<Value>(&line) {
        Err(crate::upstream::wire::ResponseError::Rpc(e)) => e,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_oversized_response_fails_its_call_and_the_session_goes_on() {
    bounded(async {
        let (session, _notes) = session();
        let hang = session.begin_call("hang", None, None).expect("begin");
        let mut hang = hang;
        hang.send().expect("sent");
        // The id is read from the line's start: only that call fails.
        let e = rpc_error(session.begin_call("big", None, None).expect("begin")).await;
        assert_eq!(e.code, -32603);
        assert!(
            e.message.contains("longer than 4096 bytes"),
            "{}",
            e.message
        );
        assert_eq!(
            session.pending_calls(),
            1,
            "the other call is still pending"
        );
        // An oversized response with a sure id that names none of our calls fails nothing.
        let call = session
            .begin_call("big_foreign_id", None, None)
            .expect("begin");
        let line = call.response().await.expect("answer");
        assert!(parse_response::<Value>(&line).is_ok(), "{line:?}");
        assert_eq!(
            session.pending_calls(),
            1,
            "the hanging call is still pending"
        );
        // An oversized notification fails nothing.
        let call = session.begin_call("big_note", None, None).expect("begin");
        let line = call.response().await.expect("answer");
        assert!(parse_response::<Value>(&line).is_ok());
        // No id in the line's start: every pending call fails (the one it answered among them).
        let e = rpc_error(
            session
                .begin_call("big_id_last", None, None)
                .expect("begin"),
        )
        .await;
        assert_eq!(e.code, -32603);
        assert_eq!(rpc_error(hang).await.code, -32603);
        assert_eq!(session.pending_calls(), 0);
        // And the session serves on.
        let call = session.begin_call("echo", None, None).expect("begin");
        let result: Value = parse_response(&call.response().await.expect("answer")).expect("ok");
        assert_eq!(result["content"][0]["text"], "ok");
    })
    .await;
}

/// An upstream that stops reading its stdin holds up a write to it once the pipe is full;
/// closing the session does not wait for that write, and the write, once it is done, closes
/// stdin itself: the upstream reads the whole line, then the end of its input (the stdio
/// shutdown signal).
#[tokio::test]
async fn closing_never_waits_on_a_write_to_an_upstream_that_stopped_reading() {
    bounded(async {
        let (hub_in, mut up_in, _up_out, hub_out) = super::super::test_pipes();
        let id = InstanceId::try_from("deaf".to_owned()).expect("id");
        let session = Session::start_with_limit(id, hub_in, hub_out, LIMIT);
        // Far more than a pipe holds: the write blocks, holding the stdin lock.
        const LINE: usize = 4 * 1024 * 1024;
        let writer = {
            let session = session.clone();
            tokio::task::spawn_blocking(move || session.send_line(&vec![b'x'; LINE]))
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while session.stdin.try_lock().is_ok() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the write never began"
            );
            tokio::task::yield_now().await;
        }
        let closing = {
            let session = session.clone();
            tokio::task::spawn_blocking(move || session.close())
        };
        tokio::time::timeout(Duration::from_secs(5), closing)
            .await
            .expect("close returns while the write is blocked")
            .expect("join");
        assert!(!writer.is_finished(), "the write is still blocked");
        // The upstream reads again: the whole line, then the end of its stdin.
        let mut read = Vec::new();
        let to_end = tokio::io::AsyncReadExt::read_to_end(&mut up_in, &mut read);
        tokio::time::timeout(Duration::from_secs(10), to_end)
            .await
            .expect("stdin ends once the line is written")
            .expect("read to the end");
        assert_eq!(read.len(), LINE);
        assert_eq!(writer.await.expect("join"), Ok(()));
    })
    .await;
}

/// A request of the upstream's own gets its answer (MCP, ping: "The receiver MUST respond
/// promptly with an empty response"; anything else is refused), off the reader thread.
#[tokio::test]
async fn the_upstreams_own_requests_are_answered() {
    bounded(async {
        let (hub_in, up_in, mut up_out, hub_out) = super::super::test_pipes();
        let id = InstanceId::try_from("asking".to_owned()).expect("id");
        let _session = Session::start_with_limit(id, hub_in, hub_out, LIMIT);
        up_out
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"u-1\",\"method\":\"ping\"}\n")
            .await
            .expect("write");
        let mut lines = BufReader::new(up_in).lines();
        let answer = lines.next_line().await.expect("read").expect("an answer");
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "u-1", "result": {}}));
    })
    .await;
}
