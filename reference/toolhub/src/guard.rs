//! The stdio guard: a thin line-level filter in front of the rmcp transport.
//!
//! rmcp 3.11 (see DESIGN.md) exits if a notification arrives before `initialize`, answers
//! well-formed-but-invalid JSON with a -32600 that has no `id` member, and drops malformed JSON.
//! A server must not die on bad input and must write only valid JSON-RPC to stdout, so:
//!
//! ```text
//!  real stdin ──► guard task ──(duplex)──► rmcp service ──(duplex)──► pump task ─┐
//!                    │                                                             ▼
//!                    └──────────── guard's own answers (mpsc) ────────────► writer task ──► real stdout
//! ```
//!
//! * The guard reads stdin line by line (bounded length). Each line is parsed with the very type
//!   rmcp parses (`ClientJsonRpcMessage`), so whatever the guard forwards rmcp accepts.
//! * Malformed JSON is dropped (logged at debug), as the other MCP SDKs do.
//! * Well-formed JSON that is not a valid message is answered by the guard with -32600 carrying
//!   the message's `id` (or `null` when there is none usable), except notification-shaped
//!   objects, which are never answered.
//! * Before the lifecycle starts, notifications and responses are dropped, `ping` is answered
//!   with `{}`, and every other request is forwarded (rmcp answers `initialize`, the
//!   `server/discover` probe, 2026-07-28 requests carrying their metadata, and errors for the
//!   rest). The lifecycle starts when a valid `initialize` (or a complete 2026-07-28 request)
//!   is forwarded: everything after it in the ordered pipe reaches rmcp's main loop.
//! * Exactly one task writes stdout. It receives whole lines from the pump (rmcp's output) and
//!   from the guard, so lines never interleave.
//! * On stdin EOF the guard closes rmcp's input; rmcp's service ends, its output closes, the
//!   writer drains and the caller returns.

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion, RequestMetaObject,
};
use rmcp::{RoleServer, Service};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest accepted input line (rmcp's own default).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
const PIPE_BYTES: usize = 256 * 1024;
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How the session ended.
#[derive(Debug)]
pub enum SessionEnd {
    /// Input closed (normal stdio shutdown), before or after initialization.
    InputClosed,
    /// The rmcp service failed to start for another reason.
    InitFailed(String),
}

/// What the guard does with one input line.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Forward the (normalized) line to rmcp; `starts_lifecycle` marks `initialize` and
    /// complete 2026-07-28 requests.
    Forward { starts_lifecycle: bool },
    /// Answer on the guard's behalf with this JSON-RPC message.
    Answer(Value),
    /// Drop silently (logged at debug).
    Drop(&'static str),
}

/// Decides what to do with one line (without its newline, BOM or CR).
pub fn judge(line: &[u8], initialized: bool) -> Verdict {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(_) => return Verdict::Drop("malformed JSON"),
    };
    let message = match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(m) => m,
        Err(_) => return invalid(&value),
    };
    if initialized {
        return Verdict::Forward {
            starts_lifecycle: false,
        };
    }
    match message {
        ClientJsonRpcMessage::Request(req) => match &req.request {
            ClientRequest::PingRequest(_) => Verdict::Answer(json!({
                "jsonrpc": "2.0", "id": req.id, "result": {}
            })),
            ClientRequest::InitializeRequest(_) => Verdict::Forward {
                starts_lifecycle: true,
            },
            ClientRequest::DiscoverRequest(_) => Verdict::Forward {
                starts_lifecycle: false,
            },
            other => Verdict::Forward {
                starts_lifecycle: starts_inline_lifecycle(other.get_meta()),
            },
        },
        ClientJsonRpcMessage::Notification(_) => Verdict::Drop("notification before initialize"),
        _ => Verdict::Drop("response before initialize"),
    }
}

