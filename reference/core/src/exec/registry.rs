//! Process-wide state of containment: the child-subreaper flag and the registry of live
//! executions.
//!
//! The subreaper flag makes orphaned descendants (even ones that left the session with
//! `setsid`) our children instead of init's; the registry says which execution each of them
//! belongs to, so concurrent executions never kill each other's trees.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, OnceLock, PoisonError};

/// At most this many descendants are remembered per execution (a fork bomb cannot make the
/// registry grow without bound; the process group and sessions still cover the rest).
const MAX_RECORDED: usize = 65_536;

/// Linux: prctl(PR_SET_CHILD_SUBREAPER, 1) once for this process (idempotent); elsewhere
/// Ok(()). `run` calls it itself; servers may call it at startup.
///
/// Exists so descendants that escape the execution's session and get orphaned are reparented
/// to this process, where the cleanup can still find, kill and reap them.
pub fn enable_subreaper() -> std::io::Result<()> {
    static SUBREAPER: OnceLock<Result<(), i32>> = OnceLock::new();
    let result = SUBREAPER.get_or_init(set_subreaper);
    result.map_err(std::io::Error::from_raw_os_error)
}

#[cfg(target_os = "linux")]
fn set_subreaper() -> Result<(), i32> {
    nix::sys::prctl::set_child_subreaper(true).map_err(|e| e as i32)
}

#[cfg(not(target_os = "linux"))]
use super::off_linux::set_subreaper;

static TERMINATING: AtomicBool = AtomicBool::new(false);

/// Ends every live execution of this process now, and every later one at once: each
/// [`run`](super::run) kills and reaps its whole tree within about 100 ms and reports the
/// main child as killed by SIGKILL.
///
/// Exists for a server whose input closed: it must not wait for running commands, and its
/// pending answers still go out (the executions end, they are not abandoned).
pub fn terminate_all() {
    TERMINATING.store(true, Ordering::SeqCst);
}

/// True once [`terminate_all`] was called.
pub(crate) fn terminating() -> bool {
    TERMINATING.load(Ordering::SeqCst)
}

/// One live execution: its main child (once spawned) and the descendants seen so far,
/// each with its start time.
#[derive(Debug, Default)]
pub(crate) struct Entry {
    pub main: Option<i32>,
    pub recorded: HashMap<i32, u64>,
}

/// All live executions of this process, keyed by an internal id.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    next_id: u64,
    entries: HashMap<u64, Entry>,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(Mutex::default);

/// Locks the registry. A panic while it was held cannot leave it inconsistent (every update
/// is a single insert or remove), so poisoning is ignored.
pub(crate) fn lock() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Registry {
    /// Registers an execution that is about to spawn. Registering before the fork means the
    /// new child is never mistaken for an unattributed orphan by a concurrent cleanup.
    pub fn register(&mut self) -> u64 {
        self.next_id += 1;
        self.entries.insert(self.next_id, Entry::default());
        self.next_id
    }

    /// Records the main child of execution `id`.
    pub fn set_main(&mut self, id: u64, pid: i32) {
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.main = Some(pid);
        }
    }

    /// Forgets execution `id` (after its cleanup).
    pub fn remove(&mut self, id: u64) {
        self.entries.remove(&id);
    }

    /// The descendants recorded for `id`.
    pub fn recorded(&self, id: u64) -> Option<&HashMap<i32, u64>> {
        self.entries.get(&id).map(|e| &e.recorded)
    }

    /// Replaces the recorded descendants of `id` (bounded by [`MAX_RECORDED`]).
    pub fn set_recorded(&mut self, id: u64, recorded: impl Iterator<Item = (i32, u64)>) {
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.recorded = recorded.take(MAX_RECORDED).collect();
        }
    }

    /// True when some execution other than `id` is live (or about to spawn).
    pub fn others_live(&self, id: u64) -> bool {
        self.entries.keys().any(|&k| k != id)
    }

    /// True when `pid` is the main child of a live execution other than `id`.
    pub fn is_other_main(&self, id: u64, pid: i32) -> bool {
        self.entries
            .iter()
            .any(|(&k, e)| k != id && e.main == Some(pid))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn executions_know_each_other_only_while_live() {
        let mut reg = Registry::default();
        let a = reg.register();
        assert!(!reg.others_live(a), "alone");
        let b = reg.register();
        assert!(reg.others_live(a) && reg.others_live(b));
        reg.set_main(a, 100);
        reg.set_main(b, 200);
        assert!(reg.is_other_main(a, 200) && reg.is_other_main(b, 100));
        assert!(!reg.is_other_main(a, 100) && !reg.is_other_main(b, 200));
        assert!(!reg.is_other_main(a, 300));
        reg.remove(b);
        assert!(!reg.others_live(a));
        assert!(!reg.is_other_main(a, 200));
        // A removed execution is not brought back by a late update.
        reg.set_main(b, 300);
        reg.set_recorded(b, [(301, 1)].into_iter());
        assert!(!reg.others_live(a) && reg.recorded(b).is_none());
    }

    #[test]
    fn recorded_descendants_are_replaced_and_bounded() {
        let mut reg = Registry::default();
        let a = reg.register();
        reg.set_recorded(a, [(10, 1), (11, 2)].into_iter());
        reg.set_recorded(a, [(12, 3)].into_iter());
        assert_eq!(reg.recorded(a).unwrap(), &HashMap::from([(12, 3)]));
        reg.set_recorded(a, (0..100_000).map(|p| (p, 0)));
        assert_eq!(reg.recorded(a).unwrap().len(), MAX_RECORDED);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_becomes_a_child_subreaper() {
        enable_subreaper().unwrap();
        assert!(nix::sys::prctl::get_child_subreaper().unwrap());
    }
}
