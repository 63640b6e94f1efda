//! The history tools: `undo_last_action` and `redo_last_action`, and recording new work in
//! the journal (which clears the redo stack). Kept apart from the planning and moving tools.

use super::*;

impl Organizer {
    /// `undo_last_action`: reverses the newest move or applied plan as one action.
    pub fn undo_last_action(&self) -> OperationResult {
        self.serve("undo_last_action", json!({}), || {
            self.step("undo_last_action", true)
        })
    }

    /// `redo_last_action`: reapplies the newest undone action.
    pub fn redo_last_action(&self) -> OperationResult {
        self.serve("redo_last_action", json!({}), || {
            self.step("redo_last_action", false)
        })
    }

    // ----- internals -----

    /// Performs `action`'s moves (making missing folders only with `create_parents`: category
    /// folders of a plan; `move_file` makes none) and records it as new work (clearing the redo stack), all
    /// under the journal lock. The journal is written before the answer.
    pub(super) fn record_new(
        &self,
        root: &OwnedFd,
        tool: &str,
        action: Action,
        create_parents: bool,
    ) -> OperationResult {
        let mut guard = match self.journal.lock() {
            Ok(g) => g,
            Err(e) => return OperationResult::refused(Code::OperationFailed, tool, e),
        };
        if let Err(e) = perform(root, &action.moves, create_parents) {
            return fs_refusal(tool, &e);
        }
        let moved: Vec<Value> = action
            .moves
            .iter()
            .map(|m| json!({ "src": m.src, "dest": m.dest }))
            .collect();
        let n = moved.len();
        let done = action.moves.clone();
        guard.state.undo.push(action);
        guard.state.redo.clear();
        if let Err(e) = guard.save() {
            // A move the journal cannot hold could not be undone: take it back.
            roll_back(root, &done);
            return OperationResult::refused(
                Code::OperationFailed,
                tool,
                format!("{e}; the move(s) were reversed, nothing changed"),
            );
        }
        let mut r = OperationResult::new(true, Code::Ok, tool, format!("moved {n} file(s)"));
        r.detail.insert("moved".into(), json!(n));
        r.detail.insert("moves".into(), Value::Array(moved));
        r
    }

    fn step(&self, tool: &str, undo: bool) -> OperationResult {
        let _op = self.op.lock();
        let root = match self.open_root() {
            Ok(r) => r,
            Err(e) => return fs_refusal(tool, &e),
        };
        let mut guard = match self.journal.lock() {
            Ok(g) => g,
            Err(e) => return OperationResult::refused(Code::OperationFailed, tool, e),
        };
        let stack = if undo {
            &guard.state.undo
        } else {
            &guard.state.redo
        };
        let Some(action) = stack.last().cloned() else {
            return OperationResult::refused(
                Code::InvalidRequest,
                tool,
                if undo {
                    "nothing to undo"
                } else {
                    "nothing to redo"
                },
            );
        };
        let moves: Vec<Move> = if undo {
            action
                .moves
                .iter()
                .rev()
                .map(|m| Move {
                    src: m.dest.clone(),
                    dest: m.src.clone(),
                })
                .collect()
        } else {
            action.moves.clone()
        };
        // Check everything first: all sources present as files, no destination occupied.
        for m in &moves {
            match fsops::lstat(&root, &m.src) {
                Ok(Some(s)) if fsops::kind_of(&s) == Kind::File => {}
                Ok(_) => {
                    return OperationResult::refused(
                        Code::Conflict,
                        tool,
                        format!("{} is no longer where the action left it", m.src),
                    );
                }
                Err(e) => return fs_refusal(tool, &e),
            }
            match fsops::lstat(&root, &m.dest) {
                Ok(None) => {}
                Ok(Some(_)) => {
                    return OperationResult::refused(
                        Code::Conflict,
                        tool,
                        format!("{} is occupied; nothing is overwritten", m.dest),
                    );
                }
                Err(FsError::NotFound(_)) => {}
                Err(e) => return fs_refusal(tool, &e),
            }
        }
        if let Err(e) = perform(&root, &moves, true) {
            return fs_refusal(tool, &e);
        }
        if undo {
            guard.state.undo.pop();
            guard.state.redo.push(action.clone());
        } else {
            guard.state.redo.pop();
            guard.state.undo.push(action.clone());
        }
        if let Err(e) = guard.save() {
            roll_back(&root, &moves);
            return OperationResult::refused(
                Code::OperationFailed,
                tool,
                format!("{e}; the move(s) were reversed, nothing changed"),
            );
        }
        let shown: Vec<Value> = moves
            .iter()
            .map(|m| json!({ "src": m.src, "dest": m.dest }))
            .collect();
        let mut r = OperationResult::new(
            true,
            Code::Ok,
            tool,
            format!(
                "{} {} ({} file(s))",
                if undo { "undid" } else { "redid" },
                action.kind,
                moves.len()
            ),
        );
        r.detail.insert("kind".into(), json!(action.kind));
        r.detail.insert("id".into(), json!(action.id));
        r.detail.insert("moved".into(), json!(moves.len()));
        r.detail.insert("moves".into(), Value::Array(shown));
        r
    }
}
