//! What a person watching the run sees: the human report on stdout as scenarios finish, and
//! on a terminal a progress line on stderr, both fed by the run's events.

use super::block::display_line;
use super::human::HumanReporter;
use super::{Reporter, RunEvent};
use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};

/// Widest progress line drawn; a line that wraps could not be rewritten in place with `\r`.
const PROGRESS_WIDTH: usize = 79;

/// The human report and the progress line as one consumer, so the line is erased before a
/// scenario's report line is printed and drawn again after it.
pub struct Console<W: Write> {
    human: HumanReporter<W>,
    progress_wanted: bool,
    progress: Option<Progress>,
}

impl<W: Write> Console<W> {
    /// `progress`: draw the progress line (it draws only when stderr is a terminal anyway).
    pub fn new(human: HumanReporter<W>, progress: bool) -> Self {
        Console {
            human,
            progress_wanted: progress,
            progress: None,
        }
    }

    /// Gives the human report back, e.g. the captured bytes in a test.
    pub fn into_human(self) -> HumanReporter<W> {
        self.human
    }
}

impl<W: Write> Reporter for Console<W> {
    fn on_event(&mut self, event: RunEvent<'_>) -> io::Result<()> {
        match event {
            RunEvent::RunStarted { scenarios, .. } => {
                let width = scenarios.iter().map(|n| n.chars().count()).max();
                self.human.widen_names(width.unwrap_or(0));
                self.progress = Some(Progress::new(scenarios.len(), self.progress_wanted));
                Ok(())
            }
            RunEvent::ScenarioStarted { name, .. } => {
                if let Some(p) = &mut self.progress {
                    p.started(name);
                }
                Ok(())
            }
            RunEvent::StepFinished { .. } => Ok(()),
            RunEvent::ScenarioFinished { result, .. } => {
                if let Some(p) = &mut self.progress {
                    p.finished(&result.name);
                }
                let written = self.human.scenario_finished(result);
                if let Some(p) = &mut self.progress {
                    p.redraw();
                }
                written
            }
            RunEvent::RunFinished { report } => {
                if let Some(p) = &mut self.progress {
                    p.clear();
                }
                self.human.finish(report)
            }
        }
    }
}

/// A one-line `[done/total] running: <names>` indicator on stderr, rewritten in place with
/// `\r`, so an interactive user sees what a slow run is waiting on. It draws only when stderr
/// is a terminal (CI logs and pipes stay clean) and never touches stdout, where the report
/// goes. Call [`Progress::finished`] (which erases the line) before printing the scenario's
/// report line, then [`Progress::redraw`] or the next [`Progress::started`].
pub struct Progress {
    total: usize,
    done: usize,
    running: Vec<String>,
    active: bool,
    drawn: usize,
}

impl Progress {
    /// Creates an indicator for `total` scenarios. It is active only when `enabled` (e.g. not
    /// `--quiet`) and stderr is a terminal; an inactive one keeps count but writes nothing.
    pub fn new(total: usize, enabled: bool) -> Self {
        Progress {
            total,
            done: 0,
            running: Vec::new(),
            active: enabled && io::stderr().is_terminal(),
            drawn: 0,
        }
    }

    /// Whether the indicator writes anything at all.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Records that `name` started and redraws the line.
    pub fn started(&mut self, name: &str) {
        self.running.push(name.to_owned());
        self.redraw();
    }

    /// Records that `name` finished and erases the line, so the caller can print the
    /// scenario's report line on a clean terminal line.
    pub fn finished(&mut self, name: &str) {
        if let Some(i) = self.running.iter().position(|n| n == name) {
            self.running.remove(i);
        }
        self.done = self.done.saturating_add(1);
        self.clear();
    }

    /// Erases the indicator (before other output, and when the run ends).
    pub fn clear(&mut self) {
        if self.drawn > 0 {
            let blank = format!("\r{}\r", " ".repeat(self.drawn));
            self.drawn = 0;
            write_stderr(&blank);
        }
    }

    /// Draws the current state again, e.g. after the caller printed a scenario line.
    pub fn redraw(&mut self) {
        if !self.active {
            return;
        }
        let line = self.line();
        let width = line.chars().count();
        // Spaces erase whatever a longer previous line left behind.
        let pad = " ".repeat(self.drawn.saturating_sub(width));
        write_stderr(&format!("\r{line}{pad}"));
        self.drawn = width.max(self.drawn);
    }

    /// The text of the indicator, cut to [`PROGRESS_WIDTH`] characters.
    fn line(&self) -> String {
        let mut line = format!("[{}/{}]", self.done, self.total);
        if !self.running.is_empty() {
            let names: Vec<String> = self
                .running
                .iter()
                .map(|n| display_line(n, PROGRESS_WIDTH))
                .collect();
            let _ = write!(line, " running: {}", names.join(", "));
        }
        if line.chars().count() > PROGRESS_WIDTH {
            line = line.chars().take(PROGRESS_WIDTH - 1).collect();
            line.push('…');
        }
        line
    }
}

impl Drop for Progress {
    /// Never leaves a stale indicator behind on the terminal.
    fn drop(&mut self) {
        self.clear();
    }
}

fn write_stderr(text: &str) {
    // Progress is cosmetic: a failed write to stderr must not fail the run.
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_counts_and_stays_narrow() {
        let mut p = Progress::new(3, false);
        assert!(!p.is_active());
        assert_eq!(p.line(), "[0/3]");
        p.started("alpha");
        p.started("beta");
        assert_eq!(p.line(), "[0/3] running: alpha, beta");
        p.finished("alpha");
        assert_eq!(p.line(), "[1/3] running: beta");
        p.started(&"x".repeat(500));
        let line = p.line();
        assert_eq!(line.chars().count(), PROGRESS_WIDTH);
        assert!(line.ends_with('…'));
        p.started("evil\u{1b}[2J\r");
        assert!(!p.line().contains('\u{1b}'));
        p.clear();
    }
}
