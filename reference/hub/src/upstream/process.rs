//! An upstream's process: spawned contained, its stderr relayed, ended with the hub.
//!
//! The relay keeps the last line it relayed, so an upstream that exits during startup is
//! reported with its status and its own last words ([`UpstreamProcess::ended`]).
//!
//! Each child is started in a new session (so it leads a process group the hub can signal as
//! a whole) with a parent-death signal (so it dies with the hub even on SIGKILL), through the
//! safety core's one `contain_child` helper. The death signal is tied to the spawning thread:
//! the hub spawns from its main thread, which runs the whole session.

use std::fs::File;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use super::cause::{self, Exit};
use crate::config::{InstanceId, ServerConfig};
use mcp_stdio_guard::fd::Blocking;
use mcp_stdio_guard::{LineRead, read_bounded_line};

/// The tracing target of relayed upstream stderr lines.
pub const STDERR_TARGET: &str = "mcp_hub::upstream_stderr";
/// Longest relayed stderr line; longer ones are cut.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// A running upstream child. Dropping it kills its process group.
#[derive(Debug)]
pub struct UpstreamProcess {
    id: InstanceId,
    child: Child,
    /// The process group (= the child's pid) while the child is unreaped.
    group: Option<Pid>,
    /// The stderr relay, while its end has not been waited for (none with `stderr = false`).
    relay: Option<JoinHandle<()>>,
    /// The last non-blank line the relay relayed (cut to [`cause::MAX_QUOTED`] bytes).
    last_stderr: Arc<Mutex<Option<String>>>,
}

/// How an upstream process ended on its own: for the startup error that omits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// Its exit status.
    pub exit: Exit,
    /// The last line it wrote on stderr, when the hub relays its stderr and it wrote one.
    pub last_stderr: Option<String>,
}

/// A freshly spawned upstream and its protocol pipes.
#[derive(Debug)]
pub struct Spawned {
    /// The process.
    pub process: UpstreamProcess,
    /// Its stdin (our requests), written by blocking writes.
    pub stdin: Blocking<File>,
    /// Its stdout (its answers), read by blocking reads.
    pub stdout: Blocking<File>,
}

/// Starts the upstream described by `config`.
pub fn spawn(config: &ServerConfig) -> std::io::Result<Spawned> {
    let mut cmd = Command::new(&config.command);
    cmd.args(&config.args)
        .envs(config.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if config.stderr {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .kill_on_drop(true);
    mcp_safety_core::exec::contain_child(cmd.as_std_mut());
    let mut child = cmd.spawn()?;
    let group = child
        .id()
        .and_then(|pid| i32::try_from(pid).ok())
        .map(Pid::from_raw);
    let last_stderr = Arc::new(Mutex::new(None));
    let relay = child
        .stderr
        .take()
        .map(|stderr| tokio::spawn(relay_stderr(config.id.clone(), stderr, last_stderr.clone())));
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other("the child's pipes are missing"));
    };
    // The session writes and reads them from threads, blocking (tokio made them
    // non-blocking for its reactor).
    let stdin = Blocking::own(stdin.into_owned_fd()?);
    let stdout = Blocking::own(stdout.into_owned_fd()?);
    Ok(Spawned {
        process: UpstreamProcess {
            id: config.id.clone(),
            child,
            group,
            relay,
            last_stderr,
        },
        stdin,
        stdout,
    })
}

impl UpstreamProcess {
    /// Waits up to `grace` for the child to exit by itself (its stdin was closed), then
    /// SIGTERM, then SIGKILL to the whole group, and reaps it.
    pub async fn shutdown(mut self, grace: Duration) {
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            self.signal(Signal::SIGTERM);
            if tokio::time::timeout(grace, self.child.wait())
                .await
                .is_err()
            {
                tracing::debug!(instance_id = %self.id, "upstream ignored SIGTERM; killing");
            }
        }
        // Descendants left in the group die with it. The group id stays reserved while any
        // member exists, so this cannot reach an unrelated process group.
        self.signal(Signal::SIGKILL);
        let _ = self.child.wait().await;
        self.group = None;
    }

    /// Waits up to `within` for the child to exit by itself (its connection has ended) and
    /// for its stderr to be relayed to the end; then its group is killed (descendants do not
    /// outlive it). `None` when it is still running: the caller reports the connection.
    pub async fn ended(&mut self, within: Duration) -> Option<Ended> {
        let status = tokio::time::timeout(within, self.child.wait())
            .await
            .ok()?
            .ok()?;
        self.signal(Signal::SIGKILL);
        self.group = None;
        // The group is gone, so the pipe's last writer is too: the relay is at its end.
        if let Some(relay) = self.relay.take() {
            let _ = tokio::time::timeout(within, relay).await;
        }
        let last_stderr = self
            .last_stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        Some(Ended {
            exit: Exit(status),
            last_stderr,
        })
    }

    /// Sends `signal` to the child's process group.
    fn signal(&self, signal: Signal) {
        if let Some(group) = self.group {
            let _ = killpg(group, signal);
        }
    }
}

impl Drop for UpstreamProcess {
    fn drop(&mut self) {
        // Every early exit (startup failure, omitted upstream, panic) ends the whole tree.
        self.signal(Signal::SIGKILL);
    }
}

/// Relays each stderr line of upstream `id` as one INFO event on [`STDERR_TARGET`]; keeps
/// the last one in `last`.
async fn relay_stderr<R: AsyncRead + Unpin>(
    id: InstanceId,
    stderr: R,
    last: Arc<Mutex<Option<String>>>,
) {
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::with_capacity(256);
    loop {
        match read_bounded_line(&mut reader, &mut buf, MAX_STDERR_LINE).await {
            Ok(LineRead::Line) => {
                let text = String::from_utf8_lossy(&buf);
                let text = text.trim_end_matches(['\n', '\r']);
                if !text.trim().is_empty() {
                    tracing::info!(target: STDERR_TARGET, instance_id = %id, "{text}");
                    *last.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(cut(text.trim()).to_owned());
                }
            }
            Ok(LineRead::Oversized) => tracing::info!(
                target: STDERR_TARGET,
                instance_id = %id,
                "[a stderr line longer than {MAX_STDERR_LINE} bytes was dropped]"
            ),
            Ok(LineRead::Eof) | Err(_) => break,
        }
    }
}

/// `line` cut, on a character boundary, to a little more than [`cause::MAX_QUOTED`] bytes:
/// enough for the quote to tell whether it was cut, without keeping a 64 KiB line per line.
fn cut(line: &str) -> &str {
    let mut end = (cause::MAX_QUOTED + 4).min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}
