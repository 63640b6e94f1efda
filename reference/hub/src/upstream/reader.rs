//! The reader thread of a session: every line of the upstream's stdout, routed (a response to
//! its waiter or relayed to the client, progress to the client, an upstream request
//! answered), and an oversized line turned into the error of the call it was meant for.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use std::io::{BufReader, Read};

use mcp_stdio_guard::{LineRead, read_bounded_line_blocking, scan_head};
use serde_json::Value;

use super::super::relay::Waiter;
use super::super::wire::{self, Head};
use super::{Pending, Session};

/// The reader thread: routes every line of the child's stdout, blocking on each read.
pub(super) fn read_lines<R: Read>(session: Arc<Session>, stdout: R, limit: usize) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let reason = loop {
        let mut line = Vec::with_capacity(512);
        match read_bounded_line_blocking(&mut reader, &mut line, limit) {
            Ok(LineRead::Line) => route(&session, line),
            Ok(LineRead::Oversized) => refuse_oversized(&session, &line, limit),
            Ok(LineRead::Eof) => break "its output ended".to_owned(),
            Err(e) => break format!("reading its output failed: {e}"),
        }
    };
    if session.closing.load(Ordering::Relaxed) || !session.ready.load(Ordering::Relaxed) {
        tracing::trace!(instance_id = %session.id, "upstream session ended ({reason})");
    } else {
        tracing::warn!(
            instance_id = %session.id,
            "upstream connection lost ({reason}); its tools stay listed and calls to them fail"
        );
    }
    session.fail_all(&reason);
}

/// Answers the call an upstream line longer than `limit` bytes was meant for, from the
/// line's first bytes (`head`): the line itself was consumed without being kept.
///
/// A head naming a top-level `method` is a request or notification: it is ignored (logged),
/// like any line the hub cannot use. Otherwise it is taken for a response:
/// * its `id` read for sure from the head names the call, which fails with -32603;
/// * without a sure `id`, the line is the answer to one of the pending calls, and nothing
///   tells which: every call pending on this upstream fails with -32603 (exactly the one
///   when only one is pending). A call failed wrongly this way gets an error, never a wrong
///   result; its real answer, if it comes, is then ignored as unmatched. Leaving them all
///   pending would leave the one the line answered waiting until the hub exits.
fn refuse_oversized(session: &Session, head: &[u8], limit: usize) {
    let head = scan_head(head);
    if head.has_method {
        tracing::warn!(
            instance_id = %session.id,
            "ignored an upstream request or notification longer than {limit} bytes"
        );
        return;
    }
    let message = format!(
        "upstream `{}` sent a response longer than {limit} bytes (the line limit, \
         MCP_MAX_LINE_BYTES); the result was discarded",
        session.id
    );
    let error = |id: u64| {
        let mut line = serde_json::to_vec(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32603, "message": message, "data": {"maxLineBytes": limit}},
        }))
        .unwrap_or_default();
        line.push(b'\n');
        line
    };
    let known = head.id.as_ref().and_then(Value::as_u64);
    let failed: Vec<(u64, Pending)> = match known {
        Some(id) => session
            .take_pending(id)
            .map(|p| (id, p))
            .into_iter()
            .collect(),
        None if head.id.is_some() => Vec::new(),
        None => session.lock().pending.drain().collect(),
    };
    tracing::warn!(
        instance_id = %session.id,
        failed_calls = failed.len(),
        id_known = known.is_some(),
        "discarded an upstream response longer than {limit} bytes; its call fails"
    );
    for (id, pending) in failed {
        match pending.waiter {
            Waiter::Reply(reply) => {
                let _ = reply.send(error(id));
            }
            Waiter::Relay(relay) => relay.reject(
                &session.id,
                -32603,
                &message,
                Some(&format!(r#"{{"maxLineBytes":{limit}}}"#)),
            ),
        }
    }
}

/// Routes one line from the upstream.
fn route(session: &Arc<Session>, line: Vec<u8>) {
    let Some(head) = Head::parse(&line) else {
        tracing::debug!(instance_id = %session.id, "ignored a non-JSON-RPC output line");
        return;
    };
    if let Some(id) = head.response_id() {
        let Some(pending) = session.take_pending(id) else {
            return;
        };
        match pending.waiter {
            Waiter::Relay(relay) => relay.deliver(&session.id, &head),
            Waiter::Reply(reply) => {
                drop(head);
                let _ = reply.send(line);
            }
        }
        return;
    }
    match (head.method.as_deref(), head.id_value()) {
        (Some(method), Some(id)) => {
            let answer = wire::answer_upstream_request(&id, method);
            session.answer_upstream(answer);
        }
        (Some("notifications/progress"), None) => forward_progress(session, &head),
        (Some("notifications/tools/list_changed"), None) => tracing::warn!(
            instance_id = %session.id,
            "upstream sent notifications/tools/list_changed; not forwarded, the tool inventory \
             stays as discovered at startup"
        ),
        (Some(method), None) => {
            tracing::debug!(instance_id = %session.id, method, "ignored an upstream notification");
        }
        (None, _) => {
            tracing::debug!(instance_id = %session.id, "ignored an unmatched upstream response");
        }
    }
}

/// Sends upstream progress of an active tokenized call to the client, with its own token;
/// everything else in the notification's params is passed on as the upstream wrote it.
fn forward_progress(session: &Session, head: &Head<'_>) {
    #[derive(serde::Deserialize)]
    struct Token {
        #[serde(rename = "progressToken")]
        progress_token: Option<Value>,
    }
    let Some(params) = head.params else {
        return;
    };
    let Ok(Token { progress_token }) = serde_json::from_str::<Token>(params.get()) else {
        return;
    };
    let Some(id) = progress_token.as_ref().and_then(Value::as_u64) else {
        return;
    };
    // No route: the call completed, was cancelled, or never asked for progress.
    let Some(route) = session.progress_route(id) else {
        return;
    };
    if !route.forward(params.get()) {
        tracing::debug!(instance_id = %session.id, "progress not delivered");
    }
}
