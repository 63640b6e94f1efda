//! Edits of JSON object text that keep everything they do not touch as it was written.
//!
//! The hub carries tool entries and results as the upstream's JSON text: a `serde_json::Value`
//! round trip would spell numbers its own way (`1.0E3` becomes `1000.0`, `1` stays `1` but
//! an `f32` field makes it `1.0`, an integer past 64 bits becomes a float) and lose what its
//! target type does not know. What the hub must change (a tool's name, an overridden hint, a
//! result's `resultType`, the protocol's `_meta` keys) it changes here, member by member:
//! [`Object::parse`] finds the members of an object's text, and [`Object::render`] writes it
//! back with only the edited members changed, every other byte (key order, spelling,
//! whitespace) as it was.

use std::borrow::Cow;

/// Why a text is not an object this module can edit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a JSON object: {0}")]
pub struct NotAnObject(&'static str);

/// One member of an object's text.
#[derive(Debug, Clone)]
struct Member<'a> {
    /// Whitespace before the key.
    lead: &'a str,
    /// The key as written, quotes included.
    key_text: Cow<'a, str>,
    /// The key's value (escapes decoded).
    key: Cow<'a, str>,
    /// From the end of the key to the start of the value: the colon and whitespace.
    colon: &'a str,
    /// The value's text, or the replacement given by an edit.
    value: Cow<'a, str>,
    /// Whitespace after the value.
    trail: &'a str,
}

/// An object's text, split into members that can be replaced, removed or added.
#[derive(Debug, Clone)]
pub struct Object<'a> {
    members: Vec<Member<'a>>,
    /// The whitespace inside an empty object.
    empty_inside: &'a str,
}

impl<'a> Object<'a> {
    /// Splits `text`, which must be one JSON object (surrounding whitespace allowed), into
    /// its members. The text is expected to be valid JSON already (read through serde's
    /// `RawValue`); what is not an object, or not well formed enough to split, is refused.
    pub fn parse(text: &'a str) -> Result<Self, NotAnObject> {
        let bytes = text.as_bytes();
        let mut i = skip_ws(bytes, 0);
        if bytes.get(i) != Some(&b'{') {
            return Err(NotAnObject("does not start with `{`"));
        }
        i += 1;
        let mut members = Vec::new();
        let first = skip_ws(bytes, i);
        if bytes.get(first) == Some(&b'}') {
            return Ok(Self {
                members,
                empty_inside: &text[i..first],
            });
        }
        loop {
            let key_start = skip_ws(bytes, i);
            if bytes.get(key_start) != Some(&b'"') {
                return Err(NotAnObject("a key is not a string"));
            }
            let key_end = skip_string(bytes, key_start)?;
            let colon_at = skip_ws(bytes, key_end);
            if bytes.get(colon_at) != Some(&b':') {
                return Err(NotAnObject("a key is not followed by `:`"));
            }
            let value_start = skip_ws(bytes, colon_at + 1);
            let value_end = skip_value(bytes, value_start)?;
            let after = skip_ws(bytes, value_end);
            let key_text = &text[key_start..key_end];
            members.push(Member {
                lead: &text[i..key_start],
                key_text: Cow::Borrowed(key_text),
                key: decode_key(key_text)?,
                colon: &text[key_end..value_start],
                value: Cow::Borrowed(&text[value_start..value_end]),
                trail: &text[value_end..after],
            });
            match bytes.get(after) {
                Some(b',') => i = after + 1,
                Some(b'}') => break,
                _ => return Err(NotAnObject("a member is not followed by `,` or `}`")),
            }
        }
        Ok(Self {
            members,
            empty_inside: "",
        })
    }

    /// The text of the first member named `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.members
            .iter()
            .find(|m| m.key == key)
            .map(|m| m.value.as_ref())
    }

    /// Whether a member named `key` exists.
    pub fn contains(&self, key: &str) -> bool {
        self.members.iter().any(|m| m.key == key)
    }

    /// Sets every member named `key` to `value` (JSON text) in its place; without one, adds
    /// it at the end. Returns whether one existed.
    pub fn set(&mut self, key: &str, value: impl Into<Cow<'a, str>>) -> bool {
        let value = value.into();
        let mut found = false;
        for member in self.members.iter_mut().filter(|m| m.key == key) {
            member.value = value.clone();
            found = true;
        }
        if !found {
            self.members.push(Member::new(key, value));
        }
        found
    }

    /// Adds member `key` with `value` (JSON text) before every other member.
    pub fn prepend(&mut self, key: &str, value: impl Into<Cow<'a, str>>) {
        self.members.insert(0, Member::new(key, value.into()));
    }

    /// Removes every member whose key `drop` selects; returns how many went.
    pub fn remove_where(&mut self, mut drop: impl FnMut(&str) -> bool) -> usize {
        let before = self.members.len();
        self.members.retain(|m| !drop(&m.key));
        before - self.members.len()
    }

    /// Removes every member named `key`; returns whether one existed.
    pub fn remove(&mut self, key: &str) -> bool {
        self.remove_where(|k| k == key) > 0
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The object's text: unedited members exactly as they were written.
    pub fn render(&self) -> String {
        let len = self
            .members
            .iter()
            .map(|m| {
                m.lead.len() + m.key_text.len() + m.colon.len() + m.value.len() + m.trail.len() + 1
            })
            .sum::<usize>()
            + 2;
        let mut out = String::with_capacity(len);
        self.render_into(&mut out);
        out
    }

    /// [`Object::render`] appended to `out`.
    pub fn render_into(&self, out: &mut String) {
        out.push('{');
        if self.members.is_empty() {
            out.push_str(self.empty_inside);
        }
        for (i, m) in self.members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(m.lead);
            out.push_str(&m.key_text);
            out.push_str(m.colon);
            out.push_str(&m.value);
            out.push_str(m.trail);
        }
        out.push('}');
    }
}

