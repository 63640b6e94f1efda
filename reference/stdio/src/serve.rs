//! What runs around the rmcp service: the guard, a thread reading stdin, and the one stdout
//! writer every answer goes through.
//!
//! The guard reads stdin by blocking on it, on a thread of its own: it wakes once per line
//! and hands rmcp the parsed message, and an [`Intercept`] answers what it takes right there
//! (for mcp-hub, a call written to its upstream from this thread, the upstream's answer
//! written to stdout from that upstream's reader thread), so a relayed call never waits for
//! the runtime to be scheduled.

use std::io::{BufReader, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{ClientJsonRpcMessage, ProtocolVersion};
use rmcp::{RoleServer, Service};
use tokio::sync::{Notify, mpsc};

use crate::fd::process_stdio;
use crate::intercept::{Intercept, Lifecycle, LineSender};
use crate::judge::{Verdict, judge, normalize, oversized};
use crate::line::{LineRead, max_line_bytes, read_bounded_line_blocking};
use crate::output::Output;
use crate::transport::GuardTransport;

/// Messages queued for rmcp before the guard waits.
const QUEUE: usize = 256;

/// How the session ended.
#[derive(Debug)]
pub enum SessionEnd {
    /// Input closed (normal stdio shutdown), before or after initialization.
    InputClosed,
    /// The rmcp service failed to start for another reason.
    InitFailed(String),
}

/// What a server adds to the guard's default behaviour.
#[derive(Debug, Clone, Default)]
pub struct GuardOptions {
    /// Versions an `initialize` request may ask for that the server answers verbatim although
    /// rmcp would negotiate them down.
    ///
    /// rmcp 3.11 answers an `initialize` asking for 2026-07-28 with 2025-11-25 whatever the
    /// handler returns (2026-07-28 has no `initialize` handshake in its model). A server that
    /// accepts 2026-07-28 through the legacy lifecycle lists it here: the session stays a
    /// legacy session inside rmcp, and the transport writes the requested version into that
    /// one `initialize` answer.
    pub echo_initialize_versions: Vec<ProtocolVersion>,
    /// Notified (one permit) when stdin ends, before rmcp drains its in-flight requests, so a
    /// server whose requests wait on something else (mcp-hub: on upstreams) can end them
    /// instead of letting rmcp wait for them.
    pub input_closed: Option<Arc<Notify>>,
    /// Offered every input line before the guard judges it (see [`Intercept`]).
    pub intercept: Option<Arc<dyn Intercept>>,
}

/// What the guard needs besides its input and output.
struct GuardState {
    supported: Vec<ProtocolVersion>,
    input_closed: Option<Arc<Notify>>,
    intercept: Option<Arc<dyn Intercept>>,
    /// Set by the transport once rmcp's `initialize` answer is on its way to stdout.
    initialize_answered: Arc<AtomicBool>,
    limit: usize,
}

/// The guard, on its input thread: stdin lines in, parsed messages to rmcp, its own answers
/// to stdout.
fn guard_input<R: Read>(
    input: R,
    to_rmcp: mpsc::Sender<ClientJsonRpcMessage>,
    answers: LineSender,
    state: GuardState,
) {
    let GuardState {
        supported,
        input_closed,
        intercept,
        initialize_answered,
        limit,
    } = state;
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut buf = Vec::with_capacity(4096);
    let mut initialized = false;
    // How the lifecycle started, once it did: by `initialize` (legacy) or not (stateless).
    let mut started_by_initialize = false;
    if let Some(intercept) = &intercept {
        intercept.attach(answers.clone());
    }
    loop {
        match read_bounded_line_blocking(&mut reader, &mut buf, limit) {
            Ok(LineRead::Eof) => break,
            Err(e) => {
                tracing::debug!("stdin read failed: {e}");
                break;
            }
            Ok(LineRead::Oversized) => {
                tracing::warn!("refused an input line longer than {limit} bytes");
                let mut out = oversized(&buf, limit).to_string().into_bytes();
                out.push(b'\n');
                if !answers.send(&out) {
                    break;
                }
                continue;
            }
            Ok(LineRead::Line) => {}
        }
        let line = normalize(&buf);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(intercept) = &intercept {
            let lifecycle = match (initialized, started_by_initialize) {
                (false, _) => Lifecycle::NotStarted,
                (true, false) => Lifecycle::Stateless,
                (true, true) if initialize_answered.load(Ordering::Acquire) => {
                    Lifecycle::Initialized
                }
                (true, true) => Lifecycle::Initializing,
            };
            if intercept.offer(line, lifecycle) {
                continue;
            }
        }
        match judge(line, initialized, &supported) {
            Verdict::Forward {
                starts_lifecycle,
                message,
            } => {
                if starts_lifecycle && !initialized {
                    started_by_initialize = matches!(
                        &*message,
                        ClientJsonRpcMessage::Request(req)
                            if matches!(req.request, rmcp::model::ClientRequest::InitializeRequest(_))
                    );
                }
                initialized |= starts_lifecycle;
                if to_rmcp.blocking_send(*message).is_err() {
                    tracing::debug!("rmcp input closed; guard stops");
                    break;
                }
            }
            Verdict::Answer(value) => {
                let mut out = value.to_string().into_bytes();
                out.push(b'\n');
                if !answers.send(&out) {
                    break;
                }
            }
            Verdict::Drop(why) => tracing::debug!("guard dropped an input line: {why}"),
        }
    }
    if let Some(closed) = input_closed {
        closed.notify_one();
    }
    // Dropping `to_rmcp` ends rmcp's input: its service ends.
}

/// Serves `service` over `input`/`output` behind the guard until input closes.
///
/// `input` is read on a thread of the guard's, by blocking reads (see [`crate::fd`] for a
/// descriptor that may be non-blocking); `output` is written whole line by whole line, from
/// whichever thread or task answers. When the session ends for another reason than the end
/// of `input`, that thread is left blocked on its next read: a process ends with it.
pub async fn serve_guarded<S, R, W>(service: S, input: R, output: W) -> SessionEnd
where
    S: Service<RoleServer>,
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    serve_guarded_with(service, input, output, GuardOptions::default()).await
}

