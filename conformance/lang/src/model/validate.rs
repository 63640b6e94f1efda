//! Raw scenario -> typed [`Scenario`]: one kind key per step, only the modifiers that kind
//! understands, valid patterns, known servers. Every error carries the step's position.

use super::level::{SOURCED_SUITES, Sources};
use super::scenario::{RawScenario, RawStep};
use super::{FileError, Position, Scenario, Step, StepKind};
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
        requires: raw.requires,
        generations: raw.generations,
        pass: None,
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
        let at = position_of(&pattern.referenced).unwrap_or(pos);
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
        let pos = position_of(&spanned.referenced).unwrap_or(Position { line: 0, column: 0 });
        let raw = spanned.value;
        let kinds = kinds_present(&raw);
        let kind_name = match kinds.as_slice() {
            [one] => *one,
            [] => {
                self.error(
                    pos,
                    "a step needs one kind key (call, admin, file, ...)".into(),
                );
                return None;
            }
            many => {
                self.error(
                    pos,
                    format!(
                        "a step has exactly one kind key, found: {}",
                        many.join(", ")
                    ),
                );
                return None;
            }
        };
        let Some(info) = super::kinds::step_kind(kind_name) else {
            self.error(pos, format!("`{kind_name}` is not a step kind"));
            return None;
        };
        for modifier in super::kinds::KIND_MODIFIERS {
            if modifier_present(&raw, modifier) && !info.modifiers.contains(modifier) {
                self.error(
                    pos,
                    format!(
                        "`{modifier}` does not apply to `{kind_name}` (it applies to: {})",
                        super::kinds::kinds_accepting(modifier).join(", ")
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
        if let Some(on) = &raw.on
            && !self.servers.contains(on)
        {
            {
                let known: Vec<&str> = self.servers.iter().map(String::as_str).collect();
                self.error(
                    pos,
                    format!("`on: {on}` names no server (servers: {})", known.join(", ")),
                );
            }
        }
        let expect = raw.expect.as_ref().map(|p| self.pattern(pos, "expect", p));
        let until = raw.until.as_ref().map(|p| self.pattern(pos, "until", p));
        let expect_message = raw
            .expect_message
            .as_ref()
            .map(|p| self.pattern(pos, "expect_message", p));
        let no_message = raw
            .no_message
            .as_ref()
            .map(|p| self.pattern(pos, "no_message", p));
        let label_of = |arg: &str| format!("{kind_name} {arg}");
        let (kind, label) = match kind_name {
            "initialize" => (
                StepKind::Initialize(raw.initialize.unwrap_or_default()),
                "initialize".to_string(),
            ),
            "list_tools" => (StepKind::ListTools, "list_tools".to_string()),
            "call" => {
                let name = raw.call.unwrap_or_default();
                let label = label_of(&name);
                let kind = StepKind::Call {
                    name,
                    args: raw.args,
                    meta: raw.meta,
                    progress: raw.progress.unwrap_or(false),
                    nowait: raw.nowait,
                };
                (kind, label)
            }
            "await" => {
                let handle = raw.await_.unwrap_or_default();
                (StepKind::Await(handle.clone()), label_of(&handle))
            }
            "poll" => {
                let poll = raw.poll?;
                let label = format!("poll {}", poll.call);
                let Some(until) = until else {
                    self.error(pos, "`poll` needs an `until` pattern".into());
                    return None;
                };
                (
                    StepKind::Poll {
                        name: poll.call,
                        args: poll.args,
                        until,
                    },
                    label,
                )
            }
            "request" => {
                let method = raw.request.unwrap_or_default();
                let label = label_of(&method);
                let kind = StepKind::Request {
                    method,
                    params: raw.params,
                    meta: raw.meta,
                    nowait: raw.nowait,
                };
                (kind, label)
            }
            "notify" => {
                let method = raw.notify.unwrap_or_default();
                let label = label_of(&method);
                (
                    StepKind::Notify {
                        method,
                        params: raw.params,
                    },
                    label,
                )
            }
            "send" => {
                let text = raw.send.unwrap_or_default();
                let label = label_of(&shorten(&text));
                (
                    StepKind::Send {
                        text,
                        newline: raw.newline.unwrap_or(true),
                    },
                    label,
                )
            }
            "expect_message" => (
                StepKind::ExpectMessage(expect_message.unwrap_or(Value::Null)),
                "expect_message".to_string(),
            ),
            "no_response" => {
                let handle = raw.no_response.unwrap_or_default();
                (StepKind::NoResponse(handle.clone()), label_of(&handle))
            }
            "no_message" => (
                StepKind::NoMessage(no_message.unwrap_or(Value::Null)),
                "no_message".to_string(),
            ),
            "admin" => {
                let args = raw.admin.unwrap_or_default();
                let label = label_of(&args.join(" "));
                (
                    StepKind::Admin {
                        args,
                        stdin: raw.stdin,
                        env: raw.env.unwrap_or_default(),
                    },
                    label,
                )
            }
            "exec" => {
                let spec = raw.exec?;
                let label = label_of(&spec.program);
                (
                    StepKind::Exec {
                        spec,
                        stdin: raw.stdin,
                    },
                    label,
                )
            }
            "file" => {
                let path = raw.file.unwrap_or_default();
                (StepKind::File(path.clone()), label_of(&path))
            }
            "processes" => {
                let spec = raw.processes?;
                let label = label_of(&spec.pidfile);
                (StepKind::Processes(spec.pidfile), label)
            }
            "stderr" => (StepKind::Stderr, "stderr".into()),
            "stdout" => (StepKind::Stdout, "stdout".into()),
            "start" => (StepKind::Start, "start".into()),
            "restart" => (StepKind::Restart, "restart".into()),
            "stop" => (StepKind::Stop, "stop".into()),
            "wait_exit" => (StepKind::WaitExit, "wait_exit".into()),
            "kill" => {
                let name = raw
                    .kill
                    .and_then(|k| k.signal)
                    .unwrap_or_else(|| "TERM".into());
                let signal = match super::KillSignal::try_from(name.as_str()) {
                    Ok(signal) => signal,
                    Err(message) => {
                        self.error(pos, message);
                        return None;
                    }
                };
                (StepKind::Kill(signal), label_of(signal.name()))
            }
            "parallel" => {
                let inner = raw.parallel.unwrap_or_default();
                if inner.len() < 2 {
                    self.error(pos, "`parallel` needs at least two steps".into());
                }
                let steps: Vec<Step> = inner.into_iter().filter_map(|s| self.step(s)).collect();
                self.no_nested_levels(&steps, "parallel");
                let label = format!("parallel ({} steps)", steps.len());
                (StepKind::Parallel(steps), label)
            }
            "set" => (
                StepKind::Set(raw.set.unwrap_or_default()),
                "set".to_string(),
            ),
            "repeat" => {
                let spec = raw.repeat?;
                if spec.times > 1_000_000 {
                    self.error(pos, "`repeat` takes at most 1,000,000 rounds".into());
                }
                if spec.steps.is_empty() {
                    self.error(pos, "`repeat` needs at least one step".into());
                }
                let steps: Vec<Step> = spec
                    .steps
                    .into_iter()
                    .filter_map(|s| self.step(s))
                    .collect();
                self.no_nested_levels(&steps, "repeat");
                let label = format!("repeat {} times", spec.times);
                (
                    StepKind::Repeat {
                        times: spec.times,
                        var: spec.var.unwrap_or_else(|| "i".to_string()),
                        steps,
                    },
                    label,
                )
            }
            "contract" => {
                let file = raw.contract.unwrap_or_default();
                (StepKind::Contract(file.clone()), label_of(&file))
            }
            other => {
                self.error(pos, format!("unknown step kind {other}"));
                return None;
            }
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
        })
    }

    /// A level weighs a whole top-level step: a part of a `parallel` or `repeat` cannot be
    /// weighed apart from the block it runs in.
    fn no_nested_levels(&mut self, steps: &[Step], block: &str) {
        for step in steps.iter().filter(|s| s.level.is_some()) {
            self.error(
                step.position,
                format!("`level` applies to top-level steps, not to steps inside `{block}`"),
            );
        }
    }
}

fn position_of(loc: &serde_saphyr::Location) -> Option<Position> {
    (loc.line() > 0).then(|| Position {
        line: loc.line(),
        column: loc.column(),
    })
}

fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

/// The kind keys a raw step has.
fn kinds_present(raw: &RawStep) -> Vec<&'static str> {
    let flags = [
        ("initialize", raw.initialize.is_some()),
        ("list_tools", raw.list_tools.is_some()),
        ("call", raw.call.is_some()),
        ("await", raw.await_.is_some()),
        ("poll", raw.poll.is_some()),
        ("request", raw.request.is_some()),
        ("notify", raw.notify.is_some()),
        ("send", raw.send.is_some()),
        ("expect_message", raw.expect_message.is_some()),
        ("no_message", raw.no_message.is_some()),
        ("no_response", raw.no_response.is_some()),
        ("admin", raw.admin.is_some()),
        ("exec", raw.exec.is_some()),
        ("file", raw.file.is_some()),
        ("processes", raw.processes.is_some()),
        ("stderr", raw.stderr.is_some()),
        ("stdout", raw.stdout.is_some()),
        ("start", raw.start.is_some()),
        ("restart", raw.restart.is_some()),
        ("stop", raw.stop.is_some()),
        ("wait_exit", raw.wait_exit.is_some()),
        ("kill", raw.kill.is_some()),
        ("parallel", raw.parallel.is_some()),
        ("set", raw.set.is_some()),
        ("repeat", raw.repeat.is_some()),
        ("contract", raw.contract.is_some()),
    ];
    flags
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect()
}

fn modifier_present(raw: &RawStep, name: &str) -> bool {
    match name {
        "args" => raw.args.is_some(),
        "params" => raw.params.is_some(),
        "meta" => raw.meta.is_some(),
        "progress" => raw.progress.is_some(),
        "nowait" => raw.nowait.is_some(),
        "until" => raw.until.is_some(),
        "stdin" => raw.stdin.is_some(),
        "env" => raw.env.is_some(),
        "within" => raw.within.is_some(),
        "every" => raw.every.is_some(),
        "newline" => raw.newline.is_some(),
        _ => false,
    }
}
