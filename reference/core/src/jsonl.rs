//! Whole lines in append-only JSON Lines files (the audit log, the safe-mcp trail, the
//! approvals' decided ledger): a line is written whole or not at all, and two lines are never
//! glued into one.
//!
//! Why: a short write (a full disk, `RLIMIT_FSIZE`, a quota) leaves part of a line at the end
//! of the file, and the next append would continue it, one unreadable line holding two
//! events. Here a failed write is cut back to the file's previous length before the error is
//! returned, and an append that finds an unterminated last line (a crash mid-write, before the
//! write was synced and acknowledged) first ends it: a complete JSON value gets its newline,
//! a fragment is cut off.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// The longest tail searched for the end of the last complete line.
const TAIL_SEARCH: u64 = 1024 * 1024;

/// Where an unterminated last line of `file` starts, if the file ends with one (`None`: empty,
/// or ending with a newline). The file must be open for reading.
pub fn torn_tail(file: &mut File) -> io::Result<Option<(u64, Vec<u8>)>> {
    let len = file.metadata()?.len();
    let from = len.saturating_sub(TAIL_SEARCH);
    file.seek(SeekFrom::Start(from))?;
    let mut tail = Vec::new();
    file.take(len - from).read_to_end(&mut tail)?;
    match tail.last() {
        None | Some(b'\n') => Ok(None),
        Some(_) => match tail.iter().rposition(|b| *b == b'\n') {
            Some(i) => Ok(Some((from + i as u64 + 1, tail.split_off(i + 1)))),
            None if from == 0 => Ok(Some((0, tail))),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the file ends with an unterminated line longer than {TAIL_SEARCH} bytes"),
            )),
        },
    }
}

/// Appends `line` (which ends with a newline) to `file` (open for reading and appending, the
/// caller holding the file's lock) whole or not at all, then syncs it. On a failed write the
/// file is cut back to its previous length and the write's error returned.
pub fn append_line(file: &mut File, line: &[u8]) -> io::Result<()> {
    let mut out = Vec::with_capacity(line.len() + 1);
    if let Some((start, fragment)) = torn_tail(file)? {
        if serde_json::from_slice::<serde_json::Value>(&fragment).is_ok() {
            out.push(b'\n');
        } else {
            file.set_len(start)?;
        }
    }
    out.extend_from_slice(line);
    let before = file.metadata()?.len();
    if let Err(e) = file.write_all(&out).and_then(|()| file.sync_data()) {
        // Cut back what a short write left; if even that fails, the next append cuts it.
        let _ = file.set_len(before).and_then(|()| file.sync_data());
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    fn open(path: &std::path::Path) -> File {
        OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .expect("open")
    }

    #[test]
    fn a_fragment_is_cut_and_a_complete_last_value_is_ended() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n{\"b\":").expect("write");
        append_line(&mut open(&path), b"{\"c\":3}\n").expect("append");
        assert_eq!(
            std::fs::read(&path).expect("read"),
            b"{\"a\":1}\n{\"c\":3}\n"
        );
        std::fs::write(&path, b"{\"a\":1}").expect("write");
        append_line(&mut open(&path), b"{\"c\":3}\n").expect("append");
        assert_eq!(
            std::fs::read(&path).expect("read"),
            b"{\"a\":1}\n{\"c\":3}\n"
        );
        std::fs::write(&path, b"half").expect("write");
        append_line(&mut open(&path), b"{\"c\":3}\n").expect("append");
        assert_eq!(std::fs::read(&path).expect("read"), b"{\"c\":3}\n");
    }
}
