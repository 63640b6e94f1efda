//! The per-execution supervisor: a copy of the server's own executable that sits between
//! the server and the real command, so a process tree never outlives the server.
//!
//! The server's own cleanup (timeouts, kill-and-reap) only runs while the server runs. When
//! the server dies abruptly (SIGKILL, a crash, or a parent that SIGKILLs it), the direct
//! child dies with it through `PR_SET_PDEATHSIG`, but the rest of the tree (setsid'd,
//! TERM-ignoring, plain descendants) would be reparented to init and survive. The
//! supervisor closes that gap (Linux):
//!
//! - it is the main child the server spawns (session leader, same stdio, cwd and
//!   environment the command gets), started with a *catchable* parent-death signal;
//! - it is a child subreaper, so every orphaned descendant of the command is reparented to
//!   it and stays findable;
//! - it runs the command in its session and exits with the command's exact status
//!   (re-raising the same signal when the command was killed), so the server reports the
//!   same exit code, signal and timeout as when it ran the command directly;
//! - when its parent dies it SIGKILLs every process of its session, its group and every
//!   descendant, reaps them, and exits.
//!
//! Servers enable it with [`dispatch_if_requested`] (first thing in `main`) and
//! [`enable`]. When it is not enabled (libraries, tests) commands are spawned directly.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{SigSet, SigmaskHow, Signal, kill, sigprocmask};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::procfs;

/// The hidden first argument that turns a server binary into a supervisor.
pub const MARKER: &str = "--mcp-exec-supervisor";

/// Exit code of the supervisor when it could not start the command (the reason goes to the
/// server over the status pipe, so this code is never reported as the command's).
const SPAWN_FAILED_EXIT: i32 = 127;
/// How long the supervisor sleeps between checks that its parent is still there.
const PARENT_POLL: Duration = Duration::from_millis(200);
/// Bound on killing the tree after the parent died (SIGKILL cannot be refused, so this is
/// only reached for processes stuck in the kernel).
const KILL_BOUND: Duration = Duration::from_secs(10);

static EXE: OnceLock<PathBuf> = OnceLock::new();

/// Turns on the supervisor for every later execution of this process: resolves the current
/// executable once, now, so a binary replaced on disk later is not what runs.
///
/// Exists so only server binaries, whose `main` calls [`dispatch_if_requested`], spawn
/// themselves; a library user or a test binary keeps the direct spawn.
///
/// Linux only: elsewhere there is neither a parent-death signal nor a subreaper, so this
/// does nothing and commands keep the direct spawn.
pub fn enable() -> std::io::Result<()> {
    if cfg!(target_os = "linux") && EXE.get().is_none() {
        let exe = std::env::current_exe()?;
        let _ = EXE.set(exe);
    }
    Ok(())
}

/// The executable to spawn as supervisor, when [`enable`] was called.
pub(crate) fn executable() -> Option<&'static PathBuf> {
    EXE.get()
}

/// Call first thing in the `main` of every server binary: when the process was started as a
/// supervisor (the first argument is [`MARKER`]), runs the supervisor and never returns;
/// otherwise returns at once.
///
/// Exists because the supervisor is the server's own executable (nothing extra to install
/// or find on PATH).
pub fn dispatch_if_requested() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(MARKER)) {
        return;
    }
    let args: Vec<OsString> = args.collect();
    let code = supervise(&args);
    std::process::exit(code);
}

/// The arguments the server passes to the supervisor (after [`MARKER`]).
pub(crate) fn supervisor_args(
    status_fd: RawFd,
    parent: i32,
    program: &OsStr,
    argv0: &OsStr,
    args: &[String],
) -> Vec<OsString> {
    let mut out = vec![
        OsString::from(MARKER),
        OsString::from(status_fd.to_string()),
        OsString::from(parent.to_string()),
        program.to_owned(),
        argv0.to_owned(),
    ];
    out.extend(args.iter().map(OsString::from));
    out
}

/// Runs the supervisor; returns the exit code when it does not re-raise a signal.
fn supervise(args: &[OsString]) -> i32 {
    let (Some(fd), Some(parent), Some(program), Some(argv0)) = (
        args.first().and_then(|a| a.to_str()?.parse::<RawFd>().ok()),
        args.get(1).and_then(|a| a.to_str()?.parse::<i32>().ok()),
        args.get(2),
        args.get(3),
    ) else {
        eprintln!("{MARKER}: bad arguments");
        return SPAWN_FAILED_EXIT;
    };
    let status = own_status_fd(fd);
    let me = std::process::id() as i32;
    #[cfg(target_os = "linux")]
    if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
        report(status, e as i32);
        return SPAWN_FAILED_EXIT;
    }
    // Every signal we wait for is blocked first, so none is lost between the checks.
    let mut waited = SigSet::empty();
    for sig in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGQUIT,
    ] {
        waited.add(sig);
    }
    if let Err(e) = sigprocmask(SigmaskHow::SIG_BLOCK, Some(&waited), None) {
        report(status, e as i32);
        return SPAWN_FAILED_EXIT;
    }
    if parent_gone(parent) {
        kill_tree(me);
        return SPAWN_FAILED_EXIT;
    }
    let mut cmd = Command::new(program);
    cmd.arg0(argv0).args(&args[4..]);
    die_with_parent(&mut cmd);
    // The child's mask is emptied in `die_with_parent`; std resets SIGPIPE (ignored here) to
    // the default, and every other disposition was reset when the server started us
    // (`contain_child_with`): the command starts with normal signal handling.
    let child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            report(status, e.raw_os_error().unwrap_or(nix::libc::EIO));
            return SPAWN_FAILED_EXIT;
        }
    };
    // Success: closing the status pipe tells the server the command runs.
    drop(status);
    let command = child.id() as i32;
    drop(child);
    loop {
        if parent_gone(parent) {
            kill_tree(me);
            return 137;
        }
        // Reap every exited child: orphans reparented to us, and the command.
        loop {
            match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::Exited(pid, code)) if pid.as_raw() == command => return code,
                Ok(WaitStatus::Signaled(pid, sig, _)) if pid.as_raw() == command => {
                    reraise(sig);
                    return 128 + sig as i32;
                }
                Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => break,
                Ok(_) | Err(Errno::EINTR) => {}
                Err(_) => break,
            }
        }
        wait_signal(&waited, PARENT_POLL);
    }
}

