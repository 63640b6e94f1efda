//! Lines for stdout from the commands that list and print (`list`, `targets`, `schema`,
//! `validate`, `bench`), written so that a reader who stops reading (`mcp-conformance list |
//! head -1`) ends nothing badly: `println!` panics on a broken pipe; here the rest of the output
//! is dropped and the command finishes with the status it would have had. Any other failure to
//! write stdout is one line on stderr and exit 1, never a panic.
//!
//! SIGPIPE is not restored to its default instead: this process writes to the servers it
//! judges, and one that exits must never kill the run.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write met a closed pipe: nothing more is written.
static READER_GONE: AtomicBool = AtomicBool::new(false);

/// Writes `args` (plus a newline when `newline`) to stdout; see the module's documentation.
pub(crate) fn write(args: fmt::Arguments<'_>, newline: bool) {
    if READER_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    let written = out
        .write_fmt(args)
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            READER_GONE.store(true, Ordering::Relaxed);
        }
        Err(e) => {
            eprintln!("mcp-conformance: cannot write to stdout: {e}");
            std::process::exit(1);
        }
    }
}

/// `println!` for stdout that a reader may stop reading.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::say::write(format_args!($($arg)*), true)
    };
}

/// `print!` for stdout that a reader may stop reading.
macro_rules! say_part {
    ($($arg:tt)*) => {
        $crate::say::write(format_args!($($arg)*), false)
    };
}

pub(crate) use {say, say_part};
