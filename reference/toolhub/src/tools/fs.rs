//! Filesystem tools, all through the core jail (`openat` + `O_NOFOLLOW`, never a path string
//! check): `read_file` and `list_directory` directly; `write_file` and `apply_patch` through the
//! approval lifecycle.
//!
//! Submission validates the path (refusals are REFUSED at once), checks `expected_hash`
//! (mismatch is CONFLICT at once), records the hash the file has now (`observed_sha256`, or
//! absent) in the protected payload, and returns APPROVAL_REQUIRED. The `_approved` resume
//! consumes the approval atomically BEFORE anything else (so any later failure still burns
//! it), then re-validates the path and writes atomically only if the file still has the
//! observed hash (checked by the jail immediately before the rename); otherwise CONFLICT and
//! nothing is written.

//!
//! The module is split by job: `payload` (the protected request payloads), `read`
//! (`read_file`, `list_directory`), `write` and `patch` (each tool's submission and resume).
//! The submit/consume/audit steps and the stop-to-lifecycle mapping are shared with the shell
//! tools (`tools::lifecycle`, `tools::refusal`).

mod patch;
mod payload;
mod read;
mod write;

pub use payload::{PatchPayload, WritePayload};

/// Hash comparison as the jail does it: hex, case-insensitive.
fn hashes_equal(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}
