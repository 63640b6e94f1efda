//! Unguessable identifiers. Request ids are bearer capabilities for resuming an approved
//! operation, so they come from the kernel's CSPRNG (`/dev/urandom`), never from a counter,
//! the clock or a seeded PRNG.

use std::io::{self, Read};

use crate::digest::to_hex;

/// `n` random bytes from the OS CSPRNG, hex encoded (`2n` characters).
pub fn random_hex(n: usize) -> io::Result<String> {
    let mut buf = vec![0u8; n];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(to_hex(&buf))
}

/// A new approval request id: `req_` followed by 128 random bits in hex (36 characters).
pub fn new_request_id() -> io::Result<String> {
    Ok(format!("req_{}", random_hex(16)?))
}

/// A new lifecycle trace id: `trace_` followed by 128 random bits in hex (38 characters).
pub fn new_trace_id() -> io::Result<String> {
    Ok(format!("trace_{}", random_hex(16)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_well_formed() {
        let a = new_request_id().unwrap();
        let b = new_request_id().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert!(a.starts_with("req_"));
        assert!(a[4..].bytes().all(|c| c.is_ascii_hexdigit()));
        assert!(new_trace_id().unwrap().starts_with("trace_"));
    }
}
