//! The tasks that read a server's stdout (routing our responses, answering the server's own
//! requests, queueing the rest, recording what is not JSON-RPC) and its stderr.

use super::check::{PROGRESS_ACTIVE, Violation, check, id_key};
use super::inbox::{
    Inbox, Queued, STDERR_KEEP, STDOUT_TEXT_KEEP, Shared, TRANSCRIPT_LINE_CHARS, VIOLATIONS_KEEP,
};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStdin;

/// Reads stdout line by line: routes our responses, answers the server's own requests,
/// queues the rest, records what is not JSON-RPC.
pub(super) async fn read_stdout(
    out: tokio::process::ChildStdout,
    shared: Arc<Shared>,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
) {
    let mut reader = BufReader::new(out);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf).into_owned();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        let reply = handle_line(&shared, trimmed);
        if let Some(reply) = reply {
            let mut guard = stdin.lock().await;
            if let Some(w) = guard.as_mut() {
                let mut text = reply.to_string();
                text.push('\n');
                let _ = w.write_all(text.as_bytes()).await;
                let _ = w.flush().await;
                drop(guard);
                shared.lock().note("->", &reply.to_string());
            }
        }
        shared.changed.notify_waiters();
    }
    shared.lock().stdout_closed = true;
    shared.changed.notify_waiters();
}