/// rmcp starts the 2026-07-28 lifecycle on the first request whose `_meta` is complete and
/// names a supported version.
fn starts_inline_lifecycle(meta: &RequestMetaObject) -> bool {
    meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
        .is_empty()
        && meta
            .protocol_version()
            .is_some_and(|v| ProtocolVersion::KNOWN_VERSIONS.contains(&v))
}

/// Well-formed JSON that is not a message rmcp accepts.
fn invalid(value: &Value) -> Verdict {
    let obj = value.as_object();
    let id = obj.and_then(|o| o.get("id"));
    let has_method = obj.is_some_and(|o| o.get("method").is_some_and(Value::is_string));
    if has_method && id.is_none() {
        return Verdict::Drop("invalid notification");
    }
    // A response we cannot parse is not answered either (answering responses can loop).
    if obj.is_some_and(|o| {
        !o.contains_key("method") && (o.contains_key("result") || o.contains_key("error"))
    }) {
        return Verdict::Drop("invalid response");
    }
    let id = match id {
        Some(Value::String(s)) => Value::String(s.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        _ => Value::Null,
    };
    Verdict::Answer(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32600, "message": "Invalid Request"}
    }))
}

/// Strips the newline, a trailing CR and a leading BOM.
fn normalize(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(UTF8_BOM).unwrap_or(line)
}

/// Reads one line of at most `max` bytes into `buf` (without dropping data on cancellation is
/// not needed here: the guard is the only reader). Returns `Ok(None)` on EOF, `Ok(Some(false))`
/// for an oversized line (discarded up to its newline), `Ok(Some(true))` for a line.
async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    buf.clear();
    let mut oversized = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if buf.is_empty() && !oversized {
                None
            } else if oversized {
                Some(false)
            } else {
                // A final line without newline: rmcp ignores it too, but serve it anyway.
                Some(true)
            });
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        if !oversized {
            if buf.len() + take > max {
                oversized = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&available[..take]);
            }
        }
        reader.consume(take);
        if newline.is_some() {
            return Ok(Some(!oversized));
        }
    }
}

