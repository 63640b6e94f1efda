//! The history tools: `undo_last_action` and `redo_last_action`, and recording new work in
//! the journal (which clears the redo stack). Kept apart from the planning and moving tools.

use super::*;
use journal::{Locked, Pending, Transition};

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
    /// folders of a plan; `move_file` makes none) and records it as new work (clearing the
    /// redo stack), all under the journal lock, as a write-ahead [`transition`]: the intent
    /// is journaled before the first rename, the outcome before the answer.
    pub(super) fn record_new(
        &self,
        root: &OwnedFd,
        tool: &str,
        action: Action,
        create_parents: bool,
    ) -> OperationResult {
        let mut guard = match self.lock_recovered(root, tool) {
            Ok(g) => g,
            Err(r) => return *r,
        };
        let moved: Vec<Value> = action
            .moves
            .iter()
            .map(|m| json!({ "src": m.src, "dest": m.dest }))
            .collect();
        let n = moved.len();
        let renames = action.moves.clone();
        if let Err(r) = transition(
            &mut guard,
            root,
            tool,
            Transition::New,
            action,
            renames,
            create_parents,
        ) {
            return *r;
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
        let mut guard = match self.lock_recovered(&root, tool) {
            Ok(g) => g,
            Err(r) => return *r,
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
        let which = if undo {
            Transition::Undo
        } else {
            Transition::Redo
        };
        if let Err(r) = transition(
            &mut guard,
            &root,
            tool,
            which,
            action.clone(),
            moves.clone(),
            true,
        ) {
            return *r;
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

impl Organizer {
    /// Takes the journal lock and, if a previous process died in the middle of a
    /// transition, recovers it first (see [`recover_locked`]).
    pub(super) fn lock_recovered(
        &self,
        root: &OwnedFd,
        tool: &str,
    ) -> Result<Locked, Box<OperationResult>> {
        let mut guard = self
            .journal
            .lock()
            .map_err(|e| Box::new(OperationResult::refused(Code::OperationFailed, tool, e)))?;
        recover_locked(root, &mut guard)
            .map_err(|e| Box::new(OperationResult::refused(Code::OperationFailed, tool, e)))?;
        Ok(guard)
    }

    /// Recovers an interrupted transition, if any, at start: best effort (a failure is
    /// logged, and retried by the next call that takes the journal lock).
    pub fn recover(&self) {
        let result = self
            .open_root()
            .map_err(|e| e.to_string())
            .and_then(|root| {
                let mut guard = self.journal.lock()?;
                recover_locked(&root, &mut guard)
            });
        if let Err(e) = result {
            tracing::error!("journal recovery: {e}");
        }
    }
}

/// Runs one transition as a write-ahead sequence, under the journal lock held in `guard`:
///
/// 1. the intent (`pending`: the action and every rename) is written and fsync'd;
/// 2. the renames are made (on a failure, those made are reversed);
/// 3. the outcome (stacks updated, `pending` cleared) is written in one atomic replace.
///
/// A kill -9 anywhere leaves either no `pending` (nothing moved, or everything recorded)
/// or a `pending` record that [`recover_locked`] rolls back.
fn transition(
    guard: &mut Locked,
    root: &OwnedFd,
    tool: &str,
    which: Transition,
    action: Action,
    renames: Vec<Move>,
    create_parents: bool,
) -> Result<(), Box<OperationResult>> {
    guard.state.pending = Some(Pending {
        transition: which,
        action: action.clone(),
        renames: renames.clone(),
    });
    if let Err(e) = guard.save() {
        guard.state.pending = None;
        return Err(Box::new(OperationResult::refused(
            Code::OperationFailed,
            tool,
            format!("{e}; nothing was moved"),
        )));
    }
    if let Err(e) = perform(root, &renames, create_parents) {
        guard.state.pending = None;
        if let Err(save) = guard.save() {
            // The record stays pending on disk; the next call's recovery finds every file
            // at its origin and drops it.
            tracing::error!("cannot clear the pending journal record: {save}");
        }
        return Err(Box::new(fs_refusal(tool, &e)));
    }
    let before = guard.state.clone();
    guard.state.pending = None;
    match which {
        Transition::New => {
            guard.state.undo.push(action);
            guard.state.redo.clear();
        }
        Transition::Undo => {
            guard.state.undo.pop();
            guard.state.redo.push(action);
        }
        Transition::Redo => {
            guard.state.redo.pop();
            guard.state.undo.push(action);
        }
    }
    if let Err(e) = guard.save() {
        // A move the journal cannot hold could not be undone: take it back.
        roll_back(root, &renames);
        guard.state = before;
        guard.state.pending = None;
        if let Err(save) = guard.save() {
            tracing::error!("cannot clear the pending journal record: {save}");
        }
        return Err(Box::new(OperationResult::refused(
            Code::OperationFailed,
            tool,
            format!("{e}; the move(s) were reversed, nothing changed"),
        )));
    }
    Ok(())
}

/// Recovery of an interrupted transition. The rule is **roll back to the start**: the
/// transition is undone as if it had never begun.
///
/// The renames of the `pending` record are walked newest first; for each `src -> dest`:
/// - a file at `dest` and nothing at `src`: the rename happened, it is reversed
///   (`dest -> src`, never overwriting);
/// - a file at `src` and nothing at `dest`: the rename never happened, nothing to do;
/// - anything else (both present, both absent, not a file): not ours to decide, left alone
///   and logged.
///
/// Then the record is dropped and the stacks are left as they were, so they again describe
/// the files: for new work nothing is recorded and nothing moved; for an undo the action is
/// still on the undo stack with its files back where it left them; for a redo the action is
/// still on the redo stack with its files back where undo put them. Folders a plan made
/// stay (nothing is ever deleted). A system error while
/// renaming keeps the record (nothing is saved) and is returned, so the next call retries.
pub(super) fn recover_locked(root: &OwnedFd, guard: &mut Locked) -> Result<(), String> {
    let Some(pending) = guard.state.pending.clone() else {
        return Ok(());
    };
    for m in pending.renames.iter().rev() {
        let at_dest = is_file(root, &m.dest)?;
        let at_src = is_present(root, &m.src)?;
        match (at_dest, at_src) {
            (true, false) => match fsops::rename_noreplace(root, &m.dest, &m.src, true) {
                Ok(()) => {}
                Err(FsError::Io(e)) => {
                    return Err(format!(
                        "recovery cannot move {} back to {}: {e}; will retry",
                        m.dest, m.src
                    ));
                }
                Err(e) => tracing::error!(
                    "recovery cannot move {} back to {}: {e}; left alone",
                    m.dest,
                    m.src
                ),
            },
            (false, true) => {}
            _ => tracing::error!(
                "recovery: {} -> {} is in neither state; left alone",
                m.src,
                m.dest
            ),
        }
    }
    guard.state.pending = None;
    guard
        .save()
        .map_err(|e| format!("recovery rolled the files back but {e}; will retry"))?;
    tracing::warn!(
        "recovered an interrupted {:?} of {} {} ({} rename(s) rolled back)",
        pending.transition,
        pending.action.kind,
        pending.action.id,
        pending.renames.len()
    );
    Ok(())
}

fn is_file(root: &OwnedFd, rel: &str) -> Result<bool, String> {
    match fsops::lstat(root, rel) {
        Ok(Some(s)) => Ok(fsops::kind_of(&s) == Kind::File),
        Ok(None) | Err(FsError::NotFound(_)) | Err(FsError::NotADirectory(_)) => Ok(false),
        Err(e) => Err(format!("recovery cannot inspect {rel}: {e}")),
    }
}

fn is_present(root: &OwnedFd, rel: &str) -> Result<bool, String> {
    match fsops::lstat(root, rel) {
        // A symlink or file in place of a parent folder counts as something in the way.
        Ok(Some(_)) | Err(FsError::NotADirectory(_)) => Ok(true),
        Ok(None) | Err(FsError::NotFound(_)) => Ok(false),
        Err(e) => Err(format!("recovery cannot inspect {rel}: {e}")),
    }
}
