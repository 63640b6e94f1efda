//! The orchestration of one contained execution (see [`run`]).

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::Signal;
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
use nix::unistd::Pid;

use super::contain::{Containment, contain_child, contain_child_with};
use super::drain::Drain;
use super::{ExecError, ExecResult, ExecSpec, Termination, enable_subreaper};
use super::{registry, supervisor};

/// Bound on killing the tree after the main child ended or the grace period passed.
const CLEANUP: Duration = Duration::from_secs(2);
/// Bound on draining the pipes once the tree is gone.
const DRAIN: Duration = Duration::from_secs(1);
/// The first walk of `/proc` comes early, to record descendants that leave quickly; the
/// interval then doubles up to [`WALK_INTERVAL`].
const FIRST_WALK: Duration = Duration::from_millis(10);
/// The tree is walked at this interval (at most) while the main child runs.
const WALK_INTERVAL: Duration = Duration::from_millis(100);

/// Blocking. Runs one contained execution: stdin /dev/null, stdout+stderr piped and drained
/// concurrently from the start, timeout, tree kill, reap; returns only when the main child is
/// reaped and no process of its tree is left alive (or the bounded cleanup deadline passed).
///
/// Exists so every external command (shell and git alike) goes through one path with the
/// same guarantees: verified identity, exact environment, bounded memory, bounded time
/// (timeout + grace + a few seconds of cleanup at most), and no process left behind.
pub fn run(spec: &ExecSpec) -> Result<ExecResult, ExecError> {
    validate(spec)?;
    enable_subreaper()
        .map_err(|e| ExecError::Internal(format!("cannot become a child subreaper: {e}")))?;
    let program = match &spec.identity {
        Some(identity) => {
            identity.verify().map_err(ExecError::Identity)?;
            identity.canonical_path.as_path()
        }
        None => spec.program.as_path(),
    };
    // With the supervisor (server binaries), the main child is our own executable, which
    // runs the command in its session and kills the whole tree if we die.
    let status_pipe = match supervisor::executable() {
        Some(_) => Some(
            cloexec_pipe()
                .map_err(|e| ExecError::Internal(format!("cannot create a pipe: {e}")))?,
        ),
        None => None,
    };
    let mut cmd = match (supervisor::executable(), &status_pipe) {
        (Some(exe), Some((_, write))) => {
            let mut cmd = Command::new(exe);
            cmd.args(supervisor::supervisor_args(
                write.as_raw_fd(),
                nix::unistd::getpid().as_raw(),
                program.as_os_str(),
                spec.program.as_os_str(),
                &spec.args,
            ));
            pass_fd(&mut cmd, write.as_raw_fd());
            contain_child_with(&mut cmd, Signal::SIGTERM);
            cmd
        }
        _ => {
            let mut cmd = Command::new(program);
            cmd.arg0(&spec.program).args(&spec.args);
            contain_child(&mut cmd);
            cmd
        }
    };
    cmd.env_clear()
        .envs(&spec.env)
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());

    let started = Instant::now();
    // Registered before the fork; from here on, `containment` cleans up on every path.
    let mut containment = Containment::register();
    let mut child = cmd.spawn().map_err(ExecError::Spawn)?;
    // A pid always fits in pid_t.
    let pid = child.id() as i32;
    containment.set_main(pid);
    if let Some((read, write)) = status_pipe {
        drop(write);
        if let Some(errno) = read_start_error(read) {
            // The supervisor could not start the command: the same error as a direct spawn.
            // The containment's guard kills and reaps the supervisor.
            return Err(ExecError::Spawn(std::io::Error::from_raw_os_error(errno)));
        }
    }
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(ExecError::Internal("child pipes missing".into()));
    };
    // The child is reaped by pid below, never through this handle.
    drop(child);
    let drain = Drain::start(stdout.into(), stderr.into(), spec.capture_limit)
        .map_err(|e| ExecError::Internal(format!("cannot start the output drain: {e}")))?;
    let exited = spawn_waiter(pid)
        .map_err(|e| ExecError::Internal(format!("cannot start the exit waiter: {e}")))?;

    let timed_out = supervise(&mut containment, &exited, started.checked_add(spec.timeout));
    if timed_out {
        containment.signal_tree(&[Signal::SIGTERM, Signal::SIGCONT]);
        // Returns as soon as the main child exits (or the waiter is gone).
        let _ = exited.recv_timeout(spec.grace);
    }
    let cleanup_deadline = Instant::now() + CLEANUP;
    containment.kill_until_gone(cleanup_deadline);
    let status = containment.reap_main(cleanup_deadline);
    let descendants_killed = containment.descendants_killed();
    containment.finish();

    let outcome = drain
        .finish(Instant::now() + DRAIN)
        .ok_or_else(|| ExecError::Internal("the output drain failed".into()))?;
    let termination = match (timed_out, status) {
        (true, _) => Termination::TimedOut,
        (false, Some(WaitStatus::Exited(_, code))) => Termination::Exited(code),
        (false, Some(WaitStatus::Signaled(_, signal, _))) => Termination::Signaled(signal as i32),
        (false, _) => {
            return Err(ExecError::Internal(
                "the exit status of the child was lost".into(),
            ));
        }
    };
    Ok(ExecResult {
        termination,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
        duration: started.elapsed(),
        descendants_killed,
        pipes_forced_closed: outcome.forced_closed,
    })
}

