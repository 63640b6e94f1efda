//! A server's own handling of some input lines, ahead of the guard's judgement and of rmcp.
//!
//! rmcp parses every message into its typed model and serializes every answer from it, which
//! a relaying server cannot afford for the messages it only passes on: the model drops
//! fields it does not know (a tool's `execution`), spells numbers its own way (an `f32`
//! priority of `1` becomes `1.0`), and the parse, the task hops and the serialization cost
//! more than the relaying itself. A server that relays (mcp-hub) registers an
//! [`Intercept`]: every input line is offered to it first, with what the guard knows of the
//! lifecycle, and a line it takes is neither judged nor forwarded. It answers through the
//! same stdout writer as rmcp and the guard ([`LineSender`]), so lines never interleave.
//! What it does not take goes on exactly as before.

use std::sync::Arc;

use crate::output::Output;

/// Whole lines (newline included) to the server's stdout, written at once under the one
/// lock every writer takes (see [`crate::serve_guarded_with`]): from any thread or task.
///
/// Once the session is over (the guard and rmcp are done) a line sent is dropped (`send`
/// says `false`), however many of these a server still holds.
#[derive(Debug, Clone)]
pub struct LineSender(Arc<Output>);

impl LineSender {
    /// A sender of lines to `output`.
    pub(crate) fn new(output: &Arc<Output>) -> Self {
        Self(output.clone())
    }

    /// Writes `line` whole, blocking while the client's pipe is full; `false` once the
    /// session is over or stdout broke.
    pub fn send(&self, line: &[u8]) -> bool {
        self.0.write_line(line)
    }

    /// [`LineSender::send`], running `mark` under the writer's lock first (see
    /// [`Output::write_line_marked`]).
    pub(crate) fn send_marked(&self, line: &[u8], mark: impl FnOnce()) -> bool {
        self.0.write_line_marked(line, mark)
    }
}

/// What the guard has seen of the session's lifecycle when it offers a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// Nothing started it yet: rmcp answers only `initialize`, `ping`, `server/discover` and
    /// complete 2026-07-28 requests.
    NotStarted,
    /// An `initialize` was forwarded and its answer is not written yet: rmcp serves what
    /// follows after that answer, so a server taking lines now could answer before it.
    Initializing,
    /// The `initialize` answer is on stdout: a legacy session.
    Initialized,
    /// A complete 2026-07-28 request started rmcp's stateless lifecycle (every later request
    /// needs its protocol `_meta`).
    Stateless,
}

/// A server's handling of input lines before the guard judges them.
pub trait Intercept: Send + Sync + std::fmt::Debug + 'static {
    /// Called once, before any line is offered: where answers go.
    fn attach(&self, lines: LineSender);

    /// Offered each input line (newline, a trailing CR and a BOM removed; blank and oversized
    /// lines are never offered) in input order, on the guard's input thread (not a task of
    /// the runtime): the next line is read only once this returns, so it should do no more
    /// than route the line (writing to a pipe is fine; waiting on the runtime is not).
    /// `true`: the server took the line (and answers it, or not, as it must); `false`: the
    /// guard judges it as usual.
    fn offer(&self, line: &[u8], lifecycle: Lifecycle) -> bool;
}

#[cfg(test)]
#[path = "intercept_tests.rs"]
mod tests;
