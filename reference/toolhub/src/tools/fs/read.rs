//! Direct reads: `filesystem.read_file` and `filesystem.list_directory`.

use mcp_safety_core::jail::{EntryKind, JailError, RelPath};

use crate::contract::{
    DirectoryEntry, ListDirectoryInput, ListDirectoryOutput, ReadFileInput, ReadFileOutput, codes,
};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::limits;

/// A jail refusal of a direct read, as a tool error with the jail's code.
fn refused_read(e: JailError) -> ToolError {
    ToolError::refused(e.code(), e.to_string())
}

impl Hub {
    /// `filesystem.read_file`
    pub fn read_file(&self, input: ReadFileInput) -> Result<ReadFileOutput, ToolError> {
        let path = RelPath::parse(&input.path).map_err(refused_read)?;
        let read = self
            .workspace
            .read_file(&path, limits::MAX_READ_FILE_BYTES)
            .map_err(refused_read)?;
        let content = String::from_utf8(read.bytes)
            .map_err(|_| ToolError::refused(codes::NOT_UTF8, "file is not UTF-8 text"))?;
        Ok(ReadFileOutput {
            path: path.display().to_string(),
            size: read.size,
            sha256: read.sha256,
            content,
        })
    }

    /// `filesystem.list_directory`
    pub fn list_directory(
        &self,
        input: ListDirectoryInput,
    ) -> Result<ListDirectoryOutput, ToolError> {
        let path = match input.path.as_deref() {
            None => RelPath::root(),
            Some(p) => RelPath::parse(p).map_err(refused_read)?,
        };
        let Some(entries) = self
            .workspace
            .list_dir_at_most(&path, limits::MAX_DIRECTORY_ENTRIES)
            .map_err(refused_read)?
        else {
            return Err(ToolError::refused(
                "TOO_MANY_ENTRIES",
                format!(
                    "directory has more than the limit of {} entries",
                    limits::MAX_DIRECTORY_ENTRIES
                ),
            ));
        };
        Ok(ListDirectoryOutput {
            path: path.display().to_string(),
            entries: entries
                .into_iter()
                .map(|e| DirectoryEntry {
                    name: e.name,
                    kind: match e.kind {
                        EntryKind::File => "file",
                        EntryKind::Dir => "directory",
                        EntryKind::Symlink => "symlink",
                        EntryKind::Other => "other",
                    }
                    .to_string(),
                    size: e.size,
                })
                .collect(),
        })
    }
}
