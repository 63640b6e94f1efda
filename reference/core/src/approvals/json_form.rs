//! The `approvals.json` form of the store, `{"version":1,"records":[...]}` plus a newline: the
//! file the document names, which the store reads once to migrate it and writes as an export
//! (`mcp-toolhub-admin export`). It is also the measure of the byte ceiling: the document
//! bounds "its final serialized UTF-8 representation", and this is that representation.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::stored::StoredRecord;
use super::{STORE_VERSION, StoreError};

/// Everything after the last record.
const TAIL: &str = "]}\n";

/// Everything before the first record: `{"version":1,"records":[`.
fn header() -> String {
    format!("{{\"version\":{STORE_VERSION},\"records\":[")
}

/// The size of the serialized store holding `records` records whose JSON texts total
/// `record_bytes` bytes: header, texts, the commas between them, tail. The store keeps both
/// counts up to date in the same transaction as every change, so a ceiling check costs no
/// read of the records.
pub(super) fn serialized_size(records: u64, record_bytes: u64) -> u64 {
    header().len() as u64 + record_bytes + records.saturating_sub(1) + TAIL.len() as u64
}

/// The serialized store from its records' texts, in order.
pub(super) fn serialize<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut out = header().into_bytes();
    for (i, text) in texts.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(text.as_bytes());
    }
    out.extend_from_slice(TAIL.as_bytes());
    out
}

/// The on-disk shape, read without building records yet.
#[derive(Deserialize)]
struct RawStoreFile<'a> {
    version: u64,
    #[serde(borrow)]
    records: Vec<&'a RawValue>,
}

/// Parses an `approvals.json` into its records, each validated. A malformed file or one of
/// another version fails closed: the caller leaves it untouched and migrates nothing.
pub(super) fn parse(bytes: &[u8]) -> Result<Vec<StoredRecord>, StoreError> {
    match serde_json::from_slice::<RawStoreFile<'_>>(bytes) {
        Ok(file) if file.version == u64::from(STORE_VERSION) => file
            .records
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                serde_json::from_str(r.get())
                    .map_err(|e| StoreError::Malformed(format!("record {i}: {e}")))
            })
            .collect(),
        Ok(file) => Err(StoreError::UnsupportedVersion(file.version)),
        Err(e) => {
            // Look closer to report an unknown version as such (never guess, never reset).
            let probe: Value = serde_json::from_slice(bytes)
                .map_err(|e| StoreError::Malformed(format!("not JSON ({e})")))?;
            match probe.get("version").and_then(Value::as_u64) {
                Some(v) if v != u64::from(STORE_VERSION) => Err(StoreError::UnsupportedVersion(v)),
                Some(_) => Err(StoreError::Malformed(e.to_string())),
                None => Err(StoreError::Malformed("missing version".into())),
            }
        }
    }
}
