//! `kill`: send the server a signal.

use super::{Build, KindValue, Modifiers, StepKindInfo, label};
use schemars::JsonSchema;
use serde::Deserialize;

/// The descriptor of `kill`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "kill",
    doc: "Send a signal (default `TERM`) to the server process.",
    observes: false,
    modifiers: &[],
};

/// What `kill:` holds.
pub type Raw = KillSpec;

/// Options of `kill`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillSpec {
    /// Signal name: TERM (default), KILL, INT, HUP.
    #[serde(default)]
    pub signal: Option<String>,
}

impl KindValue for KillSpec {
    fn when_written_empty() -> Option<Self> {
        Some(KillSpec::default())
    }
}

/// A `kill` step.
#[derive(Debug, Clone)]
pub struct Kill {
    /// The signal.
    pub signal: KillSignal,
}

/// The signals a `kill` step can send: a closed set, parsed once when the scenario is loaded,
/// so a misspelt name is a validation error at its line, never a different signal at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillSignal {
    /// `TERM` (the default): ask the server to end.
    Term,
    /// `KILL`: end it without a chance to clean up.
    Kill,
    /// `INT`: as a terminal's Ctrl-C.
    Int,
    /// `HUP`: as a closed terminal.
    Hup,
}

impl KillSignal {
    /// Every signal, with the name a scenario writes.
    pub const ALL: [(KillSignal, &'static str); 4] = [
        (KillSignal::Term, "TERM"),
        (KillSignal::Kill, "KILL"),
        (KillSignal::Int, "INT"),
        (KillSignal::Hup, "HUP"),
    ];

    /// The name a scenario writes (`TERM`, ...).
    pub fn name(self) -> &'static str {
        KillSignal::ALL
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("TERM", |(_, n)| n)
    }
}

impl TryFrom<&str> for KillSignal {
    type Error = String;

    fn try_from(name: &str) -> Result<KillSignal, String> {
        KillSignal::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(s, _)| *s)
            .ok_or_else(|| {
                let names: Vec<&str> = KillSignal::ALL.iter().map(|(_, n)| *n).collect();
                format!("unknown signal {name:?} ({})", names.join(", "))
            })
    }
}

pub(super) fn build(raw: Raw, _: &mut Modifiers, cx: &mut dyn Build) -> Option<(Kill, String)> {
    let name = raw.signal.unwrap_or_else(|| "TERM".into());
    match KillSignal::try_from(name.as_str()) {
        Ok(signal) => Some((Kill { signal }, label(&INFO, signal.name()))),
        Err(message) => {
            cx.error(message);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KillSignal;

    #[test]
    fn every_name_reads_back_and_nothing_else_is_a_signal() {
        for (signal, name) in KillSignal::ALL {
            assert_eq!(KillSignal::try_from(name), Ok(signal));
            assert_eq!(signal.name(), name);
        }
        for bad in ["term", "SIGTERM", "STOP", "", " TERM"] {
            let error = KillSignal::try_from(bad).expect_err(bad);
            assert!(error.contains("(TERM, KILL, INT, HUP)"), "{error}");
        }
    }
}
