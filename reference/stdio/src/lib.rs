//! The stdio guard: a thin line-level filter in front of an rmcp server's stdio transport.
//!
//! rmcp 3.11 (see DESIGN.md) exits if a notification arrives before `initialize`, answers
//! well-formed-but-invalid JSON with a -32600 that has no `id` member, and drops malformed JSON.
//! A server must not die on bad input and must write only valid JSON-RPC to stdout, so every
//! reference server (ToolHub, mcp-hub) serves through this one guard:
//!
//! ```text
//!  real stdin ──► guard thread ──(parsed messages)──► rmcp service ──(lines)──┐
//!                    │                                                         ▼
//!                    └──────── guard's own answers (lines) ─────────► one locked writer ──► real stdout
//! ```
//!
//! * The guard reads stdin line by line, each line at most `MCP_MAX_LINE_BYTES` bytes (default
//!   16 MiB, newline not counted; see [`max_line_bytes`]). A longer line is consumed in
//!   constant memory and answered with an error carrying its `id` when its first bytes name
//!   one for sure (else `null`): -32600 when it may be a valid message that is too long,
//!   -32700 when it cannot be one (not JSON-like, or not UTF-8). Each line is parsed once, with the
//!   very type rmcp parses (`ClientJsonRpcMessage`), and that message is what rmcp receives
//!   (the guard is rmcp's transport: no second parse, no byte pipe in between).
//! * A line that is not JSON (malformed, or not valid UTF-8) is answered -32700 Parse error
//!   with `id: null`, as JSON-RPC 2.0 answers "rpc call with invalid JSON", and the server
//!   keeps serving.
//! * Well-formed JSON that is not a valid message is answered by the guard with -32600 carrying
//!   the message's `id` (or `null` when there is none usable), except notification-shaped
//!   objects, which are never answered.
//! * Before the lifecycle starts, notifications and responses are dropped, `ping` is answered
//!   with `{}`, and every other request is forwarded (rmcp answers `initialize`, the
//!   `server/discover` probe, 2026-07-28 requests carrying their metadata, and errors for the
//!   rest). The lifecycle starts when a valid `initialize` (or a complete 2026-07-28 request
//!   naming a version the service supports) is forwarded: everything after it in the ordered
//!   pipe reaches rmcp's main loop.
//! * A request declaring a 2026-07-28 (modern) version in `_meta` for `ping` or
//!   `logging/setLevel`, which that revision removed, is answered -32601 by the guard in any
//!   state (-32022 when the server does not speak the version it names); a request without
//!   a modern version in `_meta` is a legacy one and keeps the handling above.
//! * The guard reads stdin on a thread of its own, blocking on each read (a thread woken once
//!   per line costs less than a readiness loop and its task switches).
//! * Every line reaches stdout whole, under one lock, from rmcp's side of the transport, from
//!   the guard and from an intercept alike, so lines never interleave; a line is written
//!   when its writer returns, so what is written next comes after it.
//! * On stdin EOF the guard closes rmcp's input; rmcp's service ends and the caller returns.
//! * A server may take some lines itself before the guard judges them ([`Intercept`]: a
//!   relaying server, mcp-hub, passes tool calls and listings on as JSON text); it answers
//!   through the same writer.

//!
//! Beside the guard, the crate holds what every reference server must do alike above rmcp,
//! so it is written once: [`listing`] (one-page `tools/list`, invalid cursors refused) and
//! [`schema`] (tool schemas without non-standard formats or `type` arrays).

#![warn(missing_docs)]

pub mod cli;
pub mod fd;
mod intercept;
mod judge;
mod line;
pub mod listing;
mod output;
pub mod schema;
mod serve;
#[cfg(test)]
mod test_io;
mod transport;

pub use cli::clap_error_text;
pub use intercept::{Intercept, Lifecycle, LineSender};
pub use judge::{Verdict, judge, normalize, oversized};
pub use line::{
    LINE_LIMIT_ENV, LineHead, LineRead, MAX_CONFIGURABLE_LINE_BYTES, MAX_LINE_BYTES,
    MIN_LINE_BYTES, OVERSIZED_HEAD_BYTES, max_line_bytes, parse_line_limit, read_bounded_line,
    read_bounded_line_blocking, scan_head,
};
pub use serve::{
    GuardOptions, SessionEnd, serve_guarded, serve_guarded_with, serve_stdio, serve_stdio_then,
};
