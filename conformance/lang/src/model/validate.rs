//! Raw scenario -> typed [`Scenario`]: one kind key per step, only the modifiers that kind
//! understands, valid patterns, known servers. Every error carries the step's position. What
//! is particular to a kind is checked by its own module (`steps/`), through [`Build`].

use super::level::{SOURCED_SUITES, Sources};
use super::scenario::RawScenario;
use super::steps::{Build, RawStep, Step, kinds_accepting};
use super::{FileError, Position, Scenario};
use crate::matcher::check_pattern;
use crate::sandbox::SandboxSpec;
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeSet;

/// Validates a parsed scenario; collects every error rather than stopping at the first.
pub fn validate_scenario(raw: RawScenario, file: &str) -> Result<Scenario, Vec<FileError>> {
    let mut errors = Vec::new();
    let err_at = |pos: Option<Position>, message: String| FileError {
        file: file.to_string(),
        position: pos,
        message,
    };
    if raw.name.trim().is_empty() {
        errors.push(err_at(None, "scenario name must not be empty".into()));
    }
    if raw.steps.is_empty() {
        errors.push(err_at(None, "a scenario needs at least one step".into()));
    }
    let servers: Vec<(String, super::ServerSpec)> = match raw.servers {
        Some(map) if map.is_empty() => {
            errors.push(err_at(
                None,
                "`servers` must name at least one server".into(),
            ));
            Vec::new()
        }
        Some(map) => map.into_iter().collect(),
        None => vec![(
            "main".to_string(),
            super::ServerSpec {
                start: true,
                ..Default::default()
            },
        )],
    };
    let names: BTreeSet<String> = servers.iter().map(|(n, _)| n.clone()).collect();
    let mut ctx = Ctx {
        file,
        servers: &names,
        errors: Vec::new(),
    };
    let steps = raw
        .steps
        .into_iter()
        .filter_map(|s| ctx.step(s))
        .collect::<Vec<_>>();
    errors.extend(ctx.errors);
    let sandbox = SandboxSpec {
        workspace: raw.workspace,
        state: raw.state,
        home: raw.home,
        dirs: raw.dirs,
    };
    if let Err(e) = sandbox.validate() {
        errors.push(err_at(None, format!("sandbox: {e}")));
    }
    let sources = raw.source.map(Sources::into_vec).unwrap_or_default();
    for source in &sources {
        if let Err(e) = source.check() {
            errors.push(err_at(None, e));
        }
    }
    if sources.is_empty() && SOURCED_SUITES.contains(&raw.suite.as_str()) {
        errors.push(err_at(
            None,
            format!(
                "a scenario of the `{}` suite says where its rule comes from: add `source:` \
                 with the document and the sentence it enforces, quoted",
                raw.suite
            ),
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Scenario {
        file: file.to_string(),
        name: raw.name,
        suite: raw.suite,
        description: raw.description,
        spec: raw.spec.map(|s| s.to_vec()).unwrap_or_default(),
        sources,
        level: raw.level.unwrap_or_default(),
        tags: raw.tags,
        mirrors: raw.mirrors,
        requires: raw.requires,
        generations: raw.generations,
        pass: None,
        earlier_passes: Vec::new(),
        knobs: raw.knobs,
        timeout: raw.timeout.map(|s| s.0),
        step_timeout: raw.step_timeout.map(|s| s.0),
        vars: raw.vars,
        servers,
        sandbox,
        steps,
    })
}

struct Ctx<'a> {
    file: &'a str,
    servers: &'a BTreeSet<String>,
    errors: Vec<FileError>,
}

impl Ctx<'_> {
    fn error(&mut self, pos: Position, message: String) {
        self.errors.push(FileError {
            file: self.file.to_string(),
            position: Some(pos),
            message,
        });
    }

    fn pattern(&mut self, pos: Position, what: &str, pattern: &Spanned<Value>) -> Value {
        let at = Position::of(&pattern.referenced).unwrap_or(pos);
        if let Err(e) = check_pattern(&pattern.value) {
            let one_line = e
                .to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            self.error(at, format!("invalid `{what}` pattern: {one_line}"));
        }
        pattern.value.clone()
    }

    fn step(&mut self, spanned: Spanned<RawStep>) -> Option<Step> {
        let pos = Position::of(&spanned.referenced).unwrap_or(Position { line: 0, column: 0 });
        let mut raw = spanned.value;
        let info = match raw.kinds_present().as_slice() {
            [one] => *one,
            [] => {
                self.error(
                    pos,
                    "a step needs one kind key (call, admin, file, ...)".into(),
                );
                return None;
            }
            many => {
                let names: Vec<&str> = many.iter().map(|k| k.name).collect();
                self.error(
                    pos,
                    format!(
                        "a step has exactly one kind key, found: {}",
                        names.join(", ")
                    ),
                );
                return None;
            }
        };
        let kind_name = info.name;
        for (modifier, present) in raw.modifier_flags() {
            if present && !info.modifiers.contains(&modifier) {
                self.error(
                    pos,
                    format!(
                        "`{modifier}` does not apply to `{kind_name}` (it applies to: {})",
                        kinds_accepting(modifier).join(", ")
                    ),
                );
            }
        }
        let is_nowait = raw.nowait.is_some();
        if (raw.expect.is_some() || raw.save.is_some()) && (!info.observes || is_nowait) {
            self.error(
                pos,
                format!("`{kind_name}` has nothing to `expect` or `save` here"),
            );
        }
        if is_nowait && raw.rounds.is_some() {
            self.error(
                pos,
                "`rounds` retries the request once its answer is read: not with `nowait`".into(),
            );
        }
        if let Some(need) = &raw.skip_unless {
            if raw.expect.is_none() {
                self.error(
                    pos,
                    "`skip_unless` needs an `expect`: the precondition is that it matches".into(),
                );
            }
            if need.trim().is_empty() {
                self.error(
                    pos,
                    "`skip_unless` says what the scenario needs (it is the skip reason)".into(),
                );
            }
        }
        if let Some(on) = &raw.on
            && !self.servers.contains(on)
        {
            let known: Vec<&str> = self.servers.iter().map(String::as_str).collect();
            self.error(
                pos,
                format!("`on: {on}` names no server (servers: {})", known.join(", ")),
            );
        }
        let expect = raw.expect.as_ref().map(|p| self.pattern(pos, "expect", p));
        let until = raw.until.as_ref().map(|p| self.pattern(pos, "until", p));
        let mut modifiers = raw.take_modifiers(until);
        let (kind, label) = {
            let mut cx = StepCx { ctx: self, pos };
            raw.build_kind(&mut modifiers, &mut cx)?
        };
        Some(Step {
            kind,
            position: pos,
            on: raw.on,
            expect,
            save: raw.save.unwrap_or_default(),
            within: raw.within.map(|s| s.0),
            every: raw.every.map(|s| s.0),
            timeout: raw.timeout.map(|s| s.0),
            label: raw.label.unwrap_or(label),
            level: raw.level,
            skip_unless: raw.skip_unless,
        })
    }
}

/// What a kind's `build` sees of the validation: errors land at its step's position.
struct StepCx<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    pos: Position,
}

impl Build for StepCx<'_, '_> {
    fn error(&mut self, message: String) {
        self.ctx.error(self.pos, message);
    }

    fn pattern(&mut self, what: &str, pattern: &Spanned<Value>) -> Value {
        self.ctx.pattern(self.pos, what, pattern)
    }

    /// A level weighs a whole top-level step: a part of a `parallel` or `repeat` cannot be
    /// weighed apart from the block it runs in; nor can a precondition stop a scenario from
    /// inside one.
    fn block(&mut self, steps: Vec<Spanned<RawStep>>, block: &str) -> Vec<Step> {
        let steps: Vec<Step> = steps.into_iter().filter_map(|s| self.ctx.step(s)).collect();
        for step in &steps {
            for (modifier, present) in [
                ("level", step.level.is_some()),
                ("skip_unless", step.skip_unless.is_some()),
            ] {
                if present {
                    self.ctx.error(
                        step.position,
                        format!(
                            "`{modifier}` applies to top-level steps, not to steps inside `{block}`"
                        ),
                    );
                }
            }
        }
        steps
    }
}
