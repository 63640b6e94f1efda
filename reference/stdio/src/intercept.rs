//! A server's own handling of some input lines, ahead of the guard's judgement and of rmcp.
//!
//! rmcp parses every message into its typed model and serializes every answer from it, which
//! a relaying server cannot afford for the messages it only passes on: the model drops
//! fields it does not know (a tool's `execution`), spells numbers its own way (an `f32`
//! priority of `1` becomes `1.0`), and the parse, the task hops and the serialization cost
//! more than the relaying itself. A server that relays (mcp-hub) registers an
//! [`Intercept`]: every input line is offered to it first, with what the guard knows of the
//! lifecycle, and a line it takes is neither judged nor forwarded. It answers through the
//! same single stdout writer as rmcp and the guard ([`LineSender`]), so lines never
//! interleave. What it does not take goes on exactly as before.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::mpsc;
pub use tokio::sync::mpsc::error::TrySendError;

/// Whole lines (newline included) to the single stdout writer.
///
/// It never keeps the writer alive: the session ends (and its caller returns) when the
/// guard and rmcp are done, however many of these a server still holds; a line sent after
/// that is dropped (`send` says `false`).
#[derive(Debug, Clone)]
pub struct LineSender(mpsc::WeakSender<Vec<u8>>);

impl LineSender {
    /// A sender of lines to the writer behind `lines`.
    pub(crate) fn new(lines: &mpsc::Sender<Vec<u8>>) -> Self {
        Self(lines.downgrade())
    }

    /// Queues `line`, waiting while the queue is full; `false` once the session is over.
    pub async fn send(&self, line: Vec<u8>) -> bool {
        match self.0.upgrade() {
            Some(lines) => lines.send(line).await.is_ok(),
            None => false,
        }
    }

    /// Queues `line` if the queue has room now; gives it back when it has not
    /// ([`TrySendError::Full`]) or when the session is over ([`TrySendError::Closed`]).
    pub fn try_send(&self, line: Vec<u8>) -> Result<(), TrySendError<Vec<u8>>> {
        match self.0.upgrade() {
            Some(lines) => lines.try_send(line),
            None => Err(TrySendError::Closed(line)),
        }
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
    /// The `initialize` answer is written: a legacy session.
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
    /// lines are never offered) in input order; the next line is offered only once the
    /// returned future is done. `true`: the server took the line (and answers it, or not, as
    /// it must); `false`: the guard judges it as usual.
    fn offer<'a>(
        &'a self,
        line: &'a [u8],
        lifecycle: Lifecycle,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + 'a>>;
}

#[cfg(test)]
#[path = "intercept_tests.rs"]
mod tests;
