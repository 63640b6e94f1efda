//! `send_bytes`: write bytes no text can hold (invalid UTF-8, a NUL, a lone CR) to the
//! server's stdin, written as hexadecimal.

use super::{Build, Modifiers, StepKindInfo};

/// The descriptor of `send_bytes`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "send_bytes",
    doc: "Write these bytes, given as hexadecimal pairs (spaces allowed), to the server's stdin, then a newline unless `newline: false`.",
    observes: false,
    modifiers: &["newline"],
};

/// What `send_bytes:` holds: hexadecimal pairs.
pub type Raw = String;

/// A `send_bytes` step.
#[derive(Debug, Clone)]
pub struct SendBytes {
    /// The bytes, decoded when the scenario was loaded.
    pub bytes: Vec<u8>,
    /// Whether a newline follows them.
    pub newline: bool,
}

pub(super) fn build(hex: Raw, m: &mut Modifiers, cx: &mut dyn Build) -> Option<(SendBytes, String)> {
    match decode(&hex) {
        Ok(bytes) => {
            let label = format!("send_bytes ({} bytes)", bytes.len());
            let newline = m.newline.unwrap_or(true);
            Some((SendBytes { bytes, newline }, label))
        }
        Err(message) => {
            cx.error(message);
            None
        }
    }
}

/// `"7b ff 0a"` -> `[0x7b, 0xff, 0x0a]`; whitespace between pairs is ignored.
fn decode(hex: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<char> = hex.chars().filter(|c| !c.is_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err("`send_bytes` takes hexadecimal pairs (an odd number of digits was given)".into());
    }
    digits
        .chunks(2)
        .map(|pair| {
            let text: String = pair.iter().collect();
            u8::from_str_radix(&text, 16)
                .map_err(|_| format!("`send_bytes`: {text:?} is not a hexadecimal byte"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn pairs_decode_and_anything_else_is_refused() {
        assert_eq!(decode("7b ff 0A"), Ok(vec![0x7b, 0xff, 0x0a]));
        assert_eq!(decode(""), Ok(vec![]));
        assert!(decode("7").is_err());
        assert!(decode("zz").is_err());
    }
}
