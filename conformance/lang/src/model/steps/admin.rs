//! `admin`: run the target's operator command (e.g. `mcp-toolhub-admin approve`).

use super::{Build, Modifiers, StepKindInfo, label};
use std::collections::BTreeMap;

/// The descriptor of `admin`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "admin",
    doc: "Run the target's operator command with these arguments; observation `{exit, stdout, stderr}`.",
    observes: true,
    modifiers: &["stdin", "env"],
};

/// What `admin:` holds: the arguments.
pub type Raw = Vec<String>;

/// An `admin` step.
#[derive(Debug, Clone)]
pub struct Admin {
    /// The arguments (interpolated when run).
    pub args: Vec<String>,
    /// Its standard input.
    pub stdin: Option<String>,
    /// Extra environment.
    pub env: BTreeMap<String, String>,
}

pub(super) fn build(args: Raw, m: &mut Modifiers, _: &mut dyn Build) -> Option<(Admin, String)> {
    let label = label(&INFO, &args.join(" "));
    let admin = Admin {
        args,
        stdin: m.stdin.take(),
        env: m.env.take().unwrap_or_default(),
    };
    Some((admin, label))
}
