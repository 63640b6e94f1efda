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

/// Which transition a [`Pending`] record announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transition {
    /// New work (`move_file`, `apply_plan`): the action will be pushed on the undo stack.
    New,
    /// `undo_last_action`: the newest undo entry will move to the redo stack.
    Undo,
    /// `redo_last_action`: the newest redo entry will move to the undo stack.
    Redo,
}

/// A write-ahead record: a transition whose renames may have started but whose outcome is
/// not yet in the stacks. It is written (and fsync'd) before the first rename and cleared
/// in the same atomic write that records the outcome; one found on load means the process
/// died in between, and recovery rolls every rename back (the rule is documented on
/// `history::recover_locked`; it runs at start and under the lock before every change).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// What was being done.
    pub transition: Transition,
    /// The action concerned (as it is, or will be, on its stack).
    pub action: Action,
    /// The renames, in the order they are performed (for an undo, the action's moves
    /// reversed and swapped).
    pub renames: Vec<Move>,
}

/// The journal's content.
///
/// Format: `{"undo": [...], "redo": [...]}` plus, only while a transition is under way,
/// `"pending": {...}`. A journal written before `pending` existed reads as having none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Done actions, newest last.
    pub undo: Vec<Action>,
    /// Undone actions, newest last.
    pub redo: Vec<Action>,
    /// The transition under way, if any (write-ahead record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Pending>,
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
