//! Turning a command string into argv: the shell-metacharacter scan (first, on the raw
//! string) and a quote-aware split. No shell ever sees the string; the scan exists so that
//! an operator's allowlist cannot be chained, piped or redirected around even by mistake.

/// The refused metacharacters, as the document lists them: `;` `|` `&` `<` `>` backtick `$(`.
pub const METACHARACTERS: &[&str] = &[";", "|", "&", "<", ">", "`", "$("];

/// The first shell metacharacter in `command`, anywhere (quotes are not understood on
/// purpose: `echo "a;b"` is refused, the safe direction to be wrong in).
pub fn find_metacharacter(command: &str) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    for m in METACHARACTERS {
        if let Some(i) = command.find(m)
            && best.is_none_or(|(b, _)| i < b)
        {
            best = Some((i, m));
        }
    }
    best.map(|(_, m)| m)
}

/// Why a command string cannot be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// Nothing but whitespace.
    #[error("the command is empty")]
    Empty,
    /// A quote was opened and never closed.
    #[error("unbalanced quote in the command")]
    UnbalancedQuote,
    /// A backslash at the very end.
    #[error("the command ends with a lone backslash")]
    TrailingBackslash,
    /// A NUL byte cannot be passed to a program.
    #[error("the command contains a NUL character")]
    Nul,
}

/// POSIX-shell-like word splitting without any expansion: whitespace separates words,
/// single quotes are literal, double quotes allow `\"` `\\` `\$` escapes, a backslash
/// outside quotes escapes the next character.
pub fn split_command(command: &str) -> Result<Vec<String>, SplitError> {
    if command.contains('\0') {
        return Err(SplitError::Nul);
    }
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err(SplitError::UnbalancedQuote),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some('\n') => {}
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => return Err(SplitError::UnbalancedQuote),
                        },
                        Some(x) => cur.push(x),
                        None => return Err(SplitError::UnbalancedQuote),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(x) => cur.push(x),
                    None => return Err(SplitError::TrailingBackslash),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err(SplitError::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn splits_like_a_shell_without_expansion() {
        assert_eq!(split_command("ls -la").unwrap(), ["ls", "-la"]);
        assert_eq!(
            split_command(r#"echo "hello world" 'a b' c\ d"#).unwrap(),
            ["echo", "hello world", "a b", "c d"]
        );
        assert_eq!(split_command("echo ''").unwrap(), ["echo", ""]);
        assert_eq!(split_command("  "), Err(SplitError::Empty));
        assert_eq!(split_command("echo 'x"), Err(SplitError::UnbalancedQuote));
        assert_eq!(
            split_command("echo x\\"),
            Err(SplitError::TrailingBackslash)
        );
    }

    #[test]
    fn every_metacharacter_is_found_even_quoted() {
        for m in METACHARACTERS {
            for s in [
                format!("echo a{m}b"),
                format!("echo \"a{m}b\""),
                format!("echo 'a{m}b'"),
            ] {
                assert_eq!(find_metacharacter(&s), Some(*m), "{s}");
            }
        }
        assert_eq!(find_metacharacter("echo $HOME (x) {y}"), None);
        assert_eq!(find_metacharacter("echo a && b"), Some("&"));
        // The first in the command is named, whatever the list's order.
        assert_eq!(find_metacharacter("a | b ; c"), Some("|"));
        assert_eq!(find_metacharacter("a $(b) > c"), Some("$("));
    }

    proptest! {
        /// Any string containing a metacharacter is refused, wherever it sits and whatever
        /// quoting surrounds it.
        #[test]
        fn scan_finds_any_embedded_metacharacter(
            pre in ".{0,20}",
            post in ".{0,20}",
            q in prop::sample::select(vec!["", "\"", "'", "\\"]),
            m in prop::sample::select(METACHARACTERS.to_vec()),
        ) {
            let s = format!("{pre}{q}{m}{q}{post}");
            prop_assert!(find_metacharacter(&s).is_some());
        }

        /// The scan never refuses a string free of metacharacters.
        #[test]
        fn scan_accepts_clean_strings(s in "[a-zA-Z0-9 ._/'\"=$(){}-]{0,40}") {
            prop_assume!(!s.contains("$("));
            prop_assert_eq!(find_metacharacter(&s), None);
        }
    }
}
