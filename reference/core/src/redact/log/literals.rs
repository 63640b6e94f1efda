//! The string literals of a log line, redacted as the plain strings they stand for.
//!
//! The MCP library logs a tool's arguments with `Debug` (`String("echo a\nb")`) and a tool's
//! text output as escaped JSON inside that (`"{\"stdout\":\"a\\nb\"}"`). The audit redacts the
//! string values themselves, so a rule that looks at a line break, a quote or the start and
//! end of the value sees something else in the log line. Here each literal is read back to
//! its value, redacted, and written again with the same escapes.

use std::borrow::Cow;

/// How many literals deep the redaction looks (a JSON text inside a `Debug` string is two).
pub(super) const DEPTH: usize = 3;

/// `text` with every `"..."` literal whose value `strings` changes written again, escaped,
/// from the redacted value; literals inside a literal's value too, down to `depth` levels.
/// A literal without its closing quote is left alone (the whole-line pass still sees it).
pub(super) fn redact_literals<'a, F>(text: &'a str, strings: &F, depth: usize) -> Cow<'a, str>
where
    F: for<'s> Fn(&'s str) -> Cow<'s, str>,
{
    if depth == 0 || !text.contains('"') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let Some(end) = closing_quote(bytes, i + 1) else {
            break;
        };
        let value = decode(&text[i + 1..end]);
        // The literals inside first: their values have exact bounds there. A rule run first
        // on the text around them, where their line breaks are still escaped, could take
        // the next line's key into the value it replaces and leave that key's secret bare.
        let inner = redact_literals(&value, strings, depth - 1);
        let redacted = strings(&inner).into_owned();
        if redacted != value {
            out.push_str(&text[copied..=i]);
            out.push_str(&encode(&redacted));
            copied = end;
        }
        i = end + 1;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The index of the `"` that closes a literal whose body starts at `from` (a `\` escapes
/// the byte after it).
fn closing_quote(bytes: &[u8], from: usize) -> Option<usize> {
    let mut j = from;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'"' => return Some(j),
            _ => j += 1,
        }
    }
    None
}

/// The value of a literal's body: `\n`, `\r`, `\t`, `\0`, `\\`, `\"`, `\'`, `\/`, `\u{..}`
/// (`Debug`) and `\uXXXX` (JSON) undone; anything else kept as written.
fn decode(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (value, used) = match after.chars().next() {
            Some('n') => (Some('\n'), 1),
            Some('r') => (Some('\r'), 1),
            Some('t') => (Some('\t'), 1),
            Some('0') => (Some('\0'), 1),
            Some(q @ ('\\' | '"' | '\'' | '/')) => (Some(q), 1),
            Some('u') => unicode(&after[1..]).map_or((None, 0), |(c, n)| (Some(c), n + 1)),
            _ => (None, 0),
        };
        match value {
            Some(c) => {
                out.push(c);
                rest = &after[used..];
            }
            None => {
                out.push('\\');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `{1b}` or `001b` after a `\u`: the character and how many bytes it took.
fn unicode(after: &str) -> Option<(char, usize)> {
    let (hex, used) = match after.strip_prefix('{') {
        Some(braced) => {
            let close = braced.find('}')?;
            (&braced[..close], close + 2)
        }
        None => (after.get(..4)?, 4),
    };
    let code = u32::from_str_radix(hex, 16).ok()?;
    Some((char::from_u32(code)?, used))
}

/// `value` as a literal's body: backslash, quote and control characters escaped.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper_secret(s: &str) -> Cow<'_, str> {
        if s.contains("SECRET") {
            Cow::Owned(s.replace("SECRET", "[R]"))
        } else {
            Cow::Borrowed(s)
        }
    }

    #[test]
    fn decode_and_encode_round_trip_the_escapes_seen_in_logs() {
        let body = r#"a\nb \"q\" c:\\d \u{1b} \u0041 \x"#;
        let value = decode(body);
        assert_eq!(value, "a\nb \"q\" c:\\d \u{1b} A \\x");
        assert_eq!(decode(&encode("a\nb \"q\" c:\\d")), "a\nb \"q\" c:\\d");
    }

    /// A JSON text inside a `Debug` string, its values on escaped lines: each value's
    /// secret goes, though a `KEY=VALUE` rule run on the outer text would have taken the next
    /// key (`api_key:`) into the first value and left its secret without a key.
    #[test]
    fn nested_values_are_redacted_before_the_text_around_them() {
        let line = r#"text: "{\"content\":\"password=S1\\napi_key: S2\\n\"}""#;
        let r = redact_literals(line, &crate::redact::redact_str, DEPTH);
        assert!(!r.contains("S1") && !r.contains("S2"), "{r}");
    }

    #[test]
    fn only_changed_literals_are_rewritten_and_nested_ones_are_reached() {
        let line = r#"x "keep \"me\"" y String("a SECRET\nb") z "{\"k\":\"SECRET\\n\"}" end"#;
        let r = redact_literals(line, &upper_secret, DEPTH);
        assert_eq!(
            r,
            r#"x "keep \"me\"" y String("a [R]\nb") z "{\"k\":\"[R]\\n\"}" end"#
        );
        let plain = r#"x "keep \"me\"" y"#;
        assert!(matches!(
            redact_literals(plain, &upper_secret, DEPTH),
            Cow::Borrowed(_)
        ));
        let open = r#"x "SECRET without its end"#;
        assert!(matches!(
            redact_literals(open, &upper_secret, DEPTH),
            Cow::Borrowed(_)
        ));
    }
}