/// Takes ownership of the status pipe and keeps it from leaking into the command.
#[allow(unsafe_code)]
fn own_status_fd(fd: RawFd) -> Option<OwnedFd> {
    if fd < 3 {
        return None;
    }
    let flags = nix::fcntl::FdFlag::FD_CLOEXEC;
    nix::fcntl::fcntl(
        // SAFETY: borrowed only for this call; the fd number was checked above.
        unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) },
        nix::fcntl::FcntlArg::F_SETFD(flags),
    )
    .ok()?;
    // SAFETY: the server passed us this fd (its pipe's write end) for us alone.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Writes the errno of a failed start to the server.
fn report(status: Option<OwnedFd>, errno: i32) {
    if let Some(fd) = status {
        let _ = nix::unistd::write(&fd, &errno.to_le_bytes());
    }
}

/// True when the process that started us is no longer our parent (it died).
fn parent_gone(parent: i32) -> bool {
    nix::unistd::getppid().as_raw() != parent
}

/// Waits up to `timeout` for one of `set` (blocked) to be pending, and consumes it.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn wait_signal(set: &SigSet, timeout: Duration) {
    let ts = nix::libc::timespec {
        tv_sec: timeout.as_secs() as nix::libc::time_t,
        tv_nsec: timeout.subsec_nanos() as nix::libc::c_long,
    };
    let raw: &nix::libc::sigset_t = set.as_ref();
    // SAFETY: plain system call with valid pointers to a sigset and a timespec.
    unsafe {
        nix::libc::sigtimedwait(raw, std::ptr::null_mut(), &ts);
    }
}

#[cfg(not(target_os = "linux"))]
use super::off_linux::wait_signal;

/// The command starts with an empty signal mask and dies if we die (SIGKILL by the
/// server's cleanup included).
#[allow(unsafe_code)]
fn die_with_parent(cmd: &mut Command) {
    let parent = nix::unistd::getpid();
    // SAFETY: runs between fork and exec; sigprocmask, prctl and getppid are plain system
    // calls on stack data, and an
    // io::Error from a raw errno does not allocate.
    unsafe {
        cmd.pre_exec(move || {
            // We block the signals we wait for; std does not reset the mask for the child.
            sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None)?;
            #[cfg(target_os = "linux")]
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(nix::libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Ends this process with `sig`, as the command ended, so the server sees the same status.
#[allow(unsafe_code)]
fn reraise(sig: Signal) {
    // No core file of the supervisor for the command's crash.
    let zero = nix::libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain system calls with valid arguments.
    unsafe {
        nix::libc::setrlimit(nix::libc::RLIMIT_CORE, &zero);
        nix::libc::signal(sig as i32, nix::libc::SIG_DFL);
    }
    let mut one = SigSet::empty();
    one.add(sig);
    let _ = sigprocmask(SigmaskHow::SIG_UNBLOCK, Some(&one), None);
    let _ = nix::sys::signal::raise(sig);
}

/// SIGKILLs every process of our session, our group and every descendant, and reaps them,
/// until we have no child left (or [`KILL_BOUND`] passed).
fn kill_tree(me: i32) {
    let deadline = Instant::now() + KILL_BOUND;
    loop {
        let procs = procfs::snapshot();
        let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
        for p in &procs {
            children.entry(p.ppid).or_default().push(p.pid);
        }
        let mut targets: Vec<i32> = procs
            .iter()
            .filter(|p| p.pid != me && !p.zombie && (p.session == me || p.pgrp == me))
            .map(|p| p.pid)
            .collect();
        let mut stack = vec![me];
        while let Some(pid) = stack.pop() {
            for &kid in children.get(&pid).into_iter().flatten() {
                targets.push(kid);
                stack.push(kid);
            }
        }
        for pid in targets {
            if pid > 1 && pid != me {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        loop {
            match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
                Err(Errno::ECHILD) => {
                    // No child left; processes of the session that are not our descendants
                    // were signalled above and are someone else's to reap.
                    if !procs_remaining(me) {
                        return;
                    }
                    break;
                }
                Ok(WaitStatus::StillAlive) | Err(_) => break,
                Ok(_) => {}
            }
        }
        if Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// True while some live (non-zombie) process other than us is in our session or group.
fn procs_remaining(me: i32) -> bool {
    procfs::snapshot()
        .iter()
        .any(|p| p.pid != me && !p.zombie && (p.session == me || p.pgrp == me))
}
