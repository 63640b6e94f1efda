//! The command-line convention every reference server binary shares: help and version go to
//! stdout with exit 0, and a usage error is one short stderr line, so a misconfigured server
//! never writes anything but protocol messages to stdout.

/// Handles a clap parse failure: prints `--help`/`--version` output to stdout and gives
/// `None`, or gives the usage error as at most two lines, each ending in a newline, for the
/// caller to print on stderr after its own prefix (`PROG: `) with its own exit code: clap's
/// message with what it says beside it (the missing arguments' names, the valid subcommands,
/// a `tip:` with a suggestion) on the first, clap's `Usage:` line on the second when it has
/// one. A (sub)command given without its command gets the command names it takes instead of
/// clap's whole help.
pub fn clap_error_text(e: &clap::Error) -> Option<String> {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            None
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            Some(command_required(&e.render().to_string()))
        }
        _ => Some(usage_error(&e.render().to_string())),
    }
}

/// A (sub)command without its command: clap renders that command's help; we keep the
/// command names it lists and its `Usage:` line, in two lines.
fn command_required(help: &str) -> String {
    let mut names = Vec::new();
    let mut usage = None;
    let mut in_commands = false;
    for line in help.lines() {
        if line.starts_with("Usage:") {
            usage = Some(line.trim_end());
        }
        if line == "Commands:" {
            in_commands = true;
            continue;
        }
        if in_commands {
            match line
                .strip_prefix("  ")
                .and_then(|l| l.split_whitespace().next())
            {
                Some(name) if !line.starts_with("   ") => names.push(name),
                Some(_) => {}
                None => in_commands = false,
            }
        }
    }
    let mut text = String::from("a command is required");
    if !names.is_empty() {
        text.push_str(": ");
        text.push_str(&names.join(", "));
    }
    text.push_str(" (see --help)\n");
    if let Some(usage) = usage {
        text.push_str(usage);
        text.push('\n');
    }
    text
}

/// clap's rendering of a usage error in at most two lines, keeping what clap says: its
/// message with the indented context joined on (the missing arguments' names, the valid
/// subcommands, a `tip:` with a suggestion), then clap's `Usage:` line when it has one. Only
/// the blank lines and the closing "For more information, try '--help'." go, replaced by
/// `(see --help)`, like every reference server's usage error.
fn usage_error(rendered: &str) -> String {
    let mut lines = rendered
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("invalid arguments");
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let mut usage: Option<String> = None;
    let mut after_item = false;
    for line in lines {
        if line.starts_with("For more information") {
            continue;
        }
        if line.starts_with("Usage:") {
            usage = Some(line.to_string());
            continue;
        }
        let item = line.trim_start();
        if let Some(usage) = usage.as_mut() {
            // A further usage form, indented below the first.
            usage.push_str(" | ");
            usage.push_str(item);
            continue;
        }
        let tip = item.starts_with("tip:");
        message.push_str(if tip {
            "; "
        } else if message.ends_with(':') {
            " "
        } else if after_item {
            ", "
        } else {
            " "
        });
        message.push_str(item);
        after_item = !tip;
    }
    match usage {
        Some(usage) => format!("{message} (see --help)\n{usage}\n"),
        None => format!("{message} (see --help)\n"),
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
    fn a_usage_error_keeps_what_clap_says_in_two_lines_and_help_is_no_error() {
        assert_eq!(
            clap_error_text(&parse(&["server", "--bogus"])).unwrap(),
            "unexpected argument '--bogus' found (see --help)\nUsage: server [OPTIONS]\n"
        );
        assert_eq!(
            clap_error_text(&parse(&["server", "--confg", "x"])).unwrap(),
            "unexpected argument '--confg' found; tip: a similar argument exists: '--config' \
             (see --help)\nUsage: server --config <config>\n"
        );
        assert_eq!(clap_error_text(&parse(&["server", "--version"])), None);
    }

    #[test]
    fn a_missing_command_names_the_commands() {
        let e = clap::Command::new("server")
            .arg_required_else_help(true)
            .subcommand(clap::Command::new("serve").about("Serve"))
            .subcommand(clap::Command::new("check").about("Check"))
            .try_get_matches_from(["server"])
            .unwrap_err();
        assert_eq!(
            clap_error_text(&e).unwrap(),
            "a command is required: serve, check, help (see --help)\nUsage: server [COMMAND]\n"
        );
    }
}
