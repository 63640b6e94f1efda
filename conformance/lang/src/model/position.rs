//! Where a mistake is: positions in a scenario or target file and the errors that carry them,
//! so every problem reads `FILE:LINE:COL: message`. Apart from the rest of the model so the
//! step kinds can report at a position without importing the model that holds them.

use serde::Serialize;
use std::fmt;

/// A position in a scenario file, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

impl Position {
    /// The position a `serde_saphyr` location names, when it names one (line 0 is "unknown").
    pub fn of(loc: &serde_saphyr::Location) -> Option<Position> {
        (loc.line() > 0).then(|| Position {
            line: loc.line(),
            column: loc.column(),
        })
    }
}

/// A problem in a scenario or target file, with its position when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub file: String,
    pub position: Option<Position>,
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}:{}:{}: {}", self.file, p.line, p.column, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for FileError {}

/// An error without a position.
pub fn plain_error(file: &str, message: &str) -> FileError {
    FileError {
        file: file.to_string(),
        position: None,
        message: message.to_string(),
    }
}
