//! Reading, locking and atomically replacing `approvals.json`; a malformed or unknown-version
//! file fails closed and is never reset.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::stored::StoredRecord;
use super::{ApprovalStore, STORE_VERSION, StoreError};
use crate::fsio::{FileLock, atomic_write};

/// The loaded store: parsed records plus, for each record unchanged since loading, its
/// original JSON text, so saving a large store copies untouched records instead of
/// re-serializing them. Every record is still fully parsed (and validated) on load.
#[derive(Debug, Default)]
pub(super) struct StoreFile {
    pub(super) version: u64,
    pub(super) records: Vec<StoredRecord>,
    pub(super) raw: Vec<Option<Box<RawValue>>>,
}

impl StoreFile {
    pub(super) fn new(records: Vec<StoredRecord>) -> Self {
        let raw = records.iter().map(|_| None).collect();
        StoreFile {
            version: u64::from(STORE_VERSION),
            records,
            raw,
        }
    }

    pub(super) fn push(&mut self, r: StoredRecord) {
        self.records.push(r);
        self.raw.push(None);
    }

    /// Mutable access that drops the cached text of that record.
    pub(super) fn touch(&mut self, idx: usize) -> &mut StoredRecord {
        self.raw[idx] = None;
        &mut self.records[idx]
    }

    pub(super) fn retain(&mut self, mut keep: impl FnMut(&StoredRecord) -> bool) {
        let records = std::mem::take(&mut self.records);
        let raw = std::mem::take(&mut self.raw);
        for (r, t) in records.into_iter().zip(raw) {
            if keep(&r) {
                self.records.push(r);
                self.raw.push(t);
            }
        }
    }
}

/// The on-disk shape, read without building records yet.
#[derive(Deserialize)]
struct RawStoreFile<'a> {
    version: u64,
    #[serde(borrow)]
    records: Vec<&'a RawValue>,
}

impl ApprovalStore {
    pub(super) fn find(&self, file: &StoreFile, request_id: &str) -> Option<usize> {
        file.records
            .iter()
            .position(|r| r.request_id == request_id && r.workspace_id == self.workspace_id)
    }

    pub(super) fn lock(&self) -> Result<FileLock, StoreError> {
        Ok(FileLock::acquire(&self.lock_path, self.lock_timeout)?)
    }

    pub(super) fn load(&self) -> Result<(StoreFile, u64), StoreError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((StoreFile::new(Vec::new()), 0));
            }
            Err(e) => return Err(e.into()),
        };
        // Fast path: the current format. On failure, look closer to report an unknown
        // version as such (never guess, never reset).
        match serde_json::from_slice::<RawStoreFile<'_>>(&bytes) {
            Ok(file) if file.version == u64::from(STORE_VERSION) => {
                let mut records = Vec::with_capacity(file.records.len());
                let mut raw = Vec::with_capacity(file.records.len());
                for (i, r) in file.records.into_iter().enumerate() {
                    let rec: StoredRecord = serde_json::from_str(r.get())
                        .map_err(|e| StoreError::Malformed(format!("record {i}: {e}")))?;
                    records.push(rec);
                    raw.push(Some(r.to_owned()));
                }
                let file = StoreFile {
                    version: u64::from(STORE_VERSION),
                    records,
                    raw,
                };
                Ok((file, bytes.len() as u64))
            }
            Ok(file) => Err(StoreError::UnsupportedVersion(file.version)),
            Err(e) => {
                let probe: Value = serde_json::from_slice(&bytes)
                    .map_err(|e| StoreError::Malformed(format!("not JSON ({e})")))?;
                match probe.get("version").and_then(Value::as_u64) {
                    Some(v) if v != u64::from(STORE_VERSION) => {
                        Err(StoreError::UnsupportedVersion(v))
                    }
                    Some(_) => Err(StoreError::Malformed(e.to_string())),
                    None => Err(StoreError::Malformed("missing version".into())),
                }
            }
        }
    }

    pub(super) fn save(&self, file: &StoreFile) -> Result<(), StoreError> {
        let bytes = serialize(file)?;
        atomic_write(&self.path, &bytes)?;
        Ok(())
    }
}

/// `{"version":1,"records":[...]}` plus a newline, compact; untouched records are copied
/// from their loaded text.
pub(super) fn serialize(file: &StoreFile) -> Result<Vec<u8>, StoreError> {
    let cached: usize = file.raw.iter().flatten().map(|r| r.get().len() + 1).sum();
    let mut out = Vec::with_capacity(cached + 256 * (file.records.len() + 1));
    out.extend_from_slice(format!("{{\"version\":{},\"records\":[", file.version).as_bytes());
    for (i, (rec, raw)) in file.records.iter().zip(&file.raw).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match raw {
            Some(text) => out.extend_from_slice(text.get().as_bytes()),
            None => {
                serde_json::to_writer(&mut out, rec).map_err(|e| StoreError::Io(e.to_string()))?
            }
        }
    }
    out.extend_from_slice(b"]}\n");
    Ok(out)
}
