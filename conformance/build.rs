//! Embeds the suites (`scenarios/`) and the default targets (`targets/`) in the binary, so an
//! installed or unpacked `mcp-conformance` runs them with no checkout (see `src/builtin.rs`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut files = Vec::new();
    for dir in ["scenarios", "targets"] {
        println!("cargo:rerun-if-changed={dir}");
        collect(&root, &root.join(dir), &mut files);
    }
    files.sort();
    let mut out =
        String::from("/// Every embedded file: (path relative to the crate, contents).\n");
    out.push_str("pub static FILES: &[(&str, &str)] = &[\n");
    for (relative, absolute) in &files {
        println!("cargo:rerun-if-changed={}", absolute.display());
        let _ = writeln!(
            out,
            "    ({relative:?}, include_str!({:?})),",
            absolute.display().to_string()
        );
    }
    out.push_str("];\n");
    let dest =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it")).join("builtin_files.rs");
    std::fs::write(&dest, out).expect("write the embedded file list");
}

/// Every `.yaml`/`.yml` file (and `.json` data a scenario reads, e.g. a contract surface) under `dir`, with its path relative to `root` ('/'-separated).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(root, &path, files);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            let relative = path
                .strip_prefix(root)
                .expect("under the crate")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            files.push((relative, path));
        }
    }
}
