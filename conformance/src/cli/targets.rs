//! `mcp-conformance targets`: the built-in targets, for people and for scripts. The target
//! files are the one list of the reference servers: the smoke test, the interop check and CI
//! read it from here instead of keeping lists of their own.

use std::process::ExitCode;

use serde_json::{Value, json};

use super::{EXIT_USAGE, print_errors};
use crate::builtin;
use crate::model;

/// Options of `targets`.
#[derive(Debug, clap::Args)]
pub struct TargetsArgs {
    /// Only the reference servers (the targets named `reference-*`).
    #[arg(long)]
    pub reference: bool,
    /// One JSON array of `{name, description, suites, generations, command}` instead of one
    /// name per line.
    #[arg(long)]
    pub json: bool,
}

/// Prints the built-in targets.
pub fn targets(args: TargetsArgs) -> ExitCode {
    let mut listed: Vec<Value> = Vec::new();
    for name in builtin::target_names() {
        if args.reference && !name.starts_with("reference-") {
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
        listed.push(json!({
            "name": target.name,
            "description": target.description,
            "suites": target.suites,
            "generations": generations,
            "command": target.server.command,
        }));
    }
    if args.json {
        println!("{}", Value::Array(listed));
    } else {
        for t in &listed {
            println!("{}", t["name"].as_str().unwrap_or_default());
        }
    }
    ExitCode::SUCCESS
}
