//! The outward tool inventory, fixed at startup: which tools the hub advertises, under which
//! names, and which upstream tool each one routes to.
//!
//! For each upstream that started, in configuration order, and each of its tools in listed
//! order: a name containing `*` fails startup (the character is reserved for masks); the
//! filter decides on the original name; tools that require task execution are left out (the
//! hub does not support tasks; each is logged with the reason); overrides change only
//! `readOnlyHint`, `destructiveHint` and `openWorldHint`; the prefix makes the outward name.
//! Two tools with the same outward name, an override naming a tool the upstream does not
//! advertise, or an empty result fail startup: the hub never serves a partial or ambiguous
//! registry.
//!
//! Each advertised entry is the upstream's JSON text with only the name and the overridden
//! hints rewritten ([`crate::outward::tool_entry`]), and the `tools/list` answer of each
//! generation is joined once, here: listing costs no parse and no serialization.

use std::collections::HashMap;

use rmcp::model::Tool;
use serde_json::value::RawValue;

use crate::config::{InstanceId, ServerConfig};
use crate::json_text::Object;
use crate::outward::{self, Era};

/// Where an outward tool name leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Index of the owning upstream in the hub's upstream list.
    pub upstream: usize,
    /// The tool's original upstream name.
    pub original: String,
}

/// The fixed outward inventory.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Outward names, in configuration then listing order.
    names: Vec<String>,
    /// The entries of a `tools/list` answer, joined with commas: for clients older than
    /// 2026-07-28, then for 2026-07-28 (see [`outward::legacy_entry`]).
    listing: [String; 2],
    /// rmcp's typed view of the entries, for the requests rmcp serves itself (a `tools/list`
    /// the hub's front does not take); lossy (rmcp's `Tool` has no `execution`).
    typed: Vec<Tool>,
    routes: HashMap<String, Route>,
}

/// Why the inventory cannot be built. Each is a startup error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Two tools would be advertised under one name.
    #[error(
        "outward tool name `{name}` is exposed by both `{first}` and `{second}`: give one of \
         them a prefix or filter one of the tools out"
    )]
    Collision {
        /// The outward name.
        name: String,
        /// The instance that claimed it first.
        first: InstanceId,
        /// The instance that claimed it again.
        second: InstanceId,
    },
    /// An upstream advertises a tool whose name contains `*`.
    #[error(
        "upstream `{instance}` advertises tool `{tool}`: `*` is reserved for include/exclude \
         masks, so tool names containing it are not supported"
    )]
    StarInName {
        /// The upstream.
        instance: InstanceId,
        /// The tool.
        tool: String,
    },
    /// An override targets a tool the upstream does not advertise.
    #[error(
        "servers.{instance}.tools.overrides.{tool}: upstream `{instance}` advertises no tool \
         named `{tool}`"
    )]
    UnknownOverride {
        /// The upstream.
        instance: InstanceId,
        /// The override target.
        tool: String,
    },
    /// Nothing to serve.
    #[error(
        "no usable upstream tools remain after discovery (every upstream was omitted or \
         exposes no tools)"
    )]
    Empty,
}

/// What the registry needs of one started upstream.
#[derive(Debug, Clone, Copy)]
pub struct Listed<'a> {
    /// Its configuration.
    pub config: &'a ServerConfig,
    /// Its tools, exactly as listed (the upstream's JSON text).
    pub tools: &'a [Box<RawValue>],
}

