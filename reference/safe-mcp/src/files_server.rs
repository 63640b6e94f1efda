//! The rmcp face of the file organizer: six tools, none of which deletes, each returning an
//! [`OperationResult`] as structured content, a refusal (`ok: false`) with `isError: true`
//! (`src/blocking.rs`). Bodies run on the blocking pool (they fsync the audit trail and the
//! journal).

use std::sync::{Arc, OnceLock};

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{ListToolsResult, PaginatedRequestParams, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::blocking::{Answer, on_blocking_pool};
use crate::files::Organizer;
use crate::result::OperationResult;

/// `list_files` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListFilesInput {
    /// A folder inside the workspace (default: the workspace root).
    #[serde(default)]
    pub subdir: Option<String>,
}

/// No arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct NoInput {}

/// `apply_plan` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPlanInput {
    /// The plan id plan_organize returned (single-use).
    pub plan_id: String,
}

/// `move_file` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveFileInput {
    /// The file to move, relative to the workspace.
    pub src: String,
    /// The full destination path (not a folder), relative to the workspace.
    pub dest: String,
}

/// The MCP server for `safe-mcp files`.
#[derive(Clone)]
pub struct FilesServer {
    organizer: Arc<Organizer>,
}

impl std::fmt::Debug for FilesServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilesServer").finish_non_exhaustive()
    }
}

/// The organizer's tools as `tools/list` reports them.
///
/// Schemas are in the portable spelling (no non-standard `format`, no `type` arrays; see
/// [`mcp_stdio_guard::schema`]), built once.
pub fn list_tools() -> Vec<Tool> {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            FilesServer::tool_router()
                .list_all()
                .into_iter()
                .map(mcp_stdio_guard::schema::portable_tool)
                .collect()
        })
        .clone()
}

impl FilesServer {
    /// Wraps a configured organizer.
    pub fn new(organizer: Organizer) -> Self {
        // Finish (roll back) a transition a killed predecessor left half done.
        organizer.recover();
        Self {
            organizer: Arc::new(organizer),
        }
    }

    async fn blocking<F>(&self, action: &'static str, f: F) -> Answer
    where
        F: FnOnce(&Organizer) -> OperationResult + Send + 'static,
    {
        on_blocking_pool(&self.organizer, action, f).await
    }
}

#[tool_router]
impl FilesServer {
    #[tool(
        name = "list_files",
        description = "Read-only: each entry of the workspace (or subdir) with its size, \
            category, whether plan_organize would move it, and why not.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn list_files(
        &self,
        Parameters(input): Parameters<ListFilesInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("list_files", move |o| o.list_files(input.subdir.as_deref()))
            .await
    }

    #[tool(
        name = "plan_organize",
        description = "Propose moves of the workspace's files into category folders, and list \
            what is skipped and why. Changes nothing, not even folders. Returns a plan_id for \
            apply_plan.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn plan_organize(
        &self,
        Parameters(_): Parameters<NoInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("plan_organize", |o| o.plan_organize()).await
    }

    #[tool(
        name = "apply_plan",
        description = "Carry out a plan: every file is re-checked first; if any changed, moved \
            or vanished, or a destination appeared, nothing moves. A plan id is single-use.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn apply_plan(
        &self,
        Parameters(input): Parameters<ApplyPlanInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("apply_plan", move |o| o.apply_plan(&input.plan_id))
            .await
    }

    #[tool(
        name = "move_file",
        description = "Move one named file to a full destination path. An existing destination \
            is refused, never overwritten nor renamed around. Obeys protection rules only.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn move_file(
        &self,
        Parameters(input): Parameters<MoveFileInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("move_file", move |o| o.move_file(&input.src, &input.dest))
            .await
    }

    #[tool(
        name = "undo_last_action",
        description = "Reverse the most recent move or applied plan, as one action. Nothing is \
            overwritten to make room for a restored file.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn undo_last_action(
        &self,
        Parameters(_): Parameters<NoInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("undo_last_action", |o| o.undo_last_action())
            .await
    }

    #[tool(
        name = "redo_last_action",
        description = "Reapply the most recently undone action. New work clears the redo stack.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn redo_last_action(
        &self,
        Parameters(_): Parameters<NoInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("redo_last_action", |o| o.redo_last_action())
            .await
    }
}

#[tool_handler(
    name = "safe-mcp-files",
    instructions = "An undoable file organizer. list_files and plan_organize change nothing; apply_plan carries out a plan (all or nothing); move_file moves one named file; undo_last_action / redo_last_action. Nothing is ever deleted or overwritten. Decide from `ok` and `code`, not from `reason`."
)]
impl rmcp::ServerHandler for FilesServer {
    /// [`list_tools`] on one page; a cursor (none is ever issued) is invalid params.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        mcp_stdio_guard::listing::one_page(list_tools(), request.as_ref(), &context)
    }
}
