//! Process-tree containment of one execution: a new session for the child, tracking of its
//! descendants through `/proc`, and the kill-and-reap cleanup that runs on every path.
//!
//! The tree of an execution is: its main child; every process in the main child's session
//! or process group; every recorded descendant (pid + start time) and the session/group it
//! leads; and, transitively, every child of any of those. Orphans reparented to us (the
//! child subreaper) belong to an execution by the same rules. Orphans no live execution
//! claims are killed only when no other execution is live, so concurrent executions never
//! touch each other's trees.

use std::collections::{HashMap, HashSet};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::procfs::{self, ProcInfo};
use super::registry;

/// How long the drop guard (panic or early-return path) spends killing the tree.
const GUARD_CLEANUP: Duration = Duration::from_secs(2);
/// Pause between kill passes while waiting for the tree to disappear.
const KILL_POLL: Duration = Duration::from_millis(2);

/// Makes the child a session (and process group) leader and ties it to our lifetime, so a
/// whole tree can be signalled through its group and the child dies with us (Linux).
///
/// The death signal fires when the spawning *thread* ends: spawn from a thread that lives as
/// long as the child should (`run` blocks its thread until the child is reaped; mcp-hub
/// spawns its upstreams from the main thread). Shared by every reference server that starts
/// children, so the one `unsafe` block stays here: `pre_exec` runs in the forked child.
pub fn contain_child(cmd: &mut Command) {
    contain_child_with(cmd, Signal::SIGKILL);
}

