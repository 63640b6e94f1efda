//! Spawning a tree of descendant probes and waiting until every one is set up.
//!
//! Each probe hands its children the write end of a readiness pipe (by fd number, via the
//! hidden `--ready-fd` flag); a child writes one byte once it and its whole subtree are set
//! up and recorded in the pidfile. So when a probe continues, its pidfile is complete:
//! synchronised on a condition, never on a guessed sleep.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, FdFlag, fcntl};

/// How long a probe waits for its subtree to report ready before going on without it.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// The shape and behaviour of the descendant tree, passed down unchanged except `depth`.
#[derive(Debug, Clone)]
pub struct TreeSpec {
    /// Children per probe.
    pub children: u32,
    /// Levels below this probe.
    pub depth: u32,
    /// Where each descendant appends its pid.
    pub pidfile: Option<PathBuf>,
    /// Descendants call setsid().
    pub new_session: bool,
    /// Descendants ignore SIGTERM.
    pub ignore_sigterm: bool,
    /// How long descendants live, in milliseconds.
    pub sleep_ms: u64,
    /// Descendants get /dev/null for stdin, stdout and stderr.
    pub detach_stdio: bool,
}

impl TreeSpec {
    /// The arguments after `probe` that make a child continue this tree one level down.
    pub fn child_args(&self, ready_fd: i32) -> Vec<String> {
        let mut args = vec![
            "--ready-fd".to_owned(),
            ready_fd.to_string(),
            "--children".to_owned(),
            self.children.to_string(),
            "--depth".to_owned(),
            self.depth.saturating_sub(1).to_string(),
            "--descendant-sleep-ms".to_owned(),
            self.sleep_ms.to_string(),
        ];
        if let Some(pidfile) = &self.pidfile {
            args.push("--pidfile".to_owned());
            args.push(pidfile.to_string_lossy().into_owned());
        }
        for (set, flag) in [
            (self.new_session, "--new-session"),
            (self.ignore_sigterm, "--ignore-sigterm"),
            (self.detach_stdio, "--detach-stdio"),
        ] {
            if set {
                args.push(flag.to_owned());
            }
        }
        args
    }
}

/// Spawns this probe's children and returns once all of them (and their subtrees) are
/// ready, or after [`READY_TIMEOUT`]; problems are returned as one stderr-ready line.
pub fn spawn_children(spec: &TreeSpec) -> Result<(), String> {
    spawn(spec, spec.children)
}

/// Spawns `count` children that continue the tree of `spec` one level down, and waits for
/// them as [`spawn_children`] does.
pub fn spawn(spec: &TreeSpec, count: u32) -> Result<(), String> {
    if count == 0 || spec.depth == 0 {
        return Ok(());
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let (read_end, write_end) = nix::unistd::pipe().map_err(|e| format!("pipe: {e}"))?;
    set_cloexec(&read_end, true)?;
    // Only the children may inherit the write end; this probe drops its copy after spawning.
    set_cloexec(&write_end, false)?;
    let args = spec.child_args(write_end.as_raw_fd());
    let mut spawned = 0;
    let mut errors = Vec::new();
    for _ in 0..count {
        let mut command = Command::new(&exe);
        command.arg("probe").args(&args);
        if spec.detach_stdio {
            command
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
        }
        match command.spawn() {
            // Not waited for: descendants outlive this probe on purpose.
            Ok(_child) => spawned += 1,
            Err(e) => errors.push(format!("cannot spawn a descendant: {e}")),
        }
    }
    drop(write_end);
    let ready = wait_ready(read_end, spawned, READY_TIMEOUT);
    if ready < spawned {
        errors.push(format!(
            "only {ready} of {spawned} descendants reported ready"
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn set_cloexec(fd: &OwnedFd, cloexec: bool) -> Result<(), String> {
    let flags = if cloexec {
        FdFlag::FD_CLOEXEC
    } else {
        FdFlag::empty()
    };
    fcntl(fd, FcntlArg::F_SETFD(flags))
        .map(drop)
        .map_err(|e| format!("fcntl: {e}"))
}

/// Counts readiness bytes until `expected` arrived, every writer is gone, or `timeout`.
fn wait_ready(read_end: OwnedFd, expected: usize, timeout: Duration) -> usize {
    if expected == 0 {
        return 0;
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut pipe = File::from(read_end);
        let mut buf = [0u8; 64];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(n).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let deadline = Instant::now() + timeout;
    let mut ready = 0;
    while ready < expected {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(n) => ready += n,
            Err(_) => break,
        }
    }
    ready.min(expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_args_carry_the_tree_one_level_down() {
        let spec = TreeSpec {
            children: 2,
            depth: 3,
            pidfile: Some(PathBuf::from("/tmp/p")),
            new_session: true,
            ignore_sigterm: false,
            sleep_ms: 500,
            detach_stdio: true,
        };
        assert_eq!(
            spec.child_args(9).join(" "),
            "--ready-fd 9 --children 2 --depth 2 --descendant-sleep-ms 500 \
             --pidfile /tmp/p --new-session --detach-stdio"
        );
    }

    #[test]
    fn readiness_counts_bytes_and_stops_at_eof() {
        let (read_end, write_end) = nix::unistd::pipe().expect("pipe");
        let mut writer = File::from(write_end);
        std::io::Write::write_all(&mut writer, b"ab").expect("write");
        drop(writer);
        assert_eq!(wait_ready(read_end, 3, Duration::from_secs(10)), 2);
    }
}
