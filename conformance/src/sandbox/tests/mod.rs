//! Tests of the sandboxes: the helpers they share; the tests are grouped by subject in the
//! modules declared below.

#![allow(clippy::unwrap_used)]

mod cleanup;
mod describe_path;
mod git;
mod parsing;
mod seeding;

use std::collections::BTreeMap;

use super::*;

fn no_expand(text: &str, _sandbox_vars: &BTreeMap<String, String>) -> Result<String, String> {
    Ok(text.to_owned())
}

/// A tiny `${name}` expander over the sandbox's variables plus `extra`, standing in for the
/// runner's.
fn expander(
    extra: BTreeMap<String, String>,
) -> impl Fn(&str, &BTreeMap<String, String>) -> Result<String, String> {
    move |text: &str, sandbox_vars: &BTreeMap<String, String>| {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or("unclosed ${")?;
            let name = &after[..end];
            let value = extra.get(name).or_else(|| sandbox_vars.get(name));
            out.push_str(value.ok_or(format!("unknown variable {name}"))?);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

fn spec(yaml: &str) -> SandboxSpec {
    serde_saphyr::from_str(yaml).unwrap()
}