/// [`contain_child`] with another parent-death signal: the execution supervisor gets one it
/// can catch, so it can kill its tree before it exits.
#[allow(unsafe_code)]
pub(crate) fn contain_child_with(cmd: &mut Command, death_signal: Signal) {
    #[cfg(not(target_os = "linux"))]
    let _ = death_signal;
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe operations are allowed. It calls signal (sigaction), setsid,
    // prctl(PR_SET_PDEATHSIG) and getppid (plain system calls, no allocation, no locks) and
    // builds an io::Error from a raw errno, which does not allocate.
    unsafe {
        cmd.pre_exec(move || {
            default_signal_dispositions();
            nix::unistd::setsid()?;
            #[cfg(target_os = "linux")]
            nix::sys::prctl::set_pdeathsig(death_signal)?;
            // We died before the death signal was armed: do not run orphaned.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(nix::libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Puts every signal back to its default disposition, in the forked child before exec. An
/// ignored signal stays ignored across exec: a server started under `nohup`, or in the
/// background of a non-interactive shell (SIGINT, SIGQUIT ignored), would otherwise hand that
/// to every command and upstream it starts, so `kill -INT` would not end them. Signals with a
/// handler are reset by exec anyway; the signal mask is the spawner's to empty.
///
/// # Safety
/// Call only between fork and exec (it changes the process's dispositions).
#[allow(unsafe_code)]
unsafe fn default_signal_dispositions() {
    // 1 to 64: the standard and real-time signals of Linux; the C library refuses its own
    // internal ones and SIGKILL/SIGSTOP, which is fine.
    for sig in 1..=64 {
        // SAFETY: SIG_DFL installs no handler; `signal` is async-signal-safe.
        unsafe {
            nix::libc::signal(sig, nix::libc::SIG_DFL);
        }
    }
}

/// The containment of one execution: registered before spawn, cleaned up exactly once,
/// by [`Containment::finish`] or, on any early exit or panic, by `Drop`.
#[derive(Debug)]
pub(crate) struct Containment {
    id: u64,
    main: Option<i32>,
    main_reaped: bool,
    me: i32,
    my_sid: i32,
    /// Non-main processes of the tree that were signalled while alive (pid, start time).
    signalled: HashSet<(i32, u64)>,
    done: bool,
}

impl Containment {
    /// Registers a new execution that is about to spawn its main child.
    pub fn register() -> Self {
        let me = nix::unistd::getpid();
        Self {
            id: registry::lock().register(),
            main: None,
            main_reaped: false,
            me: me.as_raw(),
            my_sid: nix::unistd::getsid(None).unwrap_or(me).as_raw(),
            signalled: HashSet::new(),
            done: false,
        }
    }

    /// Records the spawned main child.
    pub fn set_main(&mut self, pid: i32) {
        self.main = Some(pid);
        registry::lock().set_main(self.id, pid);
    }

    /// Walks `/proc` and remembers the current tree, so descendants that later leave the
    /// session and get orphaned can still be attributed to this execution.
    pub fn record(&mut self) {
        let procs = procfs::snapshot();
        let mut reg = registry::lock();
        let members = self.members(&procs, &reg, false);
        self.store(&mut reg, &procs, &members);
    }

    /// Sends `signals` to the whole tree once (the group, the main child, every member).
    /// Returns how many processes of the tree are still there (zombies that are someone
    /// else's child included; zombies of ours are reaped here; the main child counts only
    /// while it has not exited).
    pub fn signal_tree(&mut self, signals: &[Signal]) -> usize {
        let procs = procfs::snapshot();
        let members = {
            let mut reg = registry::lock();
            let unattributed = !reg.others_live(self.id);
            let members = self.members(&procs, &reg, unattributed);
            self.store(&mut reg, &procs, &members);
            // Signal while holding the lock: no execution can spawn (and reuse a pid of a
            // process that just died) while unattributed orphans are being killed.
            for &sig in signals {
                self.signal_all(&members, sig);
            }
            members
        };
        let mut remaining = 0;
        for p in &members {
            if Some(p.pid) == self.main {
                remaining += usize::from(!p.zombie);
            } else if !(p.zombie && p.ppid == self.me && reap(p.pid)) {
                remaining += 1;
            }
        }
        remaining
    }

    /// SIGKILLs the tree repeatedly until nothing of it is left (the main child may remain
    /// as our zombie) or `deadline` passes. Returns true when the tree is gone.
    pub fn kill_until_gone(&mut self, deadline: Instant) -> bool {
        loop {
            if self.signal_tree(&[Signal::SIGKILL]) == 0 {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            std::thread::sleep(KILL_POLL.min(deadline - now));
        }
    }

    /// Reaps the main child (by its pid only), polling until `deadline`. `None` when it is
    /// still running at the deadline or its status was taken by someone else.
    pub fn reap_main(&mut self, deadline: Instant) -> Option<WaitStatus> {
        let pid = Pid::from_raw(self.main?);
        if self.main_reaped {
            return None;
        }
        loop {
            match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
                Ok(status @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => {
                    self.main_reaped = true;
                    return Some(status);
                }
                Err(Errno::EINTR) => continue,
                Err(_) => {
                    self.main_reaped = true;
                    return None;
                }
                Ok(_) => {}
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            std::thread::sleep(KILL_POLL.min(deadline - now));
        }
    }

    /// Processes of the tree (beyond the main child) that were signalled at cleanup.
    pub fn descendants_killed(&self) -> usize {
        self.signalled.len()
    }

    /// Ends the execution: it no longer claims orphans and the guard does nothing more.
    pub fn finish(&mut self) {
        if !self.done {
            self.done = true;
            registry::lock().remove(self.id);
        }
    }

    fn members(
        &self,
        procs: &[ProcInfo],
        reg: &registry::Registry,
        unattributed: bool,
    ) -> Vec<ProcInfo> {
        let empty = HashMap::new();
        let scope = Scope {
            main: self.main,
            recorded: reg.recorded(self.id).unwrap_or(&empty),
            me: self.me,
            my_sid: self.my_sid,
            unattributed,
        };
        tree_members(procs, &scope, |pid| reg.is_other_main(self.id, pid))
    }

    fn store(&self, reg: &mut registry::Registry, procs: &[ProcInfo], members: &[ProcInfo]) {
        // An empty table means /proc could not be read: keep what was recorded.
        if procs.is_empty() {
            return;
        }
        let main = self.main;
        let keep = members.iter().filter(|p| Some(p.pid) != main);
        reg.set_recorded(self.id, keep.map(|p| (p.pid, p.starttime)));
    }

    fn signal_all(&mut self, members: &[ProcInfo], sig: Signal) {
        if let Some(main) = self.main.filter(|_| !self.main_reaped) {
            // The main child is unreaped, so its pid (= its group id) cannot be reused.
            let _ = killpg(Pid::from_raw(main), sig);
            let _ = kill(Pid::from_raw(main), sig);
        }
        for p in members {
            if p.zombie || Some(p.pid) == self.main {
                continue;
            }
            // Guard against pid reuse since the snapshot.
            if procfs::stat(p.pid).is_some_and(|now| now.starttime == p.starttime)
                && kill(Pid::from_raw(p.pid), sig).is_ok()
            {
                self.signalled.insert((p.pid, p.starttime));
            }
        }
    }
}

impl Drop for Containment {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let deadline = Instant::now() + GUARD_CLEANUP;
        self.kill_until_gone(deadline);
        let _ = self.reap_main(deadline);
        self.finish();
    }
}

/// Reaps `pid` if it is our exited child; true when it was reaped (or is gone already).
fn reap(pid: i32) -> bool {
    loop {
        match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => return false,
            Err(Errno::EINTR) => {}
            Ok(_) | Err(_) => return true,
        }
    }
}

/// What one execution claims, for [`tree_members`].
pub(crate) struct Scope<'a> {
    pub main: Option<i32>,
    pub recorded: &'a HashMap<i32, u64>,
    pub me: i32,
    pub my_sid: i32,
    /// Also claim orphans (our children outside our own session) nobody else claims.
    pub unattributed: bool,
}

/// The processes of `procs` that belong to the execution described by `scope` (see the
/// module documentation). `is_other_main` names main children of other live executions,
/// which are never included.
pub(crate) fn tree_members(
    procs: &[ProcInfo],
    scope: &Scope<'_>,
    is_other_main: impl Fn(i32) -> bool,
) -> Vec<ProcInfo> {
    let recorded_alive = |p: &ProcInfo| scope.recorded.get(&p.pid) == Some(&p.starttime);
    // Session and group ids that are certainly ours: the main child's (unreaped, so its
    // number is reserved) and those of recorded descendants that still exist.
    let mut leaders: HashSet<i32> = procs
        .iter()
        .filter(|p| recorded_alive(p))
        .map(|p| p.pid)
        .collect();
    leaders.extend(scope.main);
    let excluded = |p: &ProcInfo| p.pid == scope.me || p.pid <= 1 || is_other_main(p.pid);
    let is_root = |p: &ProcInfo| {
        Some(p.pid) == scope.main
            || recorded_alive(p)
            || leaders.contains(&p.session)
            || leaders.contains(&p.pgrp)
            || (scope.unattributed && p.ppid == scope.me && p.session != scope.my_sid)
    };
    let mut children: HashMap<i32, Vec<usize>> = HashMap::new();
    for (i, p) in procs.iter().enumerate() {
        children.entry(p.ppid).or_default().push(i);
    }
    let mut seen: HashSet<i32> = HashSet::new();
    let mut stack: Vec<usize> = (0..procs.len())
        .filter(|&i| !excluded(&procs[i]) && is_root(&procs[i]))
        .collect();
    let mut out = Vec::new();
    while let Some(i) = stack.pop() {
        let p = procs[i];
        if excluded(&p) || !seen.insert(p.pid) {
            continue;
        }
        out.push(p);
        if let Some(kids) = children.get(&p.pid) {
            stack.extend(kids.iter().copied());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(pid: i32, ppid: i32, pgrp: i32, session: i32) -> ProcInfo {
        ProcInfo {
            pid,
            ppid,
            pgrp,
            session,
            starttime: pid as u64 * 10,
            zombie: false,
        }
    }

    #[test]
    fn tree_follows_sessions_records_and_children_but_not_other_executions() {
        let me = 100;
        let procs = [
            p(100, 1, 100, 100),   // us
            p(200, 100, 200, 200), // our main child
            p(201, 200, 200, 200), // its child
            p(202, 100, 202, 202), // setsid'd, orphaned, recorded earlier
            p(203, 202, 202, 202), // its child
            p(204, 100, 200, 200), // orphan still in our session
            p(300, 100, 300, 300), // other execution's main child
            p(301, 300, 300, 300),
            p(400, 100, 400, 400), // unattributed orphan
            p(500, 100, 100, 100), // a plain child of ours (our session)
        ];
        let recorded: HashMap<i32, u64> = [(202, 2020), (999, 1)].into();
        let mut scope = Scope {
            main: Some(200),
            recorded: &recorded,
            me,
            my_sid: 100,
            unattributed: false,
        };
        let pids = |scope: &Scope<'_>| {
            let mut v: Vec<i32> = tree_members(&procs, scope, |pid| pid == 300)
                .iter()
                .map(|p| p.pid)
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(pids(&scope), [200, 201, 202, 203, 204]);
        scope.unattributed = true;
        assert_eq!(pids(&scope), [200, 201, 202, 203, 204, 400]);
        // A reused pid (different start time) is not ours.
        let stale: HashMap<i32, u64> = [(202, 7)].into();
        scope.recorded = &stale;
        scope.unattributed = false;
        assert_eq!(pids(&scope), [200, 201, 204]);
    }

    /// Each way into the tree is enough on its own, and each exclusion wins on its own.
    #[test]
    fn every_root_rule_suffices_alone_and_every_exclusion_wins() {
        let procs = [
            p(200, 100, 200, 200), // the main child
            p(205, 100, 100, 100), // recorded, but in our own group and session
            p(206, 100, 206, 200), // in the main child's session only
            p(207, 100, 200, 207), // in the main child's group only
            p(1, 0, 200, 200),     // init, whatever its ids say
            p(100, 1, 200, 200),   // ourselves, whatever our ids say
            p(300, 100, 200, 200), // another execution's main child in the main's group
            p(400, 100, 400, 400), // an orphan: only claimed as unattributed
            p(500, 100, 100, 100), // a plain child in our session: never claimed
        ];
        let recorded: HashMap<i32, u64> = [(205, 2050)].into();
        let scope = Scope {
            main: Some(200),
            recorded: &recorded,
            me: 100,
            my_sid: 100,
            unattributed: true,
        };
        let mut pids: Vec<i32> = tree_members(&procs, &scope, |pid| pid == 300)
            .iter()
            .map(|p| p.pid)
            .collect();
        pids.sort_unstable();
        assert_eq!(pids, [200, 205, 206, 207, 400]);
        // Without the unattributed rule (which alone would claim every child of ours in
        // another session), each rule must still suffice alone.
        let scope = Scope {
            unattributed: false,
            ..scope
        };
        let mut pids: Vec<i32> = tree_members(&procs, &scope, |pid| pid == 300)
            .iter()
            .map(|p| p.pid)
            .collect();
        pids.sort_unstable();
        assert_eq!(pids, [200, 205, 206, 207]);
    }
}
