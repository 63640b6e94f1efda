//! Upstream servers: started, probed, initialized and listed at startup, then called by the
//! router.
//!
//! [`start_all`] starts every configured upstream at once: each one's steps (spawn and the
//! `server/discover` probe, `initialize` when the upstream is legacy, then `tools/list`) are
//! each bounded by the startup timeout, and all upstreams progress concurrently, so a slow or
//! failing upstream costs at most its own few steps' timeouts, not one per upstream. An
//! upstream that fails a step is omitted (logged with its instance id and why) and its
//! process killed.
//!
//! # Choosing the generation (2026-07-28 "Backward Compatibility")
//!
//! The hub is a dual-era client. As the stdio binding says
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility>,
//! and "Backward Compatibility with Initialization-Based Versions" in
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>), it probes
//! with `server/discover` first, with its preferred modern version in `_meta`:
//!
//! - a `DiscoverResult` listing a modern version the hub speaks: the upstream is modern, and
//!   every later request to it carries the `_meta` keys (see [`Session::set_modern`]); one
//!   listing only legacy versions is initialized instead;
//! - `UnsupportedProtocolVersionError` (-32022): the upstream is modern; the probe is retried
//!   once with a modern version from its `supported` list that the hub speaks, else the hub
//!   initializes when that list names a legacy version it accepts, else the upstream is
//!   omitted;
//! - any other error (the fallback is never keyed to one code), or a malformed answer: the
//!   upstream is legacy, and `initialize` follows on the same process;
//! - no answer within the startup timeout: the upstream is legacy too ("does not respond
//!   within a reasonable timeout ... Fall back to the initialize handshake"); the binding
//!   does not ask for a restart, so `initialize` follows on the same process, under its own
//!   timeout;
//! - the process ends (its output closes) during the probe: no `initialize` can follow on it.
//!   Some legacy servers exit on an unknown pre-`initialize` request; the binding's
//!   "Unexpected Termination" says a client SHOULD restart a server that exits unexpectedly,
//!   so the hub starts the upstream once more and initializes it without a probe (the
//!   official TypeScript SDK treats a probe-killed process the same way). A second failure
//!   omits the upstream as any other.

pub mod cause;
pub mod process;
pub mod relay;
pub mod session;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::config::ServerConfig;
pub use process::{Ended, UpstreamProcess};
pub use session::{ProgressRoute, Session, SessionError};
use wire::{DiscoverAnswer, InitializeAnswer, ResponseError, ToolsPage};

/// Most `tools/list` pages read from one upstream (a cursor loop guard).
const MAX_PAGES: usize = 1000;
/// How long, once its connection ended during startup, an upstream gets to be seen exiting
/// (and its stderr read to the end) so that its status and last line say why.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// An upstream that completed startup.
#[derive(Debug)]
pub struct Started {
    /// Its configuration.
    pub config: ServerConfig,
    /// The client session.
    pub session: Arc<Session>,
    /// The child process.
    pub process: UpstreamProcess,
    /// Its tools, exactly as listed (the upstream's JSON text).
    pub tools: Vec<Box<RawValue>>,
}

/// An upstream that did not complete startup, and why: kept, not only logged, so that a
/// startup left with no usable tool can name each upstream and its cause in its error.
#[derive(Debug)]
pub struct Omitted {
    /// Its instance id.
    pub id: crate::config::InstanceId,
    /// Why.
    pub error: StartError,
}

/// What startup gave: the upstreams that started (they serve) and those omitted (they explain
/// a failed startup), each in configuration order.
#[derive(Debug, Default)]
pub struct Startup {
    /// Those that started.
    pub started: Vec<Started>,
    /// Those omitted.
    pub omitted: Vec<Omitted>,
}

