//! One hub process: start the upstreams, fix the inventory, serve one session, shut down.
//!
//! Everything runs on a current-thread runtime on the main thread. That thread spawns the
//! upstream children, and their parent-death signal is tied to it, so it must live as long
//! as the hub. The session ends on stdin EOF or on SIGTERM, SIGINT or SIGHUP; then every
//! upstream's stdin is closed and its process group terminated and reaped. If the hub itself
//! is killed, the children get SIGKILL from the kernel.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::Notify;

use crate::config::HubConfig;
use crate::failure::StartupFailure;
use crate::registry::{Listed, Registry};
use crate::router::Router;
use crate::server::{HubServer, guard_options};
use crate::upstream::{self, Session, Started, Startup, UpstreamProcess};
use mcp_stdio_guard::{SessionEnd, serve_guarded_with};

/// How long an upstream gets to exit after its stdin closes (and again after SIGTERM).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);
/// How long, after the upstreams ended, the hub waits for their readers to see the end of
/// their output (a pipe some other process still holds open does not keep the hub waiting).
const READER_GRACE: Duration = Duration::from_millis(500);
/// Exit code of startup failures (no usable tools, ambiguous or invalid inventory).
pub const EXIT_STARTUP: u8 = 1;

/// Runs the hub with a loaded configuration; returns the process exit code once it served,
/// or why it did not start. The caller prints the failure after the log is flushed, so the
/// lines that led to it (each omitted upstream's warning) come before it, never after.
pub fn run(config: HubConfig, timeout: Duration) -> Result<ExitCode, StartupFailure> {
    for server in config.servers.iter().filter(|s| s.exclude_ignored) {
        tracing::warn!(
            instance_id = %server.id,
            "tools.exclude is ignored because tools.include is set"
        );
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return Err(StartupFailure::Runtime(e)),
    };
    let code = runtime.block_on(hub(config, timeout));
    // The guard's input thread may still be blocked on a stdin read: do not wait for it.
    runtime.shutdown_background();
    code
}

async fn hub(config: HubConfig, timeout: Duration) -> Result<ExitCode, StartupFailure> {
    let mut signals = Signals::new().map_err(StartupFailure::Signals)?;
    let Startup { started, omitted } = tokio::select! {
        startup = upstream::start_all(&config.servers, timeout) => startup,
        name = signals.recv() => {
            // Upstreams still starting are dropped with this future, which kills them.
            tracing::info!("received {name} during startup; exiting");
            return Ok(ExitCode::SUCCESS);
        }
    };
    let listed: Vec<Listed<'_>> = started
        .iter()
        .map(|s| Listed {
            config: &s.config,
            tools: &s.tools,
        })
        .collect();
    let registry = Registry::build(&listed);
    let fleet = Fleet::new(started);
    let registry = match registry {
        Ok(registry) => registry,
        Err(e) => {
            let started = fleet.sessions.len();
            fleet.shutdown().await;
            return Err(StartupFailure::inventory(e, omitted, started));
        }
    };
    tracing::info!(
        tools = registry.len(),
        upstreams = fleet.sessions.len(),
        "serving"
    );
    let router = Arc::new(Router::new(registry, fleet.sessions.clone()));
    // Read and written by blocking threads (see `mcp_stdio_guard::fd`): a relayed call then
    // wakes the input thread and an upstream's reader thread once each, and nothing else.
    let (input, output) = mcp_stdio_guard::fd::process_stdio();
    let input_closed = Arc::new(Notify::new());
    let serve = serve_guarded_with(
        HubServer::new(router.clone()),
        input,
        output,
        guard_options(input_closed.clone(), router),
    );
    tokio::pin!(serve);
    let mut ending = false;
    let code = loop {
        tokio::select! {
            end = &mut serve => break match end {
                SessionEnd::InputClosed => {
                    tracing::info!("client closed stdin; shutting down");
                    ExitCode::SUCCESS
                }
                SessionEnd::InitFailed(e) => {
                    tracing::warn!("the client session failed: {e}");
                    ExitCode::from(EXIT_STARTUP)
                }
            },
            _ = input_closed.notified(), if !ending => {
                // The outward session is over: end the upstream sessions now, so calls still
                // in flight fail at once instead of rmcp waiting for their answers.
                ending = true;
                fleet.close_sessions();
            }
            name = signals.recv() => {
                tracing::info!("received {name}; shutting down");
                break ExitCode::SUCCESS;
            }
        }
    };
    fleet.shutdown().await;
    Ok(code)
}

/// The started upstreams' sessions and processes, ended together.
struct Fleet {
    sessions: Vec<Arc<Session>>,
    processes: Vec<UpstreamProcess>,
}

impl Fleet {
    fn new(started: Vec<Started>) -> Self {
        let (sessions, processes) = started.into_iter().map(|s| (s.session, s.process)).unzip();
        Self {
            sessions,
            processes,
        }
    }

    /// Ends every upstream client session: stdin closed, calls in flight failed.
    fn close_sessions(&self) {
        for session in &self.sessions {
            session.close();
        }
    }

    /// Closes every session, then ends every process group (concurrently).
    async fn shutdown(self) {
        self.close_sessions();
        let ends = self
            .processes
            .into_iter()
            .map(|p| p.shutdown(SHUTDOWN_GRACE));
        futures::future::join_all(ends).await;
        // Every process group has ended, so each reader is at (or near) the end of its pipe.
        let readers = self.sessions.iter().map(|s| s.reader_ended(READER_GRACE));
        futures::future::join_all(readers).await;
    }
}

/// The signals that end the hub.
struct Signals {
    term: Signal,
    int: Signal,
    hup: Signal,
}

impl Signals {
    fn new() -> std::io::Result<Self> {
        Ok(Self {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// Waits for the next one; returns its name.
    async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.term.recv() => "SIGTERM",
            _ = self.int.recv() => "SIGINT",
            _ = self.hup.recv() => "SIGHUP",
        }
    }
}
