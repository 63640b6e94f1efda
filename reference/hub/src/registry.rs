//! The outward tool inventory, fixed at startup: which tools the hub advertises, under which
//! names, and which upstream tool each one routes to.
//!
//! For each upstream that started, in configuration order, and each of its tools in listed
//! order: a name containing `*` fails startup (the character is reserved for masks); the
//! filter decides on the original name; tools that require task execution are left out (the
//! hub does not support tasks); overrides change only `readOnlyHint`, `destructiveHint` and
//! `openWorldHint`; the prefix makes the outward name. Two tools with the same outward name,
//! an override naming a tool the upstream does not advertise, or an empty result fail
//! startup: the hub never serves a partial or ambiguous registry.

use std::collections::HashMap;

use rmcp::model::Tool;
use serde_json::{Map, Value};

use crate::config::{InstanceId, ServerConfig};

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
    tools: Vec<Tool>,
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
    /// Its tools, exactly as listed.
    pub tools: &'a [Map<String, Value>],
}

impl Registry {
    /// Builds the inventory from the started upstreams; `upstreams[i]` routes as index `i`.
    pub fn build(upstreams: &[Listed<'_>]) -> Result<Self, RegistryError> {
        let mut registry = Registry::default();
        let mut owners: HashMap<String, &InstanceId> = HashMap::new();
        for (index, upstream) in upstreams.iter().enumerate() {
            let config = upstream.config;
            let names: Vec<&str> = upstream
                .tools
                .iter()
                .filter_map(|tool| tool.get("name").and_then(Value::as_str))
                .collect();
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
            for raw in upstream.tools {
                let Some((outward, tool)) = outward_tool(config, raw) else {
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
                let original = raw
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                registry.routes.insert(
                    outward,
                    Route {
                        upstream: index,
                        original,
                    },
                );
                registry.tools.push(tool);
            }
        }
        if registry.tools.is_empty() {
            return Err(RegistryError::Empty);
        }
        Ok(registry)
    }

    /// The advertised tools, in configuration then listing order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The route of outward tool `name`.
    pub fn route(&self, name: &str) -> Option<&Route> {
        self.routes.get(name)
    }
}

/// The outward form of one listed tool, or `None` when it is not advertised.
fn outward_tool(config: &ServerConfig, raw: &Map<String, Value>) -> Option<(String, Tool)> {
    let Some(name) = raw.get("name").and_then(Value::as_str) else {
        tracing::warn!(instance_id = %config.id, "ignored a listed tool without a string name");
        return None;
    };
    if !config.filter.exposes(name) {
        return None;
    }
    if requires_tasks(raw) {
        tracing::debug!(
            instance_id = %config.id,
            tool = name,
            "not advertised: the tool requires task execution, which mcp-hub does not support"
        );
        return None;
    }
    let outward = match &config.prefix {
        Some(prefix) => prefix.apply(name),
        None => name.to_owned(),
    };
    let mut tool = raw.clone();
    if let Some(hints) = config.overrides.get(name) {
        let annotations = tool
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if !annotations.is_object() {
            *annotations = Value::Object(Map::new());
        }
        if let Value::Object(annotations) = annotations {
            for (key, value) in hints.hints() {
                annotations.insert(key.to_owned(), Value::Bool(value));
            }
        }
    }
    tool.insert("name".to_owned(), Value::String(outward.clone()));
    match serde_json::from_value::<Tool>(Value::Object(tool)) {
        Ok(tool) => Some((outward, tool)),
        Err(e) => {
            tracing::warn!(instance_id = %config.id, tool = name, "ignored a malformed tool: {e}");
            None
        }
    }
}

/// `execution.taskSupport == "required"`.
fn requires_tasks(tool: &Map<String, Value>) -> bool {
    tool.get("execution")
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str)
        == Some("required")
}

#[cfg(test)]
mod tests;
