//! Why the hub did not start serving, as the one `mcp-hub: ...` line the command line prints.
//!
//! When no usable tool remains because upstreams were omitted, the line names each omitted
//! upstream and its cause first (`upstream `x`: command `y` not found on PATH`): that is what
//! the operator has to fix, while "no usable tool remains" is only its consequence.

use crate::registry::RegistryError;
use crate::upstream::Omitted;

/// A startup failure (exit code [`crate::run::EXIT_STARTUP`]).
#[derive(Debug, thiserror::Error)]
pub enum StartupFailure {
    /// The async runtime could not be built.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The signal handlers could not be installed.
    #[error("cannot install signal handlers: {0}")]
    Signals(std::io::Error),
    /// No usable tool remains, and some upstreams were omitted: their causes lead.
    #[error("startup failed: {}{}", causes(.omitted), others(*.others_started))]
    Unavailable {
        /// The omitted upstreams, in configuration order (at least one).
        omitted: Vec<Omitted>,
        /// Whether other upstreams started (and exposed no usable tool).
        others_started: bool,
    },
    /// The inventory cannot be built (a collision, an unknown override target, ...), or no
    /// upstream was omitted and none exposes a usable tool.
    #[error("startup failed: {0}")]
    Registry(RegistryError),
}

impl StartupFailure {
    /// The failure of an inventory that could not be built from the upstreams that started,
    /// with `omitted` those that did not.
    pub fn inventory(error: RegistryError, omitted: Vec<Omitted>, started: usize) -> Self {
        match error {
            RegistryError::Empty if !omitted.is_empty() => Self::Unavailable {
                omitted,
                others_started: started > 0,
            },
            error => Self::Registry(error),
        }
    }
}

fn causes(omitted: &[Omitted]) -> String {
    omitted
        .iter()
        .map(|o| format!("upstream `{}`: {}", o.id, o.error))
        .collect::<Vec<_>>()
        .join("; ")
}

fn others(started: bool) -> &'static str {
    match started {
        true => "; the other upstreams expose no usable tool",
        false => "",
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::InstanceId;
    use crate::upstream::StartError;

    fn omitted(id: &str, step: &'static str) -> Omitted {
        Omitted {
            id: InstanceId::try_from(id.to_owned()).expect("id"),
            error: StartError::Timeout {
                step,
                timeout: Duration::from_millis(300),
            },
        }
    }

    #[test]
    fn omitted_upstreams_lead_the_line() {
        let failure = StartupFailure::inventory(
            RegistryError::Empty,
            vec![omitted("a", "initialize"), omitted("b", "tools/list")],
            0,
        );
        assert_eq!(
            failure.to_string(),
            "startup failed: upstream `a`: initialize did not finish within 300 ms; \
             upstream `b`: tools/list did not finish within 300 ms"
        );
        let failure =
            StartupFailure::inventory(RegistryError::Empty, vec![omitted("a", "initialize")], 2);
        assert_eq!(
            failure.to_string(),
            "startup failed: upstream `a`: initialize did not finish within 300 ms; the other \
             upstreams expose no usable tool"
        );
    }

    #[test]
    fn without_omitted_upstreams_the_registry_says_why() {
        let failure = StartupFailure::inventory(RegistryError::Empty, Vec::new(), 2);
        assert_eq!(
            failure.to_string(),
            format!("startup failed: {}", RegistryError::Empty)
        );
        // A collision is the failure even when some upstream was omitted too.
        let collision = RegistryError::Collision {
            name: "echo".into(),
            first: InstanceId::try_from("a".to_owned()).expect("id"),
            second: InstanceId::try_from("b".to_owned()).expect("id"),
        };
        let failure =
            StartupFailure::inventory(collision.clone(), vec![omitted("c", "initialize")], 2);
        assert_eq!(failure.to_string(), format!("startup failed: {collision}"));
    }
}
