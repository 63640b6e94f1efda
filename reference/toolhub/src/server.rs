//! The rmcp server: the 14 Contract V1 tools, their annotations and schemas.
//!
//! Inputs are `Parameters<T>` (input schema from `T`), outputs `Json<T>` (structuredContent +
//! outputSchema from `T`). Bodies run on the blocking pool (they lock and fsync state files).
//! The tool list is available without a running server through [`list_tools`], which the
//! contract test uses; `tools/list` serves exactly that list.

use std::sync::{Arc, OnceLock};

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{ListToolsResult, PaginatedRequestParams, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_handler, tool_router};

use crate::contract::{
    ApplyPatchInput, ApplyPatchOutput, AuditRecentInput, AuditRecentOutput, CapabilitiesOutput,
    GitDiffInput, GitDiffOutput, GitStatusOutput, ListDirectoryInput, ListDirectoryOutput,
    PingInput, ReadFileInput, ReadFileOutput, RequestIdInput, RequestStatusOutput, ShellRunInput,
    ShellRunOutput, WriteFileInput, WriteFileOutput,
};
use crate::error::ToolError;
use crate::hub::Hub;

/// The MCP face of a [`Hub`].
#[derive(Clone)]
pub struct ToolHubServer {
    hub: Arc<Hub>,
}

impl std::fmt::Debug for ToolHubServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolHubServer").finish_non_exhaustive()
    }
}

/// The tools exactly as `tools/list` reports them (sorted by name): the router's, with
/// schemas in the portable spelling (no non-standard `format`, no `type` arrays; see
/// [`mcp_stdio_guard::schema`]), built once.
pub fn list_tools() -> Vec<Tool> {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            ToolHubServer::tool_router()
                .list_all()
                .into_iter()
                .map(mcp_stdio_guard::schema::portable_tool)
                .collect()
        })
        .clone()
}

impl ToolHubServer {
    pub fn new(hub: Arc<Hub>) -> Self {
        Self { hub }
    }

    /// Runs `f` on the hub, on the blocking pool.
    async fn run<T, F>(&self, f: F) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce(&Hub) -> Result<T, ToolError> + Send + 'static,
    {
        let hub = self.hub.clone();
        tokio::task::spawn_blocking(move || f(&hub))
            .await
            .map_err(|e| ToolError::internal(format!("tool task failed: {e}")))?
    }
}