fn validate(spec: &ExecSpec) -> Result<(), ExecError> {
    let invalid = |what: &str| {
        Err(ExecError::Spawn(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what} must be an absolute path"),
        )))
    };
    if !spec.program.is_absolute() {
        return invalid("program");
    }
    if !spec.cwd.is_absolute() {
        return invalid("cwd");
    }
    Ok(())
}

/// Waits until the main child exits or `timeout_at` passes (true = timed out), walking the
/// tree at a fixed interval in between to record descendants.
fn supervise(
    containment: &mut Containment,
    exited: &Receiver<()>,
    timeout_at: Option<Instant>,
) -> bool {
    let started = Instant::now();
    let mut next_walk = started + FIRST_WALK;
    loop {
        let now = Instant::now();
        if registry::terminating() {
            // Not a timeout: the tree is killed, and the main child reports SIGKILL.
            return false;
        }
        if timeout_at.is_some_and(|at| now >= at) {
            // An exit that raced with the deadline still counts as an exit.
            return exited
                .try_recv()
                .is_err_and(|e| e == mpsc::TryRecvError::Empty);
        }
        let until = timeout_at.map_or(next_walk, |at| at.min(next_walk));
        match exited.recv_timeout(until.saturating_duration_since(now)) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return false,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if Instant::now() >= next_walk {
            containment.record();
            // Walk densely while the tree is young (descendants that leave the session
            // early are recorded before they can be orphaned), then at a fixed interval.
            let age = next_walk.saturating_duration_since(started);
            next_walk = Instant::now() + (age / 2).clamp(FIRST_WALK, WALK_INTERVAL);
        }
    }
}

/// A thread that blocks until the main child has exited, WITHOUT reaping it (`WNOWAIT`):
/// the zombie keeps its pid, and so its process-group id, reserved until the tree is
/// killed; the supervisor reaps it itself, by pid.
fn spawn_waiter(pid: i32) -> std::io::Result<Receiver<()>> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("exec-wait".into())
        .spawn(move || {
            let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT;
            while let Err(Errno::EINTR) = waitid(Id::Pid(Pid::from_raw(pid)), flags) {}
            let _ = tx.send(());
        })?;
    Ok(rx)
}

/// Keeps `fd` (close-on-exec here) open across the exec of the supervisor only, so no other
/// concurrently spawned child inherits it.
#[allow(unsafe_code)]
fn pass_fd(cmd: &mut Command, fd: RawFd) {
    // SAFETY: runs between fork and exec; fcntl is a plain system call.
    unsafe {
        cmd.pre_exec(move || {
            let borrowed = std::os::fd::BorrowedFd::borrow_raw(fd);
            nix::fcntl::fcntl(
                borrowed,
                nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::empty()),
            )?;
            Ok(())
        });
    }
}

/// Blocks until the supervisor closed its status pipe (the command runs: `None`) or wrote
/// the errno of a failed start.
fn read_start_error(read: OwnedFd) -> Option<i32> {
    let mut file = std::fs::File::from(read);
    let mut buf = [0u8; 4];
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    (got == buf.len()).then(|| i32::from_le_bytes(buf))
}

/// A pipe whose ends are close-on-exec from the start (no other child can inherit them).
#[cfg(target_os = "linux")]
fn cloexec_pipe() -> nix::Result<(OwnedFd, OwnedFd)> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
}

// The supervisor is Linux-only ([`supervisor::enable`] does nothing elsewhere).
#[cfg(not(target_os = "linux"))]
use super::off_linux::cloexec_pipe;