/// Why an upstream was omitted.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The process could not be started.
    #[error("{}", cause::spawn_failure(.command, .source))]
    Spawn {
        /// The configured command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// A step did not finish within the startup timeout.
    #[error("{step} did not finish within {} ms", .timeout.as_millis())]
    Timeout {
        /// `server/discover`, `initialize` or `tools/list`.
        step: &'static str,
        /// The bound.
        timeout: Duration,
    },
    /// The process exited (or was killed) before it answered a step: told by its status and
    /// last stderr line, since what the hub saw on the pipe (`Broken pipe`) does not say why.
    #[error("{} before answering {step}{}", .ended.exit, cause::quoted_tail(.ended.last_stderr.as_deref()))]
    Exited {
        /// `server/discover`, `initialize` or `tools/list`.
        step: &'static str,
        /// How it ended.
        ended: Ended,
    },
    /// A step's request failed.
    #[error("{step} failed: {source}")]
    Session {
        /// `server/discover`, `initialize` or `tools/list`.
        step: &'static str,
        /// Why.
        source: SessionError,
    },
    /// A step's answer was an error or malformed.
    #[error("{step} failed: {source}")]
    Response {
        /// `server/discover`, `initialize` or `tools/list`.
        step: &'static str,
        /// Why.
        source: ResponseError,
    },
    /// The upstream chose a protocol version the hub does not speak.
    #[error("initialize answered protocol version `{0}`, which mcp-hub does not support")]
    Version(String),
    /// The upstream is modern but supports no version the hub speaks.
    #[error("server/discover: the upstream supports {0:?}, none of which mcp-hub speaks")]
    NoCommonVersion(Vec<String>),
    /// The connection ended during the `server/discover` probe (the process exited or closed
    /// its output; the reason says which); [`start`] then tries a fresh process with
    /// `initialize` alone.
    #[error("the upstream ended its connection on server/discover: {0}")]
    ProbeClosed(String),
    /// `tools/list` kept returning cursors.
    #[error("tools/list returned more than {MAX_PAGES} pages")]
    TooManyPages,
}

/// Starts every upstream concurrently; returns, in configuration order, those that started
/// and those omitted. Each omitted one is warned about as soon as it fails, named with why.
pub async fn start_all(servers: &[ServerConfig], timeout: Duration) -> Startup {
    let attempts = servers.iter().map(|config| async move {
        let begun = tokio::time::Instant::now();
        // Each outcome is logged as soon as it is known, not when the slowest one ends.
        match start(config, timeout).await {
            Ok(started) => {
                tracing::trace!(
                    instance_id = %config.id,
                    tools = started.tools.len(),
                    protocol = started.session.modern_version().unwrap_or("legacy"),
                    elapsed_ms = begun.elapsed().as_millis() as u64,
                    "upstream ready"
                );
                Ok(started)
            }
            Err(error) => {
                tracing::warn!(instance_id = %config.id, "upstream `{}` omitted: {error}", config.id);
                Err(Omitted {
                    id: config.id.clone(),
                    error,
                })
            }
        }
    });
    let mut startup = Startup::default();
    for outcome in futures::future::join_all(attempts).await {
        match outcome {
            Ok(started) => startup.started.push(started),
            Err(omitted) => startup.omitted.push(omitted),
        }
    }
    startup
}

/// Spawns, probes, initializes and lists one upstream. An upstream whose process ends on
/// the `server/discover` probe is started once more and initialized without a probe (see
/// the module documentation).
async fn start(config: &ServerConfig, timeout: Duration) -> Result<Started, StartError> {
    match attempt(config, timeout, true).await {
        Err(StartError::ProbeClosed(reason)) => {
            tracing::trace!(
                instance_id = %config.id,
                "the upstream ended on the server/discover probe ({reason}): legacy upstream, \
                 restarting it to initialize"
            );
            attempt(config, timeout, false).await
        }
        other => other,
    }
}

/// One process: spawned, then the handshake (with or without the probe) and `tools/list`.
async fn attempt(
    config: &ServerConfig,
    timeout: Duration,
    probe_first: bool,
) -> Result<Started, StartError> {
    let spawned = process::spawn(config).map_err(|source| StartError::Spawn {
        command: config.command.clone(),
        source,
    })?;
    let session = Session::start(config.id.clone(), spawned.stdin, spawned.stdout);
    let mut process = spawned.process;
    match handshake(&session, timeout, probe_first).await {
        Ok(tools) => {
            session.mark_ready();
            Ok(Started {
                config: config.clone(),
                session,
                process,
                tools,
            })
        }
        Err(e) => {
            // Expected end of the connection: the process is dropped here, which kills its
            // group, and the session must not report that as a lost upstream.
            session.close();
            Err(explain_closed(e, &mut process, timeout.min(EXIT_GRACE)).await)
        }
    }
}

