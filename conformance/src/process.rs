//! Starting and ending child processes: each child gets its own process group, so the
//! whole tree it starts can be signalled at once and nothing outlives a scenario.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A fully resolved program invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub env_remove: Vec<String>,
    pub env_clear: bool,
    pub cwd: PathBuf,
}

impl Invocation {
    /// A tokio command in its own process group with piped stdio and kill-on-drop.
    pub fn command(&self) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.program);
        cmd.args(&self.args)
            .current_dir(&self.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        default_signal_dispositions(&mut cmd);
        if self.env_clear {
            cmd.env_clear();
        }
        for k in &self.env_remove {
            cmd.env_remove(k);
        }
        cmd.envs(&self.env);
        cmd
    }

    /// The command line for messages.
    pub fn display(&self) -> String {
        let mut s = self.program.display().to_string();
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

/// Starts the child with every signal at its default disposition. An ignored signal stays
/// ignored across `exec`, so under `nohup` or a CI shell that ignores `SIGHUP` or `SIGINT` a
/// server would inherit that and a scenario sending it the signal would judge the invoking
/// shell, not the server. (The signal mask and `SIGPIPE` are reset by the standard library.)
#[allow(unsafe_code)]
fn default_signal_dispositions(cmd: &mut tokio::process::Command) {
    // SAFETY: the closure runs in the forked child before `exec`.
    unsafe {
        cmd.pre_exec(|| {
            reset_signal_dispositions();
            Ok(())
        });
    }
}

/// Puts every signal (1 to 64: the standard and real-time signals of Linux) back to its
/// default disposition; the C library refuses SIGKILL, SIGSTOP and its own internal signals,
/// which is fine. Public so every program that starts a server for a verdict (the reference
/// servers' tests too) starts it the same way.
///
/// # Safety
/// Call only in a forked child before `exec` (a `pre_exec` closure): it changes the
/// dispositions of the whole process. It calls only `signal` (sigaction), which is
/// async-signal-safe, allocates nothing and takes no lock.
#[allow(unsafe_code)]
pub unsafe fn reset_signal_dispositions() {
    for sig in 1..=64 {
        // SAFETY: SIG_DFL installs no handler, so no Rust code runs on delivery.
        unsafe {
            nix::libc::signal(sig, nix::libc::SIG_DFL);
        }
    }
}

/// What a finished command produced.
#[derive(Debug, Clone)]
pub struct Output {
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

impl Output {
    /// `{exit, signal, stdout, stderr, timed_out}` as a step observes it.
    pub fn observation(&self) -> serde_json::Value {
        use std::os::unix::process::ExitStatusExt;
        serde_json::json!({
            "exit": self.status.and_then(|s| s.code()),
            "signal": self.status.and_then(|s| s.signal()),
            "stdout": String::from_utf8_lossy(&self.stdout),
            "stderr": String::from_utf8_lossy(&self.stderr),
            "timed_out": self.timed_out,
        })
    }
}

/// Runs a command to completion with `stdin` written and both streams drained concurrently;
/// past `timeout` its process group is killed and `timed_out` is set.
pub async fn run_to_end(
    inv: &Invocation,
    stdin: Option<&str>,
    timeout: Duration,
) -> std::io::Result<Output> {
    let mut child = inv.command().spawn().map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot start {}: {e}", inv.program.display()),
        )
    })?;
    let pid = child.id();
    let input = stdin.unwrap_or("").as_bytes().to_vec();
    let mut child_in = child.stdin.take();
    let writer = tokio::spawn(async move {
        if let Some(w) = child_in.as_mut() {
            // A child that exits without reading is not an error of ours.
            let _ = w.write_all(&input).await;
            let _ = w.shutdown().await;
        }
    });
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let waited = tokio::time::timeout(timeout, async {
        let (o, e, s) = tokio::join!(out, err, child.wait());
        (o, e, s)
    })
    .await;
    writer.abort();
    match waited {
        Ok((stdout, stderr, status)) => {
            if let Some(pid) = pid {
                kill_group(pid, Signal::SIGKILL);
            }
            Ok(Output {
                status: Some(status?),
                stdout,
                stderr,
                timed_out: false,
            })
        }
        Err(_) => {
            if let Some(pid) = pid {
                kill_group(pid, Signal::SIGKILL);
            }
            let status = child.wait().await.ok();
            Ok(Output {
                status,
                stdout: Vec::new(),
                stderr: Vec::new(),
                timed_out: true,
            })
        }
    }
}

async fn drain<R: tokio::io::AsyncRead + Unpin>(reader: Option<R>) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Some(mut r) = reader {
        let _ = r.read_to_end(&mut buf).await;
    }
    buf
}

/// Signals a whole process group; a group that is already gone is fine.
pub fn kill_group(pgid: u32, signal: Signal) {
    if let Ok(raw) = i32::try_from(pgid) {
        let _ = killpg(Pid::from_raw(raw), signal);
    }
}

/// Resolves a target's command: with a `/` it is a path (relative to `base`); without, it is
/// looked up in `extra_dirs` first, then on `PATH`.
pub fn resolve_program(command: &str, base: &Path, extra_dirs: &[PathBuf]) -> Option<PathBuf> {
    if command.contains('/') {
        let p = Path::new(command);
        return Some(if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.join(p)
        });
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    extra_dirs
        .iter()
        .cloned()
        .chain(std::env::split_paths(&path_var))
        .map(|d| d.join(command))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// True when `pid` names a live process that is not a zombie.
pub fn is_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    if nix::sys::signal::kill(Pid::from_raw(pid), None).is_err() {
        return false;
    }
    // A zombie still answers kill(0); it is dead for our purposes.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
            .unwrap_or(true),
        Err(_) => !Path::new("/proc/self").exists(),
    }
}

/// Seconds since boot now (Linux `/proc/uptime`); `None` elsewhere.
pub fn uptime_secs() -> Option<f64> {
    std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// True when `pid` is a live process that started at or after `since` (seconds since boot,
/// from [`uptime_secs`]): a pid recorded by a scenario is only signalled if it cannot be an
/// older, unrelated process that happens to reuse the number. Without `/proc`, liveness alone.
pub fn started_since(pid: i32, since: Option<f64>) -> bool {
    if !is_alive(pid) {
        return false;
    }
    let Some(since) = since else {
        return true;
    };
    // Field 22 of /proc/PID/stat is the start time in clock ticks (USER_HZ, 100 on Linux).
    let start = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let (_, rest) = stat.rsplit_once(')')?;
            rest.split_whitespace().nth(19)?.parse::<f64>().ok()
        });
    match start {
        Some(ticks) => ticks / 100.0 + 1.0 >= since,
        None => false,
    }
}

/// A `/proc/PID/status` field in KiB (`VmRSS`, `VmHWM`); `None` off Linux or once gone.
pub fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}
