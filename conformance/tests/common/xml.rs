//! A deliberately small XML 1.0 reader shared by the report tests, enough to check what the
//! JUnit writer emits (no comments, CDATA, DTD or namespaces: the writer emits none, so meeting
//! one is an error). It rejects anything that is not well-formed and decodes entities, so tests
//! can compare attribute values and text with what went in.
#![allow(dead_code)]
#[derive(Debug)]
pub enum Node {
    Element(Element),
    Text(String),
}

#[derive(Debug)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|c| match c {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    pub fn text(&self) -> String {
        self.children
            .iter()
            .filter_map(|c| match c {
                Node::Text(t) => Some(t.as_str()),
                Node::Element(_) => None,
            })
            .collect()
    }
}

const PROLOG: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r')
        || ('\u{20}'..='\u{d7ff}').contains(&c)
        || ('\u{e000}'..='\u{fffd}').contains(&c)
        || c >= '\u{10000}'
}

pub fn parse(doc: &str) -> Result<Element, String> {
    if let Some(bad) = doc.chars().find(|c| !is_xml_char(*c)) {
        return Err(format!(
            "character U+{:04X} is not allowed in XML",
            u32::from(bad)
        ));
    }
    let rest = doc
        .strip_prefix(PROLOG)
        .ok_or("missing or different XML declaration")?;
    let mut p = Parser { s: rest, pos: 0 };
    p.skip_ws();
    let root = p.element()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(format!("content after the root element at {}", p.pos));
    }
    Ok(root)
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start_matches([' ', '\t', '\n', '\r']);
        self.pos = self.s.len() - trimmed.len();
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        if self.rest().starts_with(token) {
            self.pos += token.len();
            Ok(())
        } else {
            Err(format!("expected {token:?} at {}", self.pos))
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let len = self
            .rest()
            .char_indices()
            .find(|&(i, c)| {
                !(c.is_ascii_alphabetic()
                    || c == '_'
                    || c == ':'
                    || (i > 0 && (c.is_ascii_digit() || c == '-' || c == '.')))
            })
            .map_or(self.rest().len(), |(i, _)| i);
        if len == 0 {
            return Err(format!("expected a name at {}", self.pos));
        }
        let name = self.rest()[..len].to_owned();
        self.pos += len;
        Ok(name)
    }

    fn element(&mut self) -> Result<Element, String> {
        self.expect("<")?;
        let name = self.name()?;
        let mut attrs: Vec<(String, String)> = Vec::new();
        loop {
            let had_ws = self.rest().starts_with([' ', '\t', '\n', '\r']);
            self.skip_ws();
            if self.rest().starts_with("/>") {
                self.pos += 2;
                return Ok(Element {
                    name,
                    attrs,
                    children: vec![],
                });
            }
            if self.rest().starts_with('>') {
                self.pos += 1;
                break;
            }
            if !had_ws {
                return Err(format!(
                    "expected whitespace before attribute at {}",
                    self.pos
                ));
            }
            let attr = self.name()?;
            self.skip_ws();
            self.expect("=")?;
            self.skip_ws();
            let quote = self
                .rest()
                .chars()
                .next()
                .filter(|&c| c == '"' || c == '\'')
                .ok_or_else(|| format!("expected a quote at {}", self.pos))?;
            self.pos += 1;
            let end = self
                .rest()
                .find(quote)
                .ok_or("unterminated attribute value")?;
            let raw = &self.rest()[..end];
            if raw.contains('<') {
                return Err(format!("raw '<' in attribute {attr}"));
            }
            let value = decode(raw, true)?;
            self.pos += end + 1;
            if attrs.iter().any(|(n, _)| *n == attr) {
                return Err(format!("duplicate attribute {attr}"));
            }
            attrs.push((attr, value));
        }
        let mut children = Vec::new();
        loop {
            let end = self.rest().find('<').ok_or("unclosed element")?;
            if end > 0 {
                let raw = &self.rest()[..end];
                if raw.contains("]]>") {
                    return Err("raw ']]>' in text".to_owned());
                }
                children.push(Node::Text(decode(raw, false)?));
                self.pos += end;
            }
            if self.rest().starts_with("</") {
                self.pos += 2;
                let closing = self.name()?;
                if closing != name {
                    return Err(format!("</{closing}> closes <{name}>"));
                }
                self.skip_ws();
                self.expect(">")?;
                return Ok(Element {
                    name,
                    attrs,
                    children,
                });
            }
            if self.rest().starts_with("<!") || self.rest().starts_with("<?") {
                return Err(format!("unsupported markup at {}", self.pos));
            }
            children.push(Node::Element(self.element()?));
        }
    }
}

/// Decodes references and applies what a real parser does to literal text: line-end
/// normalization (CR LF and lone CR read as LF) and, in attribute values, whitespace
/// normalization (literal tab, CR and LF read as a space). Characters written as references
/// are kept as they are, which is how the writer preserves them.
fn decode(raw: &str, attribute: bool) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '&' => {
                let semi = raw[i..]
                    .find(';')
                    .ok_or_else(|| format!("unterminated reference in {raw:?}"))?;
                let entity = &raw[i + 1..i + semi];
                out.push(reference(entity)?);
                while chars.peek().is_some_and(|&(j, _)| j <= i + semi) {
                    chars.next();
                }
            }
            '\r' => {
                if chars.peek().is_some_and(|&(_, n)| n == '\n') {
                    chars.next();
                }
                out.push(if attribute { ' ' } else { '\n' });
            }
            '\n' | '\t' if attribute => out.push(' '),
            c => out.push(c),
        }
    }
    Ok(out)
}

fn reference(entity: &str) -> Result<char, String> {
    Ok(match entity {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        _ => {
            let code = if let Some(hex) = entity.strip_prefix("#x") {
                u32::from_str_radix(hex, 16)
            } else if let Some(dec) = entity.strip_prefix('#') {
                dec.parse()
            } else {
                return Err(format!("unknown entity &{entity};"));
            }
            .map_err(|e| format!("bad reference &{entity};: {e}"))?;
            char::from_u32(code)
                .filter(|c| is_xml_char(*c))
                .ok_or_else(|| format!("reference to a forbidden character &{entity};"))?
        }
    })
}
