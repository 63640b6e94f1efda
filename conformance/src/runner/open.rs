//! The `initialize` step: opening a session in the legacy generation (the `initialize`
//! handshake), the modern one (`server/discover`, then per-request `_meta`), or by probing.
//!
//! The probe follows the 2026-07-28 "Lifecycle: Backward Compatibility" rule for stdio: a
//! client that speaks both generations sends `server/discover` first; an
//! UnsupportedProtocolVersionError means the server is modern (retry with a version it
//! lists); any other error, or no answer within a reasonable time, means a legacy server,
//! and the client falls back to `initialize`.

// See steps.rs: failures are cold-path values.
#![allow(clippy::result_large_err)]

use super::context::{Run, lock};
use super::observe::response_observation;
use super::share::is_plain_handshake;
use super::steps::{StepFailure, session_failure};
use crate::generation::{
    Generation, META_SERVER_INFO, MODERN_VERSION, ModernMeta, UNSUPPORTED_PROTOCOL_VERSION,
};
use crate::model::{InitializeSpec, OpenMode, Step};
use crate::session::{Session, SessionError};
use serde_json::{Value, json};
use std::time::Duration;

/// What a `server/discover` probe learned.
enum Discovered {
    /// The server speaks the modern generation at this version; the observation to report.
    Modern(Value),
    /// The server answered with an error that is not UnsupportedProtocolVersionError, or
    /// not at all: a legacy server. The observation of the probe (an error or a timeout).
    Legacy(Value),
}

