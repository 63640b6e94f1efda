//! The undo/redo journal: one JSON document, replaced atomically under a cross-process lock
//! (a sibling `.lock` file), so it survives a restart and is never half-written.

use std::path::PathBuf;

use mcp_safety_core::fsio::{DEFAULT_LOCK_TIMEOUT, FileLock, atomic_write};
use serde::{Deserialize, Serialize};

/// One file move, workspace-relative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// Where the file was.
    pub src: String,
    /// Where it went.
    pub dest: String,
}

/// One undoable action: a `move` (move_file) or a `plan` (apply_plan).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    /// `"move"` or `"plan"`.
    pub kind: String,
    /// The plan id, or a random id for a move.
    pub id: String,
    /// The moves, in the order they were made.
    pub moves: Vec<Move>,
}

/// The journal's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Done actions, newest last.
    pub undo: Vec<Action>,
    /// Undone actions, newest last.
    pub redo: Vec<Action>,
}

/// The journal file.
#[derive(Debug, Clone)]
pub struct Journal {
    path: PathBuf,
}

/// The journal, loaded and locked; [`Locked::save`] writes it back.
#[derive(Debug)]
pub struct Locked {
    _lock: FileLock,
    path: PathBuf,
    /// The content.
    pub state: State,
}

impl Journal {
    /// A journal at `path` (created on first save).
    pub fn new(path: PathBuf) -> Self {
        Journal { path }
    }

    /// Takes the lock and reads the journal (absent means empty; unreadable is an error, so
    /// a damaged journal is never silently replaced).
    pub fn lock(&self) -> Result<Locked, String> {
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let lock = FileLock::acquire(&PathBuf::from(lock_path), DEFAULT_LOCK_TIMEOUT)
            .map_err(|e| format!("cannot lock the journal: {e}"))?;
        let state = match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("the journal is damaged and was left alone: {e}"))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::default(),
            Err(e) => return Err(format!("cannot read the journal: {e}")),
        };
        Ok(Locked {
            _lock: lock,
            path: self.path.clone(),
            state,
        })
    }
}

impl Locked {
    /// Writes the content back atomically.
    pub fn save(&self) -> Result<(), String> {
        let bytes = serde_json::to_vec_pretty(&self.state).map_err(|e| e.to_string())?;
        atomic_write(&self.path, &bytes).map_err(|e| format!("cannot write the journal: {e}"))
    }
}
