//! The report files a run was asked for (`--json`, `--junit`, `--markdown`), written when it
//! finishes, each whole or not at all.

use super::{Reporter, RunEvent, RunReport, json, junit, markdown};
use std::io;
use std::path::{Path, PathBuf};

/// Writes each requested report file from the run's last event.
#[derive(Debug, Default)]
pub struct ReportFiles {
    /// `--json FILE`.
    pub json: Option<PathBuf>,
    /// `--junit FILE`.
    pub junit: Option<PathBuf>,
    /// `--markdown FILE`.
    pub markdown: Option<PathBuf>,
    failures: Vec<String>,
}

impl ReportFiles {
    /// The files to write; `None` for a format not asked for.
    pub fn new(json: Option<PathBuf>, junit: Option<PathBuf>, markdown: Option<PathBuf>) -> Self {
        ReportFiles {
            json,
            junit,
            markdown,
            failures: Vec::new(),
        }
    }

    /// One line per file that could not be written (`cannot write PATH: reason`).
    pub fn failures(&self) -> &[String] {
        &self.failures
    }

    fn write_all(&mut self, report: &RunReport) -> io::Result<()> {
        type Writer = fn(&RunReport, &Path) -> io::Result<()>;
        let wanted: [(Option<&PathBuf>, Writer); 3] = [
            (self.json.as_ref(), json::write_json),
            (self.junit.as_ref(), junit::write_junit),
            (self.markdown.as_ref(), markdown::write_markdown),
        ];
        let mut first = None;
        let mut failures = Vec::new();
        for (path, write) in wanted {
            if let Some(path) = path
                && let Err(e) = write(report, path)
            {
                failures.push(format!("cannot write {}: {e}", path.display()));
                first.get_or_insert(e);
            }
        }
        self.failures.extend(failures);
        first.map_or(Ok(()), Err)
    }
}

impl Reporter for ReportFiles {
    fn on_event(&mut self, event: RunEvent<'_>) -> io::Result<()> {
        match event {
            RunEvent::RunFinished { report } => self.write_all(report),
            _ => Ok(()),
        }
    }
}
