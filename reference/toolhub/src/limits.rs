//! Public, bounded limits (reported by `toolhub.capabilities`).

/// Original shell output characters retained before a truncation marker is appended.
pub const SHELL_OUTPUT_RETAINED_CHARS: u64 = 262_144;
/// Original git output characters retained before a truncation marker is appended.
pub const GIT_OUTPUT_RETAINED_CHARS: u64 = 262_144;
/// Largest file `filesystem.read_file` returns (and the largest file a patch applies to).
pub const MAX_READ_FILE_BYTES: u64 = 1024 * 1024;
/// Largest `content` `filesystem.write_file` accepts.
pub const MAX_WRITE_FILE_BYTES: u64 = 1024 * 1024;
/// Largest existing file `filesystem.write_file` replaces (refused as `TOO_LARGE` from its
/// size, before it is hashed).
pub const MAX_REPLACED_FILE_BYTES: u64 = mcp_safety_core::jail::MAX_REPLACED_FILE_BYTES;
/// Largest `patch` `filesystem.apply_patch` accepts.
pub const MAX_PATCH_BYTES: u64 = 1024 * 1024;
/// Most entries `filesystem.list_directory` returns.
pub const MAX_DIRECTORY_ENTRIES: usize = 10_000;
/// Default and largest `limit` of `toolhub.audit_recent`.
pub const AUDIT_RECENT_DEFAULT: usize = 50;
pub const AUDIT_RECENT_MAX: usize = 500;
/// Longest `request_id` accepted (anything longer cannot exist).
pub const MAX_REQUEST_ID_CHARS: usize = 128;
/// Characters of protected content the admin CLI previews.
pub const ADMIN_PREVIEW_CHARS: usize = 4000;