/// Files one stdout line; returns a reply when the server asked us something.
fn handle_line(shared: &Shared, line: &str) -> Option<Value> {
    let mut inbox = shared.lock();
    inbox.note("<-", line);
    if inbox.stdout_text.len() < STDOUT_TEXT_KEEP {
        inbox.stdout_text.push_str(line);
        inbox.stdout_text.push('\n');
    }
    let Some(msg) = serde_json::from_str::<Value>(line)
        .ok()
        .filter(Value::is_object)
    else {
        inbox
            .invalid
            .push(line.chars().take(TRANSCRIPT_LINE_CHARS).collect());
        return None;
    };
    if is_jsonrpc(&msg) {
        inbox.messages += 1;
    } else {
        // Still queued below, so `expect_message`/`no_message` can see what it was.
        inbox
            .invalid
            .push(line.chars().take(TRANSCRIPT_LINE_CHARS).collect());
    }
    let has_method = msg.get("method").is_some();
    let id = msg.get("id").cloned();
    let checked = check(&msg, &inbox.sent);
    let broken = checked.violation.is_some();
    if let Some(v) = checked.violation {
        tracing::debug!(violation = %v.what, "the server broke JSON-RPC 2.0");
        // An answer to a request we wait for ends that wait, with what is wrong with it.
        if let Some(key) = &v.answers
            && inbox.our_ids.contains(key)
        {
            inbox
                .near_misses
                .entry(key.clone())
                .or_insert_with(|| v.clone());
        }
        if inbox.violations.len() < VIOLATIONS_KEEP {
            inbox.violations.push(v);
        }
    }
    if !has_method
        && let Some(id) = &id
        && inbox.our_ids.remove(&id_key(id))
    {
        inbox.answered.insert(id_key(id), msg.clone());
        // A malformed answer waits in `near_misses`, not as the answer.
        if !broken {
            inbox.responses.insert(id_key(id), msg);
        }
        return None;
    }
    if msg.get("method").and_then(Value::as_str) == Some("notifications/progress")
        && let Some(token) = msg.pointer("/params/progressToken")
    {
        if let Some(late) = progress_problem(&inbox, token, &msg)
            && inbox.violations.len() < VIOLATIONS_KEEP
        {
            inbox.violations.push(late);
        }
        let key = match token {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        inbox.progress.entry(key).or_default().push(msg.clone());
    }
    if let Some(asked) = super::asked::problem(&inbox, &msg)
        && inbox.violations.len() < VIOLATIONS_KEEP
    {
        inbox.violations.push(asked);
    }
    let scripted = msg
        .get("method")
        .and_then(Value::as_str)
        .and_then(|m| inbox.answers.get(m))
        .cloned();
    let reply = match (&id, msg.get("method").and_then(Value::as_str)) {
        (Some(id), Some(_)) if let Some(mut body) = scripted => {
            body["jsonrpc"] = json!("2.0");
            body["id"] = id.clone();
            Some(body)
        }
        (Some(id), Some("ping")) => Some(json!({"jsonrpc": "2.0", "id": id, "result": {}})),
        (Some(id), Some(method)) => Some(json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": format!("the conformance client does not support {method}")}})),
        _ => None,
    };
    inbox.queue.push(Queued {
        message: msg,
        consumed: false,
    });
    reply
}

/// Progress for a token no request of ours carried, or whose request was already answered:
/// stdout is one ordered stream, so an answer read before the notification was written
/// before it.
fn progress_problem(inbox: &Inbox, token: &Value, msg: &Value) -> Option<Violation> {
    let what = match inbox.progress_requests.get(&id_key(token)) {
        None => format!("progress notification for token {token}, which no request carried"),
        Some(request) => {
            inbox.answered.get(request)?;
            format!(
                "progress notification for token {token} after the response to request {request}"
            )
        }
    };
    Some(Violation {
        what,
        rule: PROGRESS_ACTIVE,
        message: msg.clone(),
        answers: None,
    })
}

/// A JSON-RPC 2.0 request, notification or response object.
fn is_jsonrpc(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return false;
    }
    let method = obj.get("method").map(Value::is_string);
    let result = obj.contains_key("result");
    let error = obj.get("error").map(|e| {
        e.get("code").is_some_and(Value::is_i64) && e.get("message").is_some_and(Value::is_string)
    });
    let id_ok = match obj.get("id") {
        None => true,
        Some(Value::String(_)) | Some(Value::Null) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        Some(_) => false,
    };
    id_ok
        && match (method, result, error) {
            (Some(true), false, None) => true,
            // A result answers a request, so it must carry that request's id.
            (None, true, None) => obj.get("id").is_some_and(|id| !id.is_null()),
            (None, false, Some(true)) => obj.contains_key("id"),
            _ => false,
        }
}

pub(super) async fn read_stderr(mut err: tokio::process::ChildStderr, shared: Arc<Shared>) {
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match err.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                shared.lock().stderr_closed = true;
                shared.changed.notify_waiters();
                break;
            }
            Ok(n) => {
                let mut inbox = shared.lock();
                inbox.stderr.extend_from_slice(&chunk[..n]);
                if inbox.stderr.len() > STDERR_KEEP {
                    let cut = inbox.stderr.len() - STDERR_KEEP;
                    inbox.stderr.drain(..cut);
                    inbox.stderr_dropped += cut;
                }
            }
        }
        shared.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> Shared {
        Shared {
            inbox: std::sync::Mutex::new(Inbox::default()),
            changed: tokio::sync::Notify::new(),
        }
    }

    #[test]
    fn progress_only_for_a_request_in_progress() {
        let s = shared();
        {
            let mut inbox = s.lock();
            inbox
                .progress_requests
                .insert(id_key(&json!("t1")), id_key(&json!(1)));
            inbox.our_ids.insert(id_key(&json!(1)));
            inbox.sent.insert(id_key(&json!(1)));
        }
        let progress = |token: &str| {
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": token, "progress": 1}})
            .to_string()
        };
        handle_line(&s, &progress("t1"));
        assert!(s.lock().violations.is_empty(), "in progress: fine");
        handle_line(&s, &progress("nobody"));
        handle_line(&s, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        handle_line(&s, &progress("t1"));
        let found: Vec<String> = s.lock().violations.iter().map(|v| v.what.clone()).collect();
        assert_eq!(
            found,
            [
                "progress notification for token \"nobody\", which no request carried",
                "progress notification for token \"t1\" after the response to request 1",
            ]
        );
    }

    #[test]
    fn jsonrpc_shapes() {
        assert!(is_jsonrpc(&json!({"jsonrpc":"2.0","id":1,"result":{}})));
        assert!(is_jsonrpc(&json!({"jsonrpc":"2.0","method":"x"})));
        assert!(is_jsonrpc(
            &json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}})
        ));
        assert!(!is_jsonrpc(&json!({"jsonrpc":"2.0","result":{}})));
        assert!(!is_jsonrpc(&json!({"jsonrpc":"2.0","id":null,"result":{}})));
        assert!(!is_jsonrpc(&json!({"id":1,"result":{}})));
        assert!(!is_jsonrpc(
            &json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}})
        ));
        assert!(!is_jsonrpc(&json!({"jsonrpc":"2.0","id":1.5,"result":{}})));
        assert!(!is_jsonrpc(&json!([1])));
    }
}