impl<'a> Member<'a> {
    /// A member the hub adds: compact, its key written by serde.
    fn new(key: &str, value: Cow<'a, str>) -> Self {
        Self {
            lead: "",
            key_text: Cow::Owned(string(key)),
            key: Cow::Owned(key.to_owned()),
            colon: ":",
            value,
            trail: "",
        }
    }
}

/// `text` as a JSON string literal.
pub fn string(text: &str) -> String {
    // Serializing a string cannot fail.
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

/// The value of a key as written (`"..."`): borrowed when it has no escapes.
fn decode_key(key_text: &str) -> Result<Cow<'_, str>, NotAnObject> {
    let inner = &key_text[1..key_text.len() - 1];
    if !inner.contains('\\') {
        return Ok(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(key_text)
        .map(Cow::Owned)
        .map_err(|_| NotAnObject("a key is not a valid string"))
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// One past the closing quote of the string starting at `i`.
fn skip_string(bytes: &[u8], start: usize) -> Result<usize, NotAnObject> {
    let mut i = start + 1;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'\\' => i += 2,
            b'"' => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err(NotAnObject("a string does not end"))
}

/// One past the end of the value starting at `start`.
fn skip_value(bytes: &[u8], start: usize) -> Result<usize, NotAnObject> {
    match bytes.get(start) {
        None => Err(NotAnObject("a value is missing")),
        Some(b'"') => skip_string(bytes, start),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = start;
            while let Some(&byte) = bytes.get(i) {
                match byte {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            Err(NotAnObject("a nested value does not end"))
        }
        Some(_) => {
            let mut i = start;
            while let Some(&byte) = bytes.get(i) {
                if matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                i += 1;
            }
            if i == start {
                return Err(NotAnObject("a value is missing"));
            }
            Ok(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ODD: &str = r#"{"b" : 1.0E3,"name":"x", "a":{"k":[1,"}",{"q":"\""}]},"n\u0061me":-0 }"#;

    #[test]
    fn unedited_objects_render_byte_for_byte() {
        for text in [
            ODD,
            "{}",
            "{ }",
            r#"{"a":1}"#,
            "{\n  \"a\": [1, 2.50],\n  \"b\": null\n}",
            r#"{"esc\"aped":"v\\","n":12345678901234567890123}"#,
        ] {
            assert_eq!(Object::parse(text).expect(text).render(), text);
        }
    }

    #[test]
    fn edits_change_only_their_members() {
        let mut object = Object::parse(ODD).expect("object");
        // `n\u0061me` is `name` too: both are set, each where it stands.
        assert!(object.set("name", string("p.x")));
        assert_eq!(
            object.render(),
            r#"{"b" : 1.0E3,"name":"p.x", "a":{"k":[1,"}",{"q":"\""}]},"n\u0061me":"p.x" }"#
        );
        assert!(object.remove("a"));
        assert!(!object.set("added", "true"));
        object.prepend("first", "0");
        assert_eq!(
            object.render(),
            r#"{"first":0,"b" : 1.0E3,"name":"p.x","n\u0061me":"p.x" ,"added":true}"#
        );
        assert_eq!(object.get("b"), Some("1.0E3"));
        // An added member reads and edits like any other.
        assert_eq!(object.get("added"), Some("true"));
        object.set("added", "false");
        assert!(object.render().ends_with(r#","added":false}"#));
        assert_eq!(object.remove_where(|k| k == "name"), 2);
    }

    #[test]
    fn emptied_and_empty_objects_stay_objects() {
        let mut object = Object::parse(r#"{"a":1}"#).expect("object");
        object.remove("a");
        assert!(object.is_empty());
        assert_eq!(object.render(), "{}");
        let mut empty = Object::parse("{}").expect("object");
        empty.set("content", "[]");
        assert_eq!(empty.render(), r#"{"content":[]}"#);
    }

    #[test]
    fn what_is_not_an_object_is_refused() {
        for text in [
            "[1]",
            "1",
            "",
            "{",
            r#"{"a"}"#,
            r#"{"a":}"#,
            r#"{"a":1"#,
            r#"{1:2}"#,
            r#"{"a":"x}"#,
        ] {
            assert!(Object::parse(text).is_err(), "{text}");
        }
    }
}
