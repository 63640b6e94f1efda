//! Tracing to stderr only, through a non-blocking writer, so a slow stderr reader never
//! stalls routing and stdout stays reserved for MCP.

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

/// The filter when `RUST_LOG` is unset or invalid, as the document gives it: dependencies at
/// info, the hub at debug. A normal start still logs no DEBUG record: the hub keeps DEBUG for
/// what is out of the ordinary (a restarted probe, a tool left out, an ignored message) and
/// logs the routine version negotiation of each start at TRACE.
pub const DEFAULT_FILTER: &str = "info,mcp_hub=debug";

/// Installs the subscriber. Keep the guard alive until exit: dropping it flushes the queue.
pub fn init() -> WorkerGuard {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    // Not lossy: a line is never dropped; a full queue makes the logging call wait instead.
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("mcp-hub-log")
        // Every line through the audit log's redactor: the MCP library logs whole messages
        // (tool arguments and results) at debug and trace.
        .finish(mcp_safety_core::redact::log::RedactingWriter::new(
            std::io::stderr(),
        ));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init();
    guard
}