/// A connection that ended during a step is told by how the process ended, when it exited
/// within `grace`: its status and last stderr line, not what the hub saw on the pipe (`Broken
/// pipe`, `its output ended`). Other errors are returned as they are.
async fn explain_closed(
    error: StartError,
    process: &mut UpstreamProcess,
    grace: Duration,
) -> StartError {
    match error {
        StartError::Session {
            step,
            source: SessionError::Closed(reason),
        } => match process.ended(grace).await {
            Some(ended) => StartError::Exited { step, ended },
            None => StartError::Session {
                step,
                source: SessionError::Closed(reason),
            },
        },
        StartError::ProbeClosed(reason) => match process.ended(grace).await {
            Some(ended) => StartError::ProbeClosed(
                StartError::Exited {
                    step: "server/discover",
                    ended,
                }
                .to_string(),
            ),
            None => StartError::ProbeClosed(reason),
        },
        other => other,
    }
}

/// The `server/discover` probe (when `probe_first`), then `initialize` and
/// `notifications/initialized` for a legacy upstream, then `tools/list`; each step bounded.
async fn handshake(
    session: &Session,
    timeout: Duration,
    probe_first: bool,
) -> Result<Vec<Box<RawValue>>, StartError> {
    let probed = match probe_first {
        true => probe(session, timeout).await?,
        false => Probed::Legacy,
    };
    match probed {
        Probed::Modern(version) => session.set_modern(&version),
        Probed::Legacy => initialize(session, timeout).await?,
    }
    step("tools/list", timeout, list_tools(session)).await
}

/// What the probe found.
#[derive(Debug, PartialEq)]
enum Probed {
    /// A modern upstream, spoken to at this version.
    Modern(String),
    /// A legacy upstream (or one that asked for a legacy version): `initialize` follows.
    Legacy,
}

/// The first modern version in the hub's preference order that `offered` lists.
fn common_modern(offered: &[String]) -> Option<String> {
    wire::MODERN_UPSTREAM_VERSIONS
        .iter()
        .find(|v| offered.iter().any(|o| o == *v))
        .map(|v| (*v).to_owned())
}

fn offers_legacy(offered: &[String]) -> bool {
    offered
        .iter()
        .any(|v| wire::ACCEPTED_UPSTREAM_VERSIONS.contains(&v.as_str()))
}

/// The `server/discover` probe (see the module documentation for the outcomes).
async fn probe(session: &Session, timeout: Duration) -> Result<Probed, StartError> {
    let id = session.id();
    let mut candidate = wire::MODERN_UPSTREAM_VERSIONS[0].to_owned();
    let mut retried = false;
    loop {
        let params = serde_json::json!({ "_meta": wire::modern_meta(&candidate) });
        let answer = tokio::time::timeout(
            timeout,
            request::<DiscoverAnswer>(session, "server/discover", &params),
        )
        .await;
        let error = match answer {
            Err(_) => {
                tracing::trace!(
                    instance_id = %id,
                    "no answer to server/discover within {} ms: legacy upstream, initializing",
                    timeout.as_millis()
                );
                return Ok(Probed::Legacy);
            }
            Ok(Ok(DiscoverAnswer { supported_versions })) => {
                if let Some(version) = common_modern(&supported_versions) {
                    return Ok(Probed::Modern(version));
                }
                if offers_legacy(&supported_versions) {
                    return Ok(Probed::Legacy);
                }
                return Err(StartError::NoCommonVersion(supported_versions));
            }
            Ok(Err(StepError::Session(SessionError::Closed(reason)))) => {
                return Err(StartError::ProbeClosed(reason.to_string()));
            }
            Ok(Err(StepError::Session(source))) => {
                return Err(StartError::Session {
                    step: "server/discover",
                    source,
                });
            }
            Ok(Err(StepError::TooManyPages)) => return Err(StartError::TooManyPages),
            Ok(Err(StepError::Response(error))) => error,
        };
        match error {
            ResponseError::Rpc(rpc) if rpc.code == wire::UNSUPPORTED_PROTOCOL_VERSION => {
                let supported = wire::supported_versions(&rpc);
                match common_modern(&supported) {
                    Some(version) if !retried => {
                        tracing::trace!(instance_id = %id, %version, "server/discover: retrying with a version the upstream supports");
                        retried = true;
                        candidate = version;
                    }
                    _ if offers_legacy(&supported) => return Ok(Probed::Legacy),
                    _ => return Err(StartError::NoCommonVersion(supported)),
                }
            }
            other => {
                tracing::trace!(instance_id = %id, "server/discover: {other}; legacy upstream, initializing");
                return Ok(Probed::Legacy);
            }
        }
    }
}

