//! The checks every seeded path and content goes through, public because the engine's seeding
//! uses the same ones before it touches the disk.

use std::path::{Component, Path, PathBuf};

use super::SpecError;

/// Turns a seeding key into a clean relative path: rejects empty paths, absolute paths and
/// `..` components (they would let a scenario write outside its folder); drops `.` components.
/// `shown` is how the path appears in the error.
/// Public because the engine's seeding cleans each path with it before touching the disk.
pub fn clean_relative(path: &str, shown: &str) -> Result<PathBuf, SpecError> {
    let bad = |reason: &str| SpecError::BadPath {
        path: shown.to_owned(),
        reason: reason.to_owned(),
    };
    if path.contains('\0') {
        return Err(bad("contains a NUL byte"));
    }
    let mut clean = PathBuf::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(bad("contains a `..` component")),
            Component::RootDir | Component::Prefix(_) => return Err(bad("is absolute")),
        }
    }
    if clean.as_os_str().is_empty() {
        return Err(bad("is empty"));
    }
    Ok(clean)
}

/// Extra folder names become `dirs/<name>` and `${dirs.<name>}`: one plain component only.
/// Public because the engine checks each name again when it creates the folder.
pub fn check_dir_name(name: &str) -> Result<(), SpecError> {
    let reason = if name.is_empty() {
        Some("is empty")
    } else if name == "." || name == ".." {
        Some("is `.` or `..`")
    } else if name.contains('/') || name.contains('\0') {
        Some("must be a single folder name (no `/`)")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(SpecError::BadPath {
            path: format!("dirs.{name}"),
            reason: reason.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Decodes standard base64 (`A-Z a-z 0-9 + /`), padding optional, ASCII whitespace ignored so
/// long values can be folded in YAML. A tiny decoder here avoids a dependency for one field.
/// Public because the engine's seeding decodes the content it writes with it.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    fn value(byte: u8) -> Option<u32> {
        match byte {
            b'A'..=b'Z' => Some(u32::from(byte - b'A')),
            b'a'..=b'z' => Some(u32::from(byte - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(byte - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let mut symbols: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let padding = symbols.iter().rev().take_while(|b| **b == b'=').count();
    if padding > 2 {
        return Err("invalid base64: too much `=` padding".to_owned());
    }
    symbols.truncate(symbols.len() - padding);
    if padding > 0 && !(symbols.len() + padding).is_multiple_of(4) {
        return Err("invalid base64: wrong padding".to_owned());
    }
    if symbols.len() % 4 == 1 {
        return Err("invalid base64: truncated input".to_owned());
    }
    let mut out = Vec::with_capacity(symbols.len() / 4 * 3 + 2);
    for (index, chunk) in symbols.chunks(4).enumerate() {
        let mut acc = 0u32;
        for (offset, byte) in chunk.iter().enumerate() {
            let v = value(*byte).ok_or_else(|| {
                format!(
                    "invalid base64: unexpected character {:?} at symbol {}",
                    char::from(*byte),
                    index * 4 + offset
                )
            })?;
            acc = (acc << 6) | v;
        }
        // Left-align partial chunks to 24 bits, then take the complete bytes.
        acc <<= 6 * (4 - chunk.len() as u32);
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Ok(out)
}
