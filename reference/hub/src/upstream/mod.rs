//! Upstream servers: started, initialized and listed at startup, then called by the router.
//!
//! [`start_all`] starts every configured upstream at once: each one's steps (spawn and
//! `initialize`, then `tools/list`) are bounded by the startup timeout, and all upstreams
//! progress concurrently, so a slow or failing upstream costs at most one timeout in total,
//! not one per upstream. An upstream that fails a step is omitted (logged with its instance
//! id and why) and its process killed.

pub mod process;
pub mod session;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::config::ServerConfig;
pub use process::UpstreamProcess;
pub use session::{ProgressRoute, Session, SessionError};
use wire::{InitializeAnswer, ResponseError, ToolsPage};

/// Most `tools/list` pages read from one upstream (a cursor loop guard).
const MAX_PAGES: usize = 1000;

/// An upstream that completed startup.
#[derive(Debug)]
pub struct Started {
    /// Its configuration.
    pub config: ServerConfig,
    /// The client session.
    pub session: Arc<Session>,
    /// The child process.
    pub process: UpstreamProcess,
    /// Its tools, exactly as listed.
    pub tools: Vec<Map<String, Value>>,
}

/// Why an upstream was omitted.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The process could not be started.
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        /// The configured command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// A step did not finish within the startup timeout.
    #[error("{step} did not finish within {} ms", .timeout.as_millis())]
    Timeout {
        /// `initialize` or `tools/list`.
        step: &'static str,
        /// The bound.
        timeout: Duration,
    },
    /// A step's request failed.
    #[error("{step} failed: {source}")]
    Session {
        /// `initialize` or `tools/list`.
        step: &'static str,
        /// Why.
        source: SessionError,
    },
    /// A step's answer was an error or malformed.
    #[error("{step} failed: {source}")]
    Response {
        /// `initialize` or `tools/list`.
        step: &'static str,
        /// Why.
        source: ResponseError,
    },
    /// The upstream chose a protocol version the hub does not speak.
    #[error("initialize answered protocol version `{0}`, which mcp-hub does not support")]
    Version(String),
    /// `tools/list` kept returning cursors.
    #[error("tools/list returned more than {MAX_PAGES} pages")]
    TooManyPages,
}

/// Starts every upstream concurrently; returns, in configuration order, those that started.
pub async fn start_all(servers: &[ServerConfig], timeout: Duration) -> Vec<Started> {
    let attempts = servers.iter().map(|config| async move {
        let begun = tokio::time::Instant::now();
        // Each outcome is logged as soon as it is known, not when the slowest one ends.
        match start(config, timeout).await {
            Ok(started) => {
                tracing::debug!(
                    instance_id = %config.id,
                    tools = started.tools.len(),
                    elapsed_ms = begun.elapsed().as_millis() as u64,
                    "upstream ready"
                );
                Some(started)
            }
            Err(e) => {
                tracing::warn!(instance_id = %config.id, "upstream omitted: {e}");
                None
            }
        }
    });
    futures::future::join_all(attempts)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// Spawns, initializes and lists one upstream.
async fn start(config: &ServerConfig, timeout: Duration) -> Result<Started, StartError> {
    let spawned = process::spawn(config).map_err(|source| StartError::Spawn {
        command: config.command.clone(),
        source,
    })?;
    let session = Session::start(config.id.clone(), spawned.stdin, spawned.stdout);
    match handshake(&session, timeout).await {
        Ok(tools) => {
            session.mark_ready();
            Ok(Started {
                config: config.clone(),
                session,
                process: spawned.process,
                tools,
            })
        }
        Err(e) => {
            // Expected end of the connection: the process is dropped here, which kills its
            // group, and the session must not report that as a lost upstream.
            session.close();
            Err(e)
        }
    }
}

/// `initialize`, `notifications/initialized` and `tools/list`, each step bounded.
async fn handshake(
    session: &Session,
    timeout: Duration,
) -> Result<Vec<Map<String, Value>>, StartError> {
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
        .await
        .map_err(|source| StartError::Session {
            step: "initialize",
            source,
        })?;
    step("tools/list", timeout, list_tools(session)).await
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
    params: &Value,
) -> Result<T, StepError> {
    let call = session
        .begin(method, params, None)
        .map_err(StepError::Session)?;
    let line = call.response().await.map_err(StepError::Session)?;
    wire::parse_response(&line).map_err(StepError::Response)
}

async fn list_tools(session: &Session) -> Result<Vec<Map<String, Value>>, StepError> {
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
