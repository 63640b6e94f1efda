//! Why an upstream could not be used, in the words its operator acts on: a command that is
//! not on `PATH` rather than `No such file or directory (os error 2)`, a process that exited
//! with its status and its last stderr line rather than the `Broken pipe` the hub saw when
//! it wrote to the dead process.

use std::fmt;
use std::io::ErrorKind;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use nix::sys::signal::Signal;

/// Longest stderr line quoted in a cause, in bytes; a longer one is cut (the whole line is
/// in the log, relayed on `mcp_hub::upstream_stderr`).
pub const MAX_QUOTED: usize = 300;

/// Why spawning `command` failed, as what to fix (the command, where it was looked for).
pub fn spawn_failure(command: &str, error: &std::io::Error) -> String {
    // Without a `/` the command is looked up on PATH (the child's, when its `env` sets one).
    let on_path = !command.contains('/');
    match error.kind() {
        ErrorKind::NotFound if on_path => format!("command `{command}` not found on PATH"),
        ErrorKind::NotFound => format!("command `{command}` not found"),
        ErrorKind::PermissionDenied => {
            format!("command `{command}` cannot be executed: permission denied")
        }
        _ => format!("command `{command}` cannot be started: {error}"),
    }
}

/// How an upstream process ended on its own, worded for a startup error (`exited with status
/// 2`, `was killed by signal 9 (SIGKILL)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit(pub ExitStatus);

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(code) = self.0.code() {
            return write!(f, "exited with status {code}");
        }
        match self.0.signal() {
            Some(number) => match Signal::try_from(number) {
                Ok(signal) => write!(f, "was killed by signal {number} ({signal})"),
                Err(_) => write!(f, "was killed by signal {number}"),
            },
            None => write!(f, "ended ({})", self.0),
        }
    }
}

/// `: <line>` for a last stderr line (cut to [`MAX_QUOTED`] bytes, so one chatty upstream
/// cannot make the error line unreadable), nothing without one.
pub fn quoted_tail(last_stderr: Option<&str>) -> String {
    let Some(line) = last_stderr.map(str::trim).filter(|l| !l.is_empty()) else {
        return String::new();
    };
    if line.len() <= MAX_QUOTED {
        return format!(": {line}");
    }
    let mut end = MAX_QUOTED;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!(": {}...", &line[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(kind: ErrorKind) -> std::io::Error {
        std::io::Error::from(kind)
    }

    #[test]
    fn spawn_failures_say_what_to_fix() {
        assert_eq!(
            spawn_failure("uvx", &io(ErrorKind::NotFound)),
            "command `uvx` not found on PATH"
        );
        assert_eq!(
            spawn_failure("./bin/server", &io(ErrorKind::NotFound)),
            "command `./bin/server` not found"
        );
        assert_eq!(
            spawn_failure("/etc/passwd", &io(ErrorKind::PermissionDenied)),
            "command `/etc/passwd` cannot be executed: permission denied"
        );
        assert_eq!(
            spawn_failure("x", &std::io::Error::other("no more processes")),
            "command `x` cannot be started: no more processes"
        );
    }

    #[test]
    fn exits_give_the_status_or_the_signal() {
        // A wait status: the exit code in the second byte, a signal in the low bits.
        assert_eq!(
            Exit(ExitStatus::from_raw(2 << 8)).to_string(),
            "exited with status 2"
        );
        assert_eq!(
            Exit(ExitStatus::from_raw(9)).to_string(),
            "was killed by signal 9 (SIGKILL)"
        );
    }

    #[test]
    fn long_stderr_lines_are_cut_on_a_character_boundary() {
        assert_eq!(quoted_tail(None), "");
        assert_eq!(quoted_tail(Some("  ")), "");
        assert_eq!(quoted_tail(Some("boom\r")), ": boom");
        let long = "é".repeat(MAX_QUOTED);
        let cut = quoted_tail(Some(&long));
        assert!(cut.ends_with("..."), "{cut}");
        assert_eq!(cut.len(), 2 + MAX_QUOTED + 3);
    }
}