impl Registry {
    /// Builds the inventory from the started upstreams; `upstreams[i]` routes as index `i`.
    pub fn build(upstreams: &[Listed<'_>]) -> Result<Self, RegistryError> {
        let mut registry = Registry::default();
        let mut owners: HashMap<String, &InstanceId> = HashMap::new();
        let mut entries: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        for (index, upstream) in upstreams.iter().enumerate() {
            let config = upstream.config;
            let listed: Vec<(Option<String>, &RawValue)> = upstream
                .tools
                .iter()
                .map(|raw| (tool_name(raw), raw.as_ref()))
                .collect();
            let names: Vec<&str> = listed.iter().filter_map(|(n, _)| n.as_deref()).collect();
            if let Some(tool) = names.iter().find(|name| name.contains('*')) {
                return Err(RegistryError::StarInName {
                    instance: config.id.clone(),
                    tool: (*tool).to_owned(),
                });
            }
            if let Some(target) = config
                .overrides
                .keys()
                .find(|t| !names.contains(&t.as_str()))
            {
                return Err(RegistryError::UnknownOverride {
                    instance: config.id.clone(),
                    tool: target.clone(),
                });
            }
            for (name, raw) in &listed {
                let Some(name) = name else {
                    tracing::warn!(instance_id = %config.id, "ignored a listed tool without a string name");
                    continue;
                };
                let Some((outward, entry)) = outward_tool(config, name, raw.get()) else {
                    continue;
                };
                if let Some(first) = owners.get(&outward) {
                    return Err(RegistryError::Collision {
                        name: outward,
                        first: (*first).clone(),
                        second: config.id.clone(),
                    });
                }
                owners.insert(outward.clone(), &config.id);
                registry.routes.insert(
                    outward.clone(),
                    Route {
                        upstream: index,
                        original: name.clone(),
                    },
                );
                match serde_json::from_str::<Tool>(&entry) {
                    Ok(tool) => registry.typed.push(tool),
                    Err(e) => tracing::debug!(
                        instance_id = %config.id,
                        tool = %name,
                        "the entry does not fit rmcp's Tool ({e}); listed as it is, except by rmcp"
                    ),
                }
                let legacy = outward::legacy_entry(&entry).ok().flatten();
                entries[0].push(legacy.unwrap_or_else(|| entry.clone()));
                entries[1].push(entry);
                registry.names.push(outward);
            }
        }
        if registry.names.is_empty() {
            return Err(RegistryError::Empty);
        }
        registry.listing = entries.map(|e| e.join(","));
        Ok(registry)
    }

    /// The advertised tools' outward names, in configuration then listing order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// How many tools are advertised.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether none is (never, for a built registry).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The `tools/list` result for a client of `era`, as JSON text.
    pub fn list_result(&self, era: Era) -> String {
        let entries = match era {
            Era::Legacy => &self.listing[0],
            Era::Modern => &self.listing[1],
        };
        outward::list_result(entries, era)
    }

    /// rmcp's typed view of the advertised tools (lossy; for rmcp's own `tools/list`).
    pub fn tools(&self) -> &[Tool] {
        &self.typed
    }

    /// The route of outward tool `name`.
    pub fn route(&self, name: &str) -> Option<&Route> {
        self.routes.get(name)
    }
}

/// A listed tool's `name`, when it is a string.
fn tool_name(raw: &RawValue) -> Option<String> {
    let object = Object::parse(raw.get()).ok()?;
    serde_json::from_str::<String>(object.get("name")?).ok()
}

/// The outward name and entry (JSON text) of one listed tool, or `None` when it is not
/// advertised.
fn outward_tool(config: &ServerConfig, name: &str, raw: &str) -> Option<(String, String)> {
    if !config.filter.exposes(name) {
        return None;
    }
    let Ok(object) = Object::parse(raw) else {
        tracing::warn!(instance_id = %config.id, tool = name, "ignored a malformed tool: not an object");
        return None;
    };
    if requires_tasks(&object) {
        tracing::debug!(
            instance_id = %config.id,
            tool = name,
            "not advertised: the tool requires task execution, which mcp-hub does not support"
        );
        return None;
    }
    if !object
        .get("inputSchema")
        .is_some_and(|s| s.starts_with('{'))
    {
        tracing::warn!(
            instance_id = %config.id,
            tool = name,
            "ignored a malformed tool: its inputSchema is missing or not an object"
        );
        return None;
    }
    let outward = match &config.prefix {
        Some(prefix) => prefix.apply(name),
        None => name.to_owned(),
    };
    let hints: Vec<(&'static str, bool)> = config
        .overrides
        .get(name)
        .map(|o| o.hints().collect())
        .unwrap_or_default();
    match outward::tool_entry(raw, &outward, &hints) {
        Ok(entry) => Some((outward, entry)),
        Err(e) => {
            tracing::warn!(instance_id = %config.id, tool = name, "ignored a malformed tool: {e}");
            None
        }
    }
}

/// `execution.taskSupport == "required"`.
fn requires_tasks(tool: &Object<'_>) -> bool {
    tool.get("execution")
        .and_then(|e| Object::parse(e).ok()?.get("taskSupport").map(str::to_owned))
        .and_then(|support| serde_json::from_str::<String>(&support).ok())
        .as_deref()
        == Some("required")
}

#[cfg(test)]
mod tests;