/// The legacy handshake: `initialize`, then `notifications/initialized`.
async fn initialize(session: &Session, timeout: Duration) -> Result<(), StartError> {
    let answer: InitializeAnswer = step(
        "initialize",
        timeout,
        request(session, "initialize", &wire::initialize_params()),
    )
    .await?;
    if !wire::ACCEPTED_UPSTREAM_VERSIONS.contains(&answer.protocol_version.as_str()) {
        return Err(StartError::Version(answer.protocol_version));
    }
    session
        .notify("notifications/initialized", &serde_json::json!({}))
        .map_err(|source| StartError::Session {
            step: "initialize",
            source,
        })
}

/// Runs one startup step under the timeout.
async fn step<T>(
    step: &'static str,
    timeout: Duration,
    work: impl Future<Output = Result<T, StepError>>,
) -> Result<T, StartError> {
    match tokio::time::timeout(timeout, work).await {
        Err(_) => Err(StartError::Timeout { step, timeout }),
        Ok(Err(StepError::Session(source))) => Err(StartError::Session { step, source }),
        Ok(Err(StepError::Response(source))) => Err(StartError::Response { step, source }),
        Ok(Err(StepError::TooManyPages)) => Err(StartError::TooManyPages),
        Ok(Ok(value)) => Ok(value),
    }
}

enum StepError {
    Session(SessionError),
    Response(ResponseError),
    TooManyPages,
}

async fn request<T: serde::de::DeserializeOwned>(
    session: &Session,
    method: &str,
    params: &serde_json::Value,
) -> Result<T, StepError> {
    let call = session
        .begin(method, params, None)
        .map_err(StepError::Session)?;
    let line = call.response().await.map_err(StepError::Session)?;
    wire::parse_response(&line).map_err(StepError::Response)
}

async fn list_tools(session: &Session) -> Result<Vec<Box<RawValue>>, StepError> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(cursor) => serde_json::json!({ "cursor": cursor }),
            None => serde_json::json!({}),
        };
        let page: ToolsPage = request(session, "tools/list", &params).await?;
        tools.extend(page.tools);
        match page.next_cursor {
            Some(next) if !next.is_empty() => cursor = Some(next),
            _ => return Ok(tools),
        }
    }
    Err(StepError::TooManyPages)
}

/// Every async test of the upstream layer runs under one deadline, so a wrong session (one
/// that never writes a request or never routes an answer) fails in seconds instead of hanging
/// the test run (and mutation testing's timeout).
#[cfg(test)]
async fn bounded(test: impl std::future::Future<Output = ()>) {
    const DEADLINE: Duration = Duration::from_secs(30);
    if tokio::time::timeout(DEADLINE, test).await.is_err() {
        panic!("the test did not finish within {DEADLINE:?}: something waits forever");
    }
}

/// Real pipes between a session under test and a fake upstream, named as the tests use
/// them: `(hub_in, up_in, up_out, hub_out)`. The session's ends block, as a child's pipes do
/// for it; the fake upstream's are async. Made inside the test's runtime.
#[cfg(test)]
fn test_pipes() -> (
    std::io::PipeWriter,
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
    std::io::PipeReader,
) {
    use std::os::fd::OwnedFd;
    use tokio::net::unix::pipe;
    let (up_in, hub_in) = std::io::pipe().expect("pipe");
    let (hub_out, up_out) = std::io::pipe().expect("pipe");
    let up_in = pipe::Receiver::from_owned_fd(OwnedFd::from(up_in)).expect("async reader");
    let up_out = pipe::Sender::from_owned_fd(OwnedFd::from(up_out)).expect("async writer");
    (hub_in, up_in, up_out, hub_out)
}

#[cfg(test)]
mod pages_tests;

#[cfg(test)]
mod probe_tests;