impl Run<'_> {
    /// Runs an `initialize` step and returns its observation: for the modern generation the
    /// `server/discover` result, plus `protocolVersion` (the version the session now speaks)
    /// and `serverInfo` (from the result's `_meta`) so one `expect` reads both generations;
    /// `generation` says which one the session speaks.
    pub(super) async fn open_session(
        &self,
        step: &Step,
        spec: &InitializeSpec,
        timeout: Duration,
    ) -> Result<Option<Value>, StepFailure> {
        let (_, s) = self.session(step.on.as_deref()).await?;
        let mode = spec.generation.unwrap_or(match self.scenario.pass {
            Some(Generation::Modern) => OpenMode::Modern,
            _ => OpenMode::Legacy,
        });
        match mode {
            OpenMode::Legacy => {
                let params = self.legacy_params(spec)?;
                if let Some(obs) = self.inherited_handshake(step, &params) {
                    return Ok(Some(obs));
                }
                let obs = self
                    .legacy_initialize(&s, step, spec, params.clone(), timeout)
                    .await?;
                self.keep_handshake(step, params, obs.as_ref());
                Ok(obs)
            }
            OpenMode::Modern => {
                let meta = self.modern_meta(spec)?;
                let resp = s
                    .request("server/discover", Some(meta.stamp(None)), timeout)
                    .await
                    .map_err(session_failure)?;
                let obs = self.modern_observation(&s, meta, &resp, timeout).await?;
                if obs.get("error").is_some() && step.expect.is_none() {
                    let mut f =
                        StepFailure::assertion("server/discover was answered with an error");
                    f.actual = Some(obs);
                    return Err(f);
                }
                Ok(Some(obs))
            }
            OpenMode::Auto => {
                // Leave the fallback the rest of the step's time.
                let probe_timeout = timeout / 3;
                match self.probe(&s, spec, probe_timeout).await? {
                    Discovered::Modern(obs) => Ok(Some(obs)),
                    Discovered::Legacy(probe) => {
                        let params = self.legacy_params(spec)?;
                        let obs = self
                            .legacy_initialize(&s, step, spec, params, timeout)
                            .await?;
                        Ok(obs.map(|mut o| {
                            o["probe"] = probe;
                            o
                        }))
                    }
                }
            }
        }
    }

    /// The handshake a shared server already made, when this step sends that same
    /// `initialize` (`share.rs`): a second `initialize` on one connection is not allowed.
    fn inherited_handshake(&self, step: &Step, params: &Value) -> Option<Value> {
        let sharing = self.sharing.as_ref()?;
        if !is_plain_handshake(&step.kind) {
            return None;
        }
        match &*lock(&sharing.handshake) {
            Some((sent, obs)) if sent == params => Some(obs.clone()),
            _ => None,
        }
    }

    /// Remembers a successful handshake, handed on with a shared server.
    fn keep_handshake(&self, step: &Step, params: Value, obs: Option<&Value>) {
        if let (Some(sharing), Some(obs)) = (&self.sharing, obs)
            && is_plain_handshake(&step.kind)
            && obs.get("result").is_some()
        {
            *lock(&sharing.handshake) = Some((params, obs.clone()));
        }
    }

    /// The metadata a modern opening uses: the step's version, capabilities and client info.
    fn modern_meta(&self, spec: &InitializeSpec) -> Result<ModernMeta, StepFailure> {
        let mut meta = ModernMeta::default();
        if let Some(v) = &spec.protocol_version {
            meta.protocol_version = self.expand_str(v)?;
        }
        if let Some(c) = &spec.capabilities {
            meta.capabilities = self.expand(c)?;
        }
        if let Some(c) = &spec.client_info {
            meta.client_info = self.expand(c)?;
        }
        Ok(meta)
    }

    /// `server/discover` for an `auto` opening.
    async fn probe(
        &self,
        s: &Session,
        spec: &InitializeSpec,
        timeout: Duration,
    ) -> Result<Discovered, StepFailure> {
        let meta = self.modern_meta(spec)?;
        let resp = match s
            .request("server/discover", Some(meta.stamp(None)), timeout)
            .await
        {
            Ok(resp) => resp,
            Err(SessionError::Timeout { .. }) => {
                return Ok(Discovered::Legacy(
                    json!({"timeout": format!("{timeout:?}")}),
                ));
            }
            Err(e) => return Err(session_failure(e)),
        };
        let obs = self.modern_observation(s, meta, &resp, timeout).await?;
        let unsupported = obs.pointer("/error/code").and_then(Value::as_i64)
            == Some(UNSUPPORTED_PROTOCOL_VERSION);
        if obs.get("error").is_some() && !unsupported {
            return Ok(Discovered::Legacy(obs));
        }
        if unsupported {
            let mut f = StepFailure::assertion(
                "the server speaks the modern generation but supports no version this suite speaks",
            );
            f.actual = Some(obs);
            return Err(f);
        }
        Ok(Discovered::Modern(obs))
    }

    /// Turns a `server/discover` response into the step's observation and, on success,
    /// switches the session to the modern generation. An UnsupportedProtocolVersionError
    /// listing [`MODERN_VERSION`] is retried once with it, as the revision tells clients to.
    async fn modern_observation(
        &self,
        s: &Session,
        mut meta: ModernMeta,
        resp: &Value,
        timeout: Duration,
    ) -> Result<Value, StepFailure> {
        let mut obs = response_observation(resp);
        let unsupported = obs.pointer("/error/code").and_then(Value::as_i64)
            == Some(UNSUPPORTED_PROTOCOL_VERSION);
        let lists_ours = obs
            .pointer("/error/data/supported")
            .and_then(Value::as_array)
            .is_some_and(|v| v.iter().any(|v| v == MODERN_VERSION));
        if unsupported && lists_ours && meta.protocol_version != MODERN_VERSION {
            meta.protocol_version = MODERN_VERSION.to_string();
            let resp = s
                .request("server/discover", Some(meta.stamp(None)), timeout)
                .await
                .map_err(session_failure)?;
            obs = response_observation(&resp);
        }
        let Some(result) = obs.get("result").cloned() else {
            return Ok(obs);
        };
        let Some(supported) = result.get("supportedVersions").and_then(Value::as_array) else {
            let mut f = StepFailure::assertion(
                "server/discover answered without a supportedVersions array",
            );
            f.actual = Some(obs);
            return Err(f);
        };
        if !supported
            .iter()
            .any(|v| v == meta.protocol_version.as_str())
        {
            let mut f = StepFailure::assertion(format!(
                "server/discover does not list {} among supportedVersions",
                meta.protocol_version
            ));
            f.actual = Some(obs);
            return Err(f);
        }
        obs["result"]["protocolVersion"] = json!(meta.protocol_version);
        if result.get("serverInfo").is_none()
            && let Some(info) =
                result.pointer(&format!("/_meta/{}", META_SERVER_INFO.replace('/', "~1")))
        {
            obs["result"]["serverInfo"] = info.clone();
        }
        obs["generation"] = json!("modern");
        s.set_modern(Some(meta));
        Ok(obs)
    }

    /// The params of the step's `initialize` request: its version (default: the target's
    /// first), capabilities and client info.
    pub(super) fn legacy_params(&self, spec: &InitializeSpec) -> Result<Value, StepFailure> {
        let version = match &spec.protocol_version {
            Some(v) => self.expand_str(v)?,
            None => self
                .target
                .target
                .protocol_versions
                .first()
                .cloned()
                .unwrap_or_else(|| "2025-11-25".to_string()),
        };
        Ok(json!({
            "protocolVersion": version,
            "capabilities": self.expand(spec.capabilities.as_ref().unwrap_or(&json!({})))?,
            "clientInfo": match &spec.client_info {
                Some(c) => self.expand(c)?,
                None => json!({"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")}),
            },
        }))
    }

    /// The legacy handshake: `initialize` with `params`, then `notifications/initialized`
    /// (unless the step says not to).
    async fn legacy_initialize(
        &self,
        s: &Session,
        step: &Step,
        spec: &InitializeSpec,
        params: Value,
        timeout: Duration,
    ) -> Result<Option<Value>, StepFailure> {
        s.set_modern(None);
        let resp = s
            .request("initialize", Some(params), timeout)
            .await
            .map_err(session_failure)?;
        let mut obs = response_observation(&resp);
        let ok = obs.get("result").is_some();
        if ok && spec.initialized.unwrap_or(true) {
            s.notify("notifications/initialized", None)
                .await
                .map_err(session_failure)?;
        }
        if !ok && step.expect.is_none() {
            let mut f = StepFailure::assertion("initialize was answered with an error");
            f.actual = Some(obs);
            return Err(f);
        }
        obs["generation"] = json!("legacy");
        Ok(Some(obs))
    }
}