/// The guard task: stdin lines in, forwarded lines to rmcp, own answers to the writer.
async fn guard_input<R, W>(input: R, mut to_rmcp: W, answers: mpsc::Sender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut buf = Vec::with_capacity(4096);
    let mut initialized = false;
    loop {
        match read_bounded_line(&mut reader, &mut buf, MAX_LINE_BYTES).await {
            Ok(None) => break,
            Err(e) => {
                tracing::debug!("stdin read failed: {e}");
                break;
            }
            Ok(Some(false)) => {
                tracing::warn!("dropped an input line longer than {MAX_LINE_BYTES} bytes");
                continue;
            }
            Ok(Some(true)) => {}
        }
        let line = normalize(&buf);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match judge(line, initialized) {
            Verdict::Forward { starts_lifecycle } => {
                initialized |= starts_lifecycle;
                let mut out = Vec::with_capacity(line.len() + 1);
                out.extend_from_slice(line);
                out.push(b'\n');
                if to_rmcp.write_all(&out).await.is_err() || to_rmcp.flush().await.is_err() {
                    tracing::debug!("rmcp input closed; guard stops");
                    break;
                }
            }
            Verdict::Answer(value) => {
                let mut out = value.to_string().into_bytes();
                out.push(b'\n');
                if answers.send(out).await.is_err() {
                    break;
                }
            }
            Verdict::Drop(why) => tracing::debug!("guard dropped an input line: {why}"),
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// The pump task: rmcp's output, split into whole lines for the writer.
async fn pump_output<R: AsyncRead + Unpin>(from_rmcp: R, lines: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::with_capacity(64 * 1024, from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if lines.send(line).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// The single stdout writer.
async fn write_lines<W: AsyncWrite + Unpin>(mut rx: mpsc::Receiver<Vec<u8>>, mut output: W) {
    while let Some(line) = rx.recv().await {
        if output.write_all(&line).await.is_err() {
            break;
        }
        // Flush per line, unless more lines are already waiting.
        if rx.is_empty() && output.flush().await.is_err() {
            break;
        }
    }
    let _ = output.flush().await;
}

/// Serves `service` over `input`/`output` behind the guard until input closes.
pub async fn serve_guarded<S, R, W>(service: S, input: R, output: W) -> SessionEnd
where
    S: Service<RoleServer>,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp_w, to_rmcp_r) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp_w, from_rmcp_r) = tokio::io::duplex(PIPE_BYTES);
    let (line_tx, line_rx) = mpsc::channel::<Vec<u8>>(256);

    let writer = tokio::spawn(write_lines(line_rx, output));
    let pump = tokio::spawn(pump_output(from_rmcp_r, line_tx.clone()));
    let guard = tokio::spawn(guard_input(input, to_rmcp_w, line_tx));

    let end = match rmcp::serve_server(service, (to_rmcp_r, from_rmcp_w)).await {
        Ok(running) => {
            let _ = running.waiting().await;
            SessionEnd::InputClosed
        }
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => SessionEnd::InputClosed,
        Err(e) => SessionEnd::InitFailed(e.to_string()),
    };
    // rmcp's transport is gone: its output pipe is closed, so the pump ends by itself. The
    // guard may still be blocked on a stdin read when rmcp ended for another reason: stop it.
    let _ = pump.await;
    guard.abort();
    let _ = guard.await;
    let _ = writer.await;
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fwd(start: bool) -> Verdict {
        Verdict::Forward {
            starts_lifecycle: start,
        }
    }

    #[test]
    fn malformed_json_is_dropped() {
        assert!(matches!(judge(b"{\"jsonrpc\": ", false), Verdict::Drop(_)));
        assert!(matches!(judge(b"not json", true), Verdict::Drop(_)));
    }

    #[test]
    fn notifications_before_initialize_are_dropped() {
        let line = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(judge(line, false), Verdict::Drop(_)));
        assert_eq!(judge(line, true), fwd(false));
    }

    #[test]
    fn initialize_starts_the_lifecycle_and_ping_is_answered_before_it() {
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        assert_eq!(judge(init, false), fwd(true));
        let ping = br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#;
        assert_eq!(
            judge(ping, false),
            Verdict::Answer(json!({"jsonrpc":"2.0","id":"p","result":{}}))
        );
        assert_eq!(judge(ping, true), fwd(false));
    }

    #[test]
    fn a_complete_2026_request_starts_the_lifecycle_others_are_forwarded() {
        let inline = br#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        assert_eq!(judge(inline, false), fwd(true));
        // rmcp answers these itself (with an error) and stays in its pre-initialize loop.
        let bare = br#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#;
        assert_eq!(judge(bare, false), fwd(false));
        let discover = br#"{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{}}"#;
        assert_eq!(judge(discover, false), fwd(false));
        let response = br#"{"jsonrpc":"2.0","id":6,"result":{}}"#;
        assert!(matches!(judge(response, false), Verdict::Drop(_)));
    }

    #[test]
    fn invalid_messages_get_an_error_with_an_id() {
        for (line, id) in [
            (&br#"{"jsonrpc":"2.0","id":7}"#[..], json!(7)),
            (&br#"[1,2]"#[..], Value::Null),
            (&br#"{"id":"x","method":"ping"}"#[..], json!("x")),
            (&br#"42"#[..], Value::Null),
        ] {
            match judge(line, true) {
                Verdict::Answer(v) => {
                    assert_eq!(v["id"], id, "{}", String::from_utf8_lossy(line));
                    assert_eq!(v["error"]["code"], -32600);
                }
                other => panic!("{other:?} for {}", String::from_utf8_lossy(line)),
            }
        }
    }

    #[test]
    fn normalize_strips_bom_and_crlf() {
        assert_eq!(normalize(b"\xEF\xBB\xBF{}\r\n"), b"{}");
    }
}
