//! The hub's configuration: a TOML 1.1 file of `[servers.<instance_id>]` tables.
//!
//! Loading is two steps, so each error names what is wrong and where: the file is parsed into
//! plain serde structs ([`raw`]: syntax, unknown keys, value types; errors carry the line,
//! column and key path), then validated into the types the hub runs on (names, masks,
//! override targets; errors carry the key path). Every error names the file.

mod names;
mod raw;
mod tools;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use names::{InstanceId, NameError, Prefix};
pub use tools::{AnnotationOverride, Filter, Overrides};

use crate::mask::ToolMask;
use raw::{RawConfig, RawServer, RawTools};

/// The environment variable naming the configuration file when no argument is given.
pub const CONFIG_ENV: &str = "MCP_HUB_CONFIG";
/// The environment variable bounding each upstream startup step, in milliseconds.
pub const STARTUP_TIMEOUT_ENV: &str = "MCP_HUB_STARTUP_TIMEOUT_MS";
/// The startup step bound when [`STARTUP_TIMEOUT_ENV`] is unset.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_millis(5000);

/// Why the configuration cannot be used. Each message is one line fit for stderr.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Neither an argument nor [`CONFIG_ENV`] names a file.
    #[error(
        "no configuration file: pass its path as the first argument or set {CONFIG_ENV} (see --help)"
    )]
    NoPath,
    /// The file cannot be read.
    #[error("{path}: cannot read the configuration: {source}")]
    Read {
        /// The file as given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not have the expected shape.
    #[error("{path}:{line}:{column}: {at}{message}")]
    Parse {
        /// The file as given.
        path: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// `key.path: ` of the offending value, or empty when the error is about syntax.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// A value has the right type but is not acceptable.
    #[error("{path}: {key}: {message}")]
    Invalid {
        /// The file as given.
        path: String,
        /// The key path of the value, e.g. `servers.gh.prefix`.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// [`STARTUP_TIMEOUT_ENV`] is not a positive number of milliseconds.
    #[error("{STARTUP_TIMEOUT_ENV}: `{0}` is not a positive whole number of milliseconds")]
    StartupTimeout(String),
}

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// The file it was read from.
    pub path: PathBuf,
    /// The upstreams, in file order.
    pub servers: Vec<ServerConfig>,
}

/// One validated `[servers.<instance_id>]` table.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The table's key.
    pub id: InstanceId,
    /// The program: a path, or a name looked up on `PATH`.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to (or replacing in) the hub's environment for the child, verbatim.
    pub env: Vec<(String, String)>,
    /// Relay the child's stderr through tracing (`true`) or discard it.
    pub stderr: bool,
    /// Outward name prefix.
    pub prefix: Option<Prefix>,
    /// Which original tool names are exposed.
    pub filter: Filter,
    /// `exclude` was given but is ignored because `include` is present.
    pub exclude_ignored: bool,
    /// Hint corrections by original tool name.
    pub overrides: Overrides,
}

impl HubConfig {
    /// Reads and validates the file at `path`.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(path, &text)
    }

    /// Parses and validates `text`, the content of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let shown = path.display().to_string();
        let raw = parse_raw(&shown, text)?;
        let servers = match raw.servers {
            Some(servers) if !servers.is_empty() => servers,
            _ => {
                return Err(ConfigError::Invalid {
                    path: shown,
                    key: "servers".into(),
                    message: "at least one [servers.<instance_id>] table is required".into(),
                });
            }
        };
        let servers = servers
            .into_iter()
            .map(|(id, server)| validate_server(id, server))
            .collect::<Result<Vec<_>, (String, String)>>()
            .map_err(|(key, message)| ConfigError::Invalid {
                path: shown,
                key,
                message,
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            servers,
        })
    }
}

/// The startup step bound from the value of [`STARTUP_TIMEOUT_ENV`] (`None`: unset).
pub fn startup_timeout(value: Option<&str>) -> Result<Duration, ConfigError> {
    let Some(value) = value else {
        return Ok(DEFAULT_STARTUP_TIMEOUT);
    };
    match value.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(ConfigError::StartupTimeout(value.to_owned())),
    }
}

fn parse_raw(shown: &str, text: &str) -> Result<RawConfig, ConfigError> {
    let located = |error: &toml::de::Error, at: String| {
        let start = error.span().map_or(0, |span| span.start).min(text.len());
        let before = text.get(..start).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let column = before
            .rsplit('\n')
            .next()
            .map_or(0, |last| last.chars().count())
            + 1;
        ConfigError::Parse {
            path: shown.to_owned(),
            line,
            column,
            at,
            message: error.message().trim().replace('\n', "; "),
        }
    };
    let deserializer =
        toml::de::Deserializer::parse(text).map_err(|e| located(&e, String::new()))?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let at = e.path().to_string();
        let at = if at == "." {
            String::new()
        } else {
            format!("{at}: ")
        };
        located(e.inner(), at)
    })
}

type Invalid = (String, String);

fn validate_server(raw_id: String, server: RawServer) -> Result<ServerConfig, Invalid> {
    let here = format!("servers.{raw_id}");
    let id = InstanceId::try_from(raw_id)
        .map_err(|e| (here.clone(), format!("invalid instance id: {e}")))?;
    if server.command.trim().is_empty() {
        return Err((format!("{here}.command"), "must not be empty".into()));
    }
    let prefix = server
        .prefix
        .map(Prefix::try_from)
        .transpose()
        .map_err(|e| (format!("{here}.prefix"), format!("invalid prefix: {e}")))?;
    let env = server
        .env
        .into_iter()
        .map(|(key, value)| {
            let bad_key = key.is_empty() || key.contains(['=', '\0']);
            if bad_key || value.contains('\0') {
                Err((
                    format!("{here}.env.{key}"),
                    "environment names must be non-empty without `=` or NUL; values without NUL"
                        .into(),
                ))
            } else {
                Ok((key, value))
            }
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    let (filter, exclude_ignored, overrides) = validate_tools(&here, server.tools)?;
    Ok(ServerConfig {
        id,
        command: server.command,
        args: server.args,
        env,
        stderr: server.stderr.unwrap_or(true),
        prefix,
        filter,
        exclude_ignored,
        overrides,
    })
}

fn masks(key: String, raw: Option<Vec<String>>) -> Result<Option<Vec<ToolMask>>, Invalid> {
    raw.map(|masks| {
        masks
            .into_iter()
            .map(|m| ToolMask::try_from(m).map_err(|e| (key.clone(), e.to_string())))
            .collect()
    })
    .transpose()
}

fn validate_tools(here: &str, tools: RawTools) -> Result<(Filter, bool, Overrides), Invalid> {
    let include = masks(format!("{here}.tools.include"), tools.include)?;
    let exclude = masks(format!("{here}.tools.exclude"), tools.exclude)?;
    let exclude_ignored = include.is_some() && exclude.is_some();
    let mut overrides = Overrides::new();
    for (target, raw) in tools.overrides {
        let key = format!("{here}.tools.overrides.{target}");
        if target.is_empty() {
            return Err((key, "an override must name a tool".into()));
        }
        if target.contains('*') {
            return Err((
                key,
                "`*` is reserved for include/exclude masks: an override names one exact \
                 upstream tool"
                    .into(),
            ));
        }
        let value = AnnotationOverride {
            read_only: raw.read_only,
            destructive: raw.destructive,
            open_world: raw.open_world,
        };
        overrides.insert(target, value);
    }
    Ok((Filter::new(include, exclude), exclude_ignored, overrides))
}

#[cfg(test)]
mod tests;
