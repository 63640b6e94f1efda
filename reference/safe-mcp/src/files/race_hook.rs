//! A failpoint for tests only (issue "mutation testing"): runs a hook just before each rename
//! of `perform` (files/mod.rs), after every check and after the journal's pending record, so
//! a test can make a destination appear in the window between the existence check and the
//! rename. That check hides the race from every ordinary test; only this window shows whether
//! the rename itself refuses to overwrite (`RENAME_NOREPLACE`). Per thread, and absent from
//! non-test builds.

use std::cell::RefCell;

use super::journal::Move;

type Hook = Box<dyn Fn(&Move)>;

thread_local! {
    static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
}

/// Removes the hook when dropped (also when a test panics).
pub(super) struct Armed(());

impl Drop for Armed {
    fn drop(&mut self) {
        HOOK.with(|h| h.borrow_mut().take());
    }
}

/// Runs `hook` (on this thread) before each rename of `perform` until the guard drops.
pub(super) fn arm(hook: impl Fn(&Move) + 'static) -> Armed {
    HOOK.with(|h| *h.borrow_mut() = Some(Box::new(hook)));
    Armed(())
}

pub(super) fn fire(m: &Move) {
    HOOK.with(|h| {
        if let Some(hook) = h.borrow().as_ref() {
            hook(m);
        }
    });
}
