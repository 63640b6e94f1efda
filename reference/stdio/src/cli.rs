//! The command-line convention every reference server binary shares: help and version go to
//! stdout with exit 0, and a usage error is one short stderr line, so a misconfigured server
//! never writes anything but protocol messages to stdout.

/// Handles a clap parse failure: prints `--help`/`--version` output to stdout and gives
/// `None`, or gives the error's first line (without clap's `error: ` prefix and the usage
/// block) for the caller to print on stderr with its own prefix and exit code.
pub fn clap_error_line(e: &clap::Error) -> Option<String> {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            None
        }
        _ => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            Some(format!("{first} (see --help)"))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> clap::Error {
        clap::Command::new("server")
            .version("1.2.3")
            .arg(clap::Arg::new("config").long("config"))
            .try_get_matches_from(args)
            .unwrap_err()
    }

    #[test]
    fn a_usage_error_is_one_line_and_help_is_no_error() {
        assert_eq!(
            clap_error_line(&parse(&["server", "--bogus"])).unwrap(),
            "unexpected argument '--bogus' found (see --help)"
        );
        assert_eq!(clap_error_line(&parse(&["server", "--version"])), None);
    }
}
