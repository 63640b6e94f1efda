//! What a scenario's `file` step observes about a path.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Largest file whose text is included as `content` (1 MiB); bigger files are still hashed.
const MAX_CONTENT_BYTES: u64 = 1 << 20;

/// Describes `path` as a `file` step sees it, without following a symlink in the last
/// component, so a scenario can tell "the server created a link" from "the server wrote the
/// target":
///
/// ```json
/// {"exists": true, "kind": "file", "size": 5, "sha256": "…", "content": "hello",
///  "target": null, "entries": null, "mode": "0644"}
/// ```
///
/// - `kind`: `"file"`, `"dir"`, `"symlink"`, `"other"` (fifo, socket, device), or null if
///   missing.
/// - `size`, `sha256`: regular files only (`sha256` is lowercase hex, null if unreadable).
/// - `content`: the text if the file is valid UTF-8 and at most 1 MiB, else null.
/// - `target`: the link's target text for symlinks (not resolved).
/// - `entries`: sorted entry names for folders (null if unreadable).
/// - `mode`: permission bits in octal, e.g. `"0755"` (for a link, the link's own bits).
///
/// Any error inspecting the path itself (missing, a parent that is not a folder, no permission)
/// reads as `"exists": false`, since the step can only observe what it can reach.
pub fn describe_path(path: &Path) -> Value {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(error) => {
            if error.kind() != io::ErrorKind::NotFound {
                tracing::debug!(path = %path.display(), %error, "describe_path: cannot inspect");
            }
            return json!({
                "exists": false,
                "kind": null,
                "size": null,
                "sha256": null,
                "content": null,
                "target": null,
                "entries": null,
                "mode": null,
            });
        }
    };
    let kind = meta.file_type();
    let mode = format!("{:04o}", meta.permissions().mode() & 0o7777);
    let (kind_name, size, sha256, content, target, entries) = if kind.is_symlink() {
        let target = fs::read_link(path)
            .ok()
            .map(|t| t.to_string_lossy().into_owned());
        ("symlink", None, None, None, target, None)
    } else if kind.is_dir() {
        let entries = fs::read_dir(path).ok().map(|entries| {
            let mut names: Vec<String> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        });
        ("dir", None, None, None, None, entries)
    } else if kind.is_file() {
        let (sha256, content) = match read_file(path) {
            Ok((sha256, content)) => (Some(sha256), content),
            Err(error) => {
                tracing::debug!(path = %path.display(), %error, "describe_path: cannot read");
                (None, None)
            }
        };
        ("file", Some(meta.len()), sha256, content, None, None)
    } else {
        ("other", None, None, None, None, None)
    };
    json!({
        "exists": true,
        "kind": kind_name,
        "size": size,
        "sha256": sha256,
        "content": content,
        "target": target,
        "entries": entries,
        "mode": mode,
    })
}

/// Hashes the whole file and keeps its text if small and UTF-8. Opened with `O_NOFOLLOW` and
/// `O_NONBLOCK` so a path swapped for a link or a fifo after the `lstat` cannot mislead or hang.
fn read_file(path: &Path) -> io::Result<(String, Option<String>)> {
    let mut file: File = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("no longer a regular file"));
    }
    let mut hasher = Sha256::new();
    let mut kept: Vec<u8> = Vec::new();
    let mut total: u64 = 0;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buffer[..read];
        hasher.update(chunk);
        total += read as u64;
        if total <= MAX_CONTENT_BYTES {
            kept.extend_from_slice(chunk);
        }
    }
    let sha256 = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    let content = if total <= MAX_CONTENT_BYTES {
        String::from_utf8(kept).ok()
    } else {
        None
    };
    Ok((sha256, content))
}
