//! `mcp-conformance relay -- CMD [ARGS...]`: the floor for anything that sits between a client
//! and a server.
//!
//! It starts the command and copies bytes both ways, client to server and server to client,
//! without reading them: no framing, no parsing, no buffering beyond one `read`. A hub (or any
//! proxy) costs at least what this costs, one more process and two more pipe hops than a
//! direct call, so `bench --relay` measures a target behind it beside the target itself and
//! whatever is compared with them: what a proxy spends above the relay is its own work.
//!
//! The server's stderr is inherited. When the client closes stdin, the server's stdin is
//! closed; when the server's stdout ends, the relay waits for it and exits with its status
//! (128 + N for a signal).

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitCode, Stdio};

/// Options of `mcp-conformance relay`.
#[derive(Debug, Clone, clap::Args)]
pub struct RelayArgs {
    /// The server command and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Exit status when the command cannot be started.
const EXIT_SPAWN: u8 = 2;
/// Bytes moved per read.
const CHUNK: usize = 64 * 1024;

/// Runs the relay until the server's stdout ends; returns its exit status.
pub fn run(args: RelayArgs) -> ExitCode {
    let Some((program, rest)) = args.command.split_first() else {
        eprintln!("mcp-conformance relay: give the server command after --");
        return ExitCode::from(EXIT_SPAWN);
    };
    let spawned = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            eprintln!("mcp-conformance relay: cannot start {program}: {e}");
            return ExitCode::from(EXIT_SPAWN);
        }
    };
    let (Some(to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
        eprintln!("mcp-conformance relay: the server's pipes are missing");
        return ExitCode::from(EXIT_SPAWN);
    };
    // Raw descriptors: std's stdout is line-buffered, which would hold back a partial line.
    let (client_in, client_out) = match (raw(io::stdin().as_fd()), raw(io::stdout().as_fd())) {
        (Ok(input), Ok(output)) => (input, output),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("mcp-conformance relay: cannot use stdin/stdout: {e}");
            return ExitCode::from(EXIT_SPAWN);
        }
    };
    // Client to server on its own thread; dropping `to_server` at the client's EOF closes the
    // server's stdin. It may still be blocked reading stdin when the server ends: the process
    // exits without joining it.
    std::thread::spawn(move || {
        let _ = copy(client_in, to_server);
    });
    let _ = copy(from_server, client_out);
    match child.wait() {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            (None, Some(signal)) => ExitCode::from(u8::try_from(128 + signal).unwrap_or(1)),
            (None, None) => ExitCode::from(1),
        },
        Err(e) => {
            eprintln!("mcp-conformance relay: cannot wait for the server: {e}");
            ExitCode::from(1)
        }
    }
}

/// A file of our own on a copy of `fd`, read and written without any buffer.
fn raw(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<File> {
    fd.try_clone_to_owned().map(File::from)
}

/// Copies `from` to `to` chunk by chunk, each chunk written as soon as it is read, until the
/// end of `from` or an error on either side.
fn copy(mut from: impl Read, mut to: impl Write) -> io::Result<()> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_moves_every_byte_in_order() {
        let input: Vec<u8> = (0..=255u8).cycle().take(3 * CHUNK + 7).collect();
        let mut output = Vec::new();
        copy(&input[..], &mut output).expect("copy");
        assert_eq!(output, input);
    }
}
