//! Reading the process table from `/proc` (Linux), for tracking execution trees.
//!
//! Only `/proc/PID/stat` is read: parent, process group, session, start time (to guard
//! against pid reuse) and whether the process is a zombie. Processes that vanish while the
//! table is read are skipped. Elsewhere the table is empty, and containment falls back to
//! the process group alone.

use std::io::Read;

/// One process as seen in a snapshot of the process table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcInfo {
    pub pid: i32,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// Field 22 of `stat`: start time in clock ticks since boot; with `pid` it names one
    /// process even when the number is reused later.
    pub starttime: u64,
    /// Exited but not yet reaped (state `Z`, or `X` while being torn down).
    pub zombie: bool,
}

/// Every process currently visible in `/proc`.
#[cfg(target_os = "linux")]
pub(crate) fn snapshot() -> Vec<ProcInfo> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut buf = String::with_capacity(512);
    dir.filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| read_stat(pid, &mut buf))
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub(crate) use super::off_linux::snapshot;

/// The current state of one process, if it exists.
pub(crate) fn stat(pid: i32) -> Option<ProcInfo> {
    let mut buf = String::with_capacity(512);
    read_stat(pid, &mut buf)
}

fn read_stat(pid: i32, buf: &mut String) -> Option<ProcInfo> {
    buf.clear();
    let mut file = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
    file.read_to_string(buf).ok()?;
    parse_stat(buf)
}

/// Parses one `stat` line. The command name may contain spaces and parentheses, so fields
/// are counted from the last `)`.
pub(crate) fn parse_stat(line: &str) -> Option<ProcInfo> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let pid = line.get(..open)?.trim().parse().ok()?;
    // Fields after the name start at field 3 (state).
    let mut fields = line.get(close + 1..)?.split_ascii_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    // Field 22 is the 16th after `session` (field 6).
    let starttime = fields.nth(15)?.parse().ok()?;
    Some(ProcInfo {
        pid,
        ppid,
        pgrp,
        session,
        starttime,
        zombie: matches!(state, "Z" | "X" | "x"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_with_spaces_and_parens() {
        let line = "4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 \
                    987654 1000 10 18446744073709551615 0 0";
        let p = parse_stat(line).unwrap();
        assert_eq!(
            (p.pid, p.ppid, p.pgrp, p.session, p.starttime, p.zombie),
            (4242, 1, 4242, 4242, 987_654, false)
        );
        let z = parse_stat("7 (z) Z 3 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0").unwrap();
        assert!(z.zombie);
        assert_eq!(z.starttime, 55);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn snapshot_contains_this_process() {
        let me = std::process::id() as i32;
        assert!(snapshot().iter().any(|p| p.pid == me));
        assert_eq!(stat(me).map(|p| p.pid), Some(me));
    }
}