#[tool_router]
impl ToolHubServer {
    #[tool(
        name = "toolhub.ping",
        description = "Liveness check. Returns `pong` (or `pong: MESSAGE`)."
    )]
    async fn ping(&self, Parameters(input): Parameters<PingInput>) -> String {
        crate::tools::meta::ping(input)
    }

    #[tool(
        name = "toolhub.capabilities",
        description = "Contract version, package version, transport, the human approval model, \
            the approval-gated initial/resume tool mappings and public limits. Read-only and \
            deterministic.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn capabilities(&self) -> Result<Json<CapabilitiesOutput>, ToolError> {
        self.run(|hub| Ok(Json(hub.capabilities()))).await
    }

    #[tool(
        name = "toolhub.request_status",
        description = "Effective state of an approval request (strictly read-only: never \
            approves, rejects, consumes or extends). Unknown ids and ids of another workspace \
            give REFUSED / REQUEST_NOT_FOUND.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn request_status(
        &self,
        Parameters(input): Parameters<RequestIdInput>,
    ) -> Result<Json<RequestStatusOutput>, ToolError> {
        self.run(move |hub| hub.request_status(input).map(Json))
            .await
    }

    #[tool(
        name = "toolhub.audit_recent",
        description = "The newest audit events (bounded, redacted), oldest first.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn audit_recent(
        &self,
        Parameters(input): Parameters<AuditRecentInput>,
    ) -> Result<Json<AuditRecentOutput>, ToolError> {
        self.run(move |hub| hub.audit_recent(input).map(Json)).await
    }

    #[tool(
        name = "filesystem.list_directory",
        description = "List a workspace directory (the root when `path` is absent). Symlinks \
            are reported, never followed.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_directory(
        &self,
        Parameters(input): Parameters<ListDirectoryInput>,
    ) -> Result<Json<ListDirectoryOutput>, ToolError> {
        self.run(move |hub| hub.list_directory(input).map(Json))
            .await
    }

    #[tool(
        name = "filesystem.read_file",
        description = "Read a UTF-8 text file inside the workspace, with its size and SHA-256. \
            Paths outside the workspace and symlinks are refused.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_file(
        &self,
        Parameters(input): Parameters<ReadFileInput>,
    ) -> Result<Json<ReadFileOutput>, ToolError> {
        self.run(move |hub| hub.read_file(input).map(Json)).await
    }

    #[tool(
        name = "filesystem.write_file",
        description = "Request to replace or create a workspace file. Returns APPROVAL_REQUIRED \
            with an approval handle (refusals and expected_hash conflicts are reported at once); \
            after human approval call filesystem.write_file_approved.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn write_file(
        &self,
        Parameters(input): Parameters<WriteFileInput>,
    ) -> Result<Json<WriteFileOutput>, ToolError> {
        self.run(move |hub| hub.write_file(input).map(Json)).await
    }

    #[tool(
        name = "filesystem.write_file_approved",
        description = "Execute an APPROVED write request (single use). The file must still be \
            as it was at submission, else CONFLICT and nothing is written.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn write_file_approved(
        &self,
        Parameters(input): Parameters<RequestIdInput>,
    ) -> Result<Json<WriteFileOutput>, ToolError> {
        self.run(move |hub| hub.write_file_approved(input).map(Json))
            .await
    }

    #[tool(
        name = "filesystem.apply_patch",
        description = "Request to apply a single-file unified diff. Returns APPROVAL_REQUIRED \
            when the patch applies to the current file; after human approval call \
            filesystem.apply_patch_approved.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn apply_patch(
        &self,
        Parameters(input): Parameters<ApplyPatchInput>,
    ) -> Result<Json<ApplyPatchOutput>, ToolError> {
        self.run(move |hub| hub.apply_patch(input).map(Json)).await
    }

    #[tool(
        name = "filesystem.apply_patch_approved",
        description = "Execute an APPROVED patch request (single use). The file must still be \
            as it was at submission, else CONFLICT and nothing is written.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn apply_patch_approved(
        &self,
        Parameters(input): Parameters<RequestIdInput>,
    ) -> Result<Json<ApplyPatchOutput>, ToolError> {
        self.run(move |hub| hub.apply_patch_approved(input).map(Json))
            .await
    }

    #[tool(
        name = "git.status",
        description = "Read-only git status of the workspace.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn git_status(&self) -> Result<Json<GitStatusOutput>, ToolError> {
        self.run(|hub| hub.git_status().map(Json)).await
    }

    #[tool(
        name = "git.diff",
        description = "Read-only git diff of the workspace (or one path; `staged` for the index).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn git_diff(
        &self,
        Parameters(input): Parameters<GitDiffInput>,
    ) -> Result<Json<GitDiffOutput>, ToolError> {
        self.run(move |hub| hub.git_diff(input).map(Json)).await
    }

    #[tool(
        name = "shell.run",
        description = "Request a structured command (program + argument list, never a shell \
            string). External commands require human approval; resume with shell.run_approved.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn shell_run(
        &self,
        Parameters(input): Parameters<ShellRunInput>,
    ) -> Result<Json<ShellRunOutput>, ToolError> {
        self.run(move |hub| hub.shell_run(input).map(Json)).await
    }

    #[tool(
        name = "shell.run_approved",
        description = "Execute an APPROVED shell request (single use).",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn shell_run_approved(
        &self,
        Parameters(input): Parameters<RequestIdInput>,
    ) -> Result<Json<ShellRunOutput>, ToolError> {
        self.run(move |hub| hub.shell_run_approved(input).map(Json))
            .await
    }
}

#[tool_handler(
    name = "mcp-toolhub",
    instructions = "MCP ToolHub (Contract V1). Call toolhub.capabilities first. Mutations (filesystem.write_file, filesystem.apply_patch, shell.run) return APPROVAL_REQUIRED with an approval handle; a human approves out of band with mcp-toolhub-admin. Poll toolhub.request_status until APPROVAL_APPROVED, then call approval.resume_tool with only the request_id. Decide from outcome, approval and error; never parse messages. Never automate approval."
)]
impl rmcp::ServerHandler for ToolHubServer {
    /// [`list_tools`] on one page; a cursor (none is ever issued) is invalid params.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        mcp_stdio_guard::listing::one_page(list_tools(), request.as_ref(), &context)
    }
}
