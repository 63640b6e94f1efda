//! What the probe reports about itself: the `--record` line, `--print-*` output and pidfile
//! lines.
//!
//! Appends are single `write` calls on `O_APPEND` files so concurrent probes (a tree of
//! descendants, or a server started twice) never interleave partial lines.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;

use serde_json::{Value, json};

/// Appends `line` (which must end in `\n`) to `path` with one write.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    let written = file.write(line.as_bytes())?;
    if written != line.len() {
        return Err(io::Error::new(
            io::ErrorKind::WriteZero,
            format!("short append ({written} of {} bytes)", line.len()),
        ));
    }
    Ok(())
}

/// Appends this process's pid as one line.
pub fn append_pid(path: &Path) -> io::Result<()> {
    append_line(path, &format!("{}\n", std::process::id()))
}

/// The `--record` line: `{"pid", "argv", "cwd"}` as compact JSON.
pub fn record_line() -> String {
    let cwd = std::env::current_dir()
        .map(|dir| dir.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        "{}\n",
        json!({"pid": std::process::id(), "argv": argv(), "cwd": cwd})
    )
}

/// The process's arguments, lossily decoded.
pub fn argv() -> Vec<String> {
    std::env::args_os()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect()
}

/// The environment as one JSON object with sorted keys.
pub fn env_json() -> String {
    let env: BTreeMap<String, String> = std::env::vars_os()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let object: serde_json::Map<String, Value> = env
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    Value::Object(object).to_string()
}

/// What `--print-env`, `--print-args` and `--print-cwd` ask for, one line each, in that order.
pub fn info_text(env: bool, args: bool, cwd: bool) -> String {
    let mut text = String::new();
    if env {
        text.push_str(&env_json());
        text.push('\n');
    }
    if args {
        text.push_str(&Value::from(argv()).to_string());
        text.push('\n');
    }
    if cwd {
        if let Ok(dir) = std::env::current_dir() {
            text.push_str(&dir.to_string_lossy());
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_keys_are_sorted() {
        let parsed: Value = serde_json::from_str(&env_json()).expect("env is JSON");
        let keys: Vec<&String> = parsed
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }

    #[test]
    fn record_and_pid_lines_append() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log");
        append_line(&path, &record_line()).expect("append");
        append_pid(&path).expect("append");
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        let record: Value = serde_json::from_str(lines[0]).expect("json");
        assert_eq!(record["pid"], json!(std::process::id()));
        assert!(record["argv"].is_array() && record["cwd"].is_string());
        assert_eq!(lines[1], std::process::id().to_string());
    }

    #[test]
    fn info_lines_come_in_order() {
        let text = info_text(false, true, true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with('['));
    }
}
