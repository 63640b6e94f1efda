//! `mcp-conformance targets`: the built-in targets, for people and for scripts. The target
//! files are the one list of the reference servers: the smoke test, the interop check and CI
//! read it from here instead of keeping lists of their own.

use crate::say::say;
use std::process::ExitCode;

use serde_json::{Value, json};

use super::{EXIT_USAGE, print_errors};
use crate::builtin;
use crate::model;

/// A built-in target whose name starts with this is a reference server (ours, built in this
/// workspace): the convention that makes the target files the list of them.
pub const REFERENCE_PREFIX: &str = "reference-";

/// Options of `targets`.
#[derive(Debug, clap::Args)]
pub struct TargetsArgs {
    /// Only the reference servers (the targets named `reference-*`).
    #[arg(long)]
    pub reference: bool,
    /// One JSON array of `{name, description, reference, suites, generations, command, args,
    /// admin}` instead of one name per line.
    #[arg(long)]
    pub json: bool,
}

/// Prints the built-in targets: one name per line, or with `--json` what each claims and
/// how it starts, so a script needs no YAML parser to read the target files.
pub fn targets(args: TargetsArgs) -> ExitCode {
    let mut listed: Vec<Value> = Vec::new();
    for name in builtin::target_names() {
        let reference = name.starts_with(REFERENCE_PREFIX);
        if args.reference && !reference {
            continue;
        }
        let Some((display, text)) = builtin::target(name) else {
            continue;
        };
        let target = match model::parse_target(text, &display) {
            Ok(t) => t,
            Err(e) => {
                print_errors(&e);
                return ExitCode::from(EXIT_USAGE);
            }
        };
        let generations: Vec<&str> = target
            .generations
            .iter()
            .map(|g| match g {
                model::GenerationClaim::Legacy => "legacy",
                model::GenerationClaim::Modern => "modern",
                model::GenerationClaim::Any => "*",
            })
            .collect();
        // The file's name, which `--target` takes (the file's `name:` is what reports show).
        listed.push(json!({
            "name": name,
            "description": target.description,
            "reference": reference,
            "suites": target.suites,
            "generations": generations,
            "command": target.server.command,
            "args": target.server.args,
            "admin": target.admin.map(|a| a.command),
        }));
    }
    if args.json {
        say!("{}", Value::Array(listed));
    } else {
        for t in &listed {
            say!("{}", t["name"].as_str().unwrap_or_default());
        }
    }
    ExitCode::SUCCESS
}
