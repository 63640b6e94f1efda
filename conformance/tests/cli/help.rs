//! Help and version: `--help`, `-h` and each subcommand's help, `--version`, and no
//! subcommand at all.

use crate::mcpc;

#[test]
fn help_and_version_exit_zero() {
    let help = mcpc(&["--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    assert!(help.stdout.contains("Usage: mcp-conformance"));
    for sub in [
        "run",
        "list",
        "validate",
        "schema",
        "bench",
        "fixture-server",
        "probe",
        "relay",
    ] {
        assert!(help.stdout.contains(sub), "--help mentions {sub}");
        let sub_help = mcpc(&[sub, "--help"]);
        assert_eq!(sub_help.code, 0, "{sub} --help: {sub_help:?}");
        assert!(sub_help.stdout.contains("Usage:"));
    }
    let short = mcpc(&["-h"]);
    assert_eq!(short.code, 0);

    let version = mcpc(&["--version"]);
    assert_eq!(version.code, 0);
    assert_eq!(
        version.stdout,
        format!("mcp-conformance {}\n", env!("CARGO_PKG_VERSION"))
    );
    assert!(version.stderr.is_empty());

    let nothing = mcpc(&[]);
    assert_eq!(nothing.code, 2, "no subcommand is a usage error");
    assert!(nothing.stdout.is_empty());
    assert!(nothing.stderr.contains("Usage:"));
}
