//! The single writer of the server's stdout, shared by every thread and task that answers.
//!
//! Each line is written whole under one lock and flushed, so lines never interleave and a
//! line is on the pipe when [`Output::write_line`] returns: whoever writes next (rmcp's
//! transport, the guard, an [`crate::Intercept`] and the threads it answers from) is ordered
//! after it. No queue and no writer task: a relayed answer costs one `write` and no wakeup.

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The server's stdout while the session lasts.
pub(crate) struct Output {
    writer: Mutex<Option<Box<dyn Write + Send>>>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output").finish_non_exhaustive()
    }
}

impl Output {
    /// The writer of `output`.
    pub(crate) fn new(output: Box<dyn Write + Send>) -> Arc<Self> {
        Arc::new(Self {
            writer: Mutex::new(Some(output)),
        })
    }

    /// Writes `line` (newline included) whole and flushes it; `false` once the session is
    /// over or stdout broke (the first failure closes it for every writer).
    pub(crate) fn write_line(&self, line: &[u8]) -> bool {
        self.write_line_marked(line, || {})
    }

    /// [`Output::write_line`] that runs `mark` under the writer's lock just before the write:
    /// whoever sees what `mark` did and then writes is written after `line`, and no reader of
    /// stdout can see `line` before `mark` ran.
    pub(crate) fn write_line_marked(&self, line: &[u8], mark: impl FnOnce()) -> bool {
        let mut writer = self.lock();
        mark();
        let Some(output) = writer.as_mut() else {
            return false;
        };
        match output.write_all(line).and_then(|()| output.flush()) {
            Ok(()) => true,
            Err(e) => {
                tracing::debug!("stdout write failed: {e}");
                *writer = None;
                false
            }
        }
    }

    /// Ends the session's output: later lines are dropped.
    pub(crate) fn close(&self) {
        if let Some(mut output) = self.lock().take() {
            let _ = output.flush();
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Box<dyn Write + Send>>> {
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
