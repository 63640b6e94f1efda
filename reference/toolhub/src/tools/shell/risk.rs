//! Deny-by-default risk classification.
//!
//! LOW is one exact intrinsic answered in-process (`mcp-toolhub --version`, the running
//! ToolHub's version query — the Rust counterpart of the public ToolHub's Python version
//! query). It is matched on the request's literal program and arguments, never on a resolved
//! path, so it cannot be reached through PATH. Everything else is at least MEDIUM; shells,
//! interpreters, launchers, git and anything inside the (agent-writable) workspace are HIGH.

use std::path::Path;

use crate::contract::Risk;

/// The literal program of the LOW intrinsic.
pub const INTRINSIC_PROGRAM: &str = "mcp-toolhub";
/// The literal arguments of the LOW intrinsic.
pub const INTRINSIC_ARGS: [&str; 1] = ["--version"];

/// True when the request is exactly the LOW intrinsic.
pub fn is_intrinsic(program: &str, args: &[String]) -> bool {
    program == INTRINSIC_PROGRAM
        && args.len() == INTRINSIC_ARGS.len()
        && args.iter().zip(INTRINSIC_ARGS).all(|(a, b)| a == b)
}

/// What the intrinsic prints on stdout.
pub fn intrinsic_stdout() -> String {
    format!("{INTRINSIC_PROGRAM} {}\n", mcp_safety_core::VERSION)
}

/// Program names that run arbitrary code given as data, start other programs, or change
/// privileges: always HIGH. A trailing version (`python3.12`, `perl5.36`) is ignored.
const HIGH_RISK_NAMES: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "ash",
    "busybox",
    "python",
    "pypy",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "irb",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "env",
    "sudo",
    "doas",
    "su",
    "pkexec",
    "runuser",
    "xargs",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "chroot",
    "setsid",
    "stdbuf",
    "strace",
    "ltrace",
    "gdb",
    "script",
    "expect",
    "osascript",
    "pwsh",
    "powershell",
    "cmd",
    "wsl",
    "ssh",
    "make",
    "cmake",
    "npx",
    "npm",
    "pnpm",
    "yarn",
    "pip",
    "pip3",
    "uv",
    "uvx",
    "cargo",
    "rustc",
    "go",
    "java",
    "jshell",
    "dotnet",
    "find",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "git",
];

/// The base name without a trailing version suffix (`python3.12` -> `python`).
fn family(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
}

/// Classifies a request that is not the intrinsic. `given` is the program as written,
/// `resolved` the canonical executable, `inside_workspace` whether it lives in the workspace.
pub fn classify(given: &str, resolved: &Path, inside_workspace: bool) -> (Risk, String) {
    let names = [
        given.rsplit('/').next().unwrap_or(given),
        resolved.file_name().and_then(|n| n.to_str()).unwrap_or(""),
    ];
    if inside_workspace {
        return (
            Risk::High,
            "the executable lives inside the workspace, which the agent can write".to_string(),
        );
    }
    for name in names {
        let lower = name.to_ascii_lowercase();
        let stem = lower.strip_suffix(".exe").unwrap_or(&lower);
        if HIGH_RISK_NAMES.contains(&stem) || HIGH_RISK_NAMES.contains(&family(stem)) {
            let why = if family(stem) == "git" || stem == "git" {
                "generic git can run repository-configured programs (hooks, filters, pagers)"
            } else {
                "a shell, interpreter or launcher runs whatever code or program it is given"
            };
            return (Risk::High, format!("{name}: {why}"));
        }
    }
    (
        Risk::Medium,
        "an external program outside the workspace; every external command needs approval \
         (deny by default)"
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_intrinsic_prints_the_running_version() {
        assert_eq!(
            intrinsic_stdout(),
            format!("mcp-toolhub {}\n", mcp_safety_core::VERSION)
        );
        assert!(!mcp_safety_core::VERSION.is_empty());
    }

    #[test]
    fn the_high_reason_says_why_git_differs_from_a_shell() {
        let why = |given: &str| classify(given, Path::new(given), false).1;
        for git in ["git", "/usr/bin/git", "git2.43"] {
            assert!(
                why(git).contains("generic git can run"),
                "{git}: {}",
                why(git)
            );
        }
        for other in ["sh", "python3.12", "/usr/bin/env"] {
            assert!(
                why(other).contains("runs whatever code"),
                "{other}: {}",
                why(other)
            );
        }
    }

    #[test]
    fn only_the_exact_intrinsic_is_low() {
        assert!(is_intrinsic("mcp-toolhub", &s(&["--version"])));
        assert!(!is_intrinsic("mcp-toolhub", &s(&["--version", "x"])));
        assert!(!is_intrinsic("mcp-toolhub", &s(&[])));
        assert!(!is_intrinsic("/usr/bin/mcp-toolhub", &s(&["--version"])));
        assert!(!is_intrinsic("python3", &s(&["--version"])));
    }

    #[test]
    fn shells_interpreters_and_git_are_high() {
        for (given, resolved) in [
            ("sh", "/usr/bin/dash"),
            ("python3", "/usr/bin/python3.11"),
            ("/usr/bin/env", "/usr/bin/env"),
            ("git", "/usr/bin/git"),
            ("bash", "/bin/bash"),
            ("node", "/opt/node/bin/node"),
            ("py", "/usr/local/bin/python3.12"),
        ] {
            let (risk, _) = classify(given, Path::new(resolved), false);
            assert_eq!(risk, Risk::High, "{given}");
        }
    }

    #[test]
    fn other_programs_are_medium_and_workspace_ones_high() {
        assert_eq!(
            classify("ls", Path::new("/usr/bin/ls"), false).0,
            Risk::Medium
        );
        assert_eq!(
            classify("bin/tool", Path::new("/w/bin/tool"), true).0,
            Risk::High
        );
    }
}