/// [`serve_guarded`] with the server's [`GuardOptions`].
pub async fn serve_guarded_with<S, R, W>(
    service: S,
    input: R,
    output: W,
    options: GuardOptions,
) -> SessionEnd
where
    S: Service<RoleServer>,
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let limit = match max_line_bytes() {
        Ok(limit) => limit,
        Err(e) => return SessionEnd::InitFailed(e),
    };
    let (message_tx, message_rx) = mpsc::channel(QUEUE);
    let output = Output::new(Box::new(output));
    let supported = service.supported_protocol_versions().into_owned();

    let initialize_answered = Arc::new(AtomicBool::new(false));
    let state = GuardState {
        supported,
        input_closed: options.input_closed,
        intercept: options.intercept,
        initialize_answered: initialize_answered.clone(),
        limit,
    };
    let answers = LineSender::new(&output);
    let guard = std::thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || guard_input(input, message_tx, answers, state));
    if let Err(e) = guard {
        return SessionEnd::InitFailed(format!("cannot start the input thread: {e}"));
    }
    let transport = GuardTransport {
        incoming: message_rx,
        out: LineSender::new(&output),
        echo_versions: options.echo_initialize_versions,
        echo: None,
        initialize_answered,
    };

    let end = match rmcp::serve_server(service, transport).await {
        Ok(running) => {
            let _ = running.waiting().await;
            SessionEnd::InputClosed
        }
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => SessionEnd::InputClosed,
        Err(e) => SessionEnd::InitFailed(e.to_string()),
    };
    // Lines sent from now on (an intercept's late answers) are dropped. The input thread is
    // not joined: when rmcp ended for another reason than the end of stdin, it is blocked on
    // a read, and its next line finds rmcp's input closed.
    output.close();
    end
}

/// Serves `service` on the process's stdin/stdout until stdin closes, on a current-thread
/// runtime built here, and gives the process exit code: 0 when the input closed, 1 (with one
/// `PROG: ...` line on stderr) when the runtime or the session could not start. The whole
/// life of a stdio server binary after its configuration is loaded.
///
/// The line limit ([`crate::LINE_LIMIT_ENV`]) is checked first: a bad value is one
/// `PROG: invalid MCP_MAX_LINE_BYTES ...` line on stderr and exit code 2, like every other
/// configuration error, with nothing on stdout.
pub fn serve_stdio<S>(service: S, prog: &str) -> std::process::ExitCode
where
    S: Service<RoleServer>,
{
    serve_stdio_then(service, prog, || {})
}

/// [`serve_stdio`] that runs `on_input_closed` the moment stdin closes, while pending answers
/// are still being written: a server that runs commands ends them there (their trees killed
/// and reaped) instead of waiting for them before it can exit.
pub fn serve_stdio_then<S, F>(service: S, prog: &str, on_input_closed: F) -> std::process::ExitCode
where
    S: Service<RoleServer>,
    F: FnOnce() + Send + 'static,
{
    if let Err(e) = max_line_bytes() {
        eprintln!("{prog}: {e}");
        return std::process::ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("{prog}: cannot start the async runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let input_closed = Arc::new(Notify::new());
    let watcher = input_closed.clone();
    runtime.spawn(async move {
        watcher.notified().await;
        on_input_closed();
    });
    let options = GuardOptions {
        input_closed: Some(input_closed),
        ..Default::default()
    };
    let (input, output) = process_stdio();
    let end = runtime.block_on(serve_guarded_with(service, input, output, options));
    // A blocking stdin read may still be parked on the input thread: do not wait for it.
    runtime.shutdown_background();
    match end {
        SessionEnd::InputClosed => std::process::ExitCode::SUCCESS,
        SessionEnd::InitFailed(e) => {
            eprintln!("{prog}: session failed: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
