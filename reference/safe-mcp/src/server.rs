//! The rmcp face of the terminal: `run_command` and `explain_command`, each returning an
//! [`OperationResult`] as structured content, a refusal (`ok: false`) with `isError: true`
//! (`src/blocking.rs`). Bodies run on the blocking pool (they fsync the audit trail and wait
//! for the child).

use std::sync::{Arc, OnceLock};

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{ListToolsResult, PaginatedRequestParams, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::blocking::{Answer, on_blocking_pool};
use crate::result::OperationResult;
use crate::terminal::Terminal;

/// `run_command` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RunCommandInput {
    /// The command line: a program from the allowlist and its arguments. No shell is used;
    /// shell metacharacters are refused.
    pub command: String,
    /// Working directory inside the jail root (relative to it, or absolute inside it).
    #[serde(default)]
    pub cwd: Option<String>,
}

/// `explain_command` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExplainCommandInput {
    /// The command line to evaluate.
    pub command: String,
}

/// The MCP server for `safe-mcp terminal`.
#[derive(Clone)]
pub struct TerminalServer {
    terminal: Arc<Terminal>,
}

impl std::fmt::Debug for TerminalServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalServer").finish_non_exhaustive()
    }
}

/// The terminal's tools as `tools/list` reports them.
///
/// Schemas are in the portable spelling (no non-standard `format`, no `type` arrays; see
/// [`mcp_stdio_guard::schema`]), built once.
pub fn list_tools() -> Vec<Tool> {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            TerminalServer::tool_router()
                .list_all()
                .into_iter()
                .map(mcp_stdio_guard::schema::portable_tool)
                .collect()
        })
        .clone()
}

impl TerminalServer {
    /// Wraps a configured terminal.
    pub fn new(terminal: Terminal) -> Self {
        Self {
            terminal: Arc::new(terminal),
        }
    }

    async fn blocking<F>(&self, action: &'static str, f: F) -> Answer
    where
        F: FnOnce(&Terminal) -> OperationResult + Send + 'static,
    {
        on_blocking_pool(&self.terminal, action, f).await
    }
}

#[tool_router]
impl TerminalServer {
    #[tool(
        name = "run_command",
        description = "Evaluate a command against the policy and, if allowed, run it without a \
            shell inside the jail root (optional cwd inside the jail). Returns an \
            OperationResult; a nonzero exit code is still ok: true.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn run_command(
        &self,
        Parameters(input): Parameters<RunCommandInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("run_command", move |t| {
            t.run_command(&input.command, input.cwd.as_deref())
        })
        .await
    }

    #[tool(
        name = "explain_command",
        description = "Dry run: the verdict run_command would reach for this command, without \
            running anything.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn explain_command(
        &self,
        Parameters(input): Parameters<ExplainCommandInput>,
    ) -> Result<Json<OperationResult>, Json<OperationResult>> {
        self.blocking("explain_command", move |t| {
            t.explain_command(&input.command)
        })
        .await
    }
}

#[tool_handler(
    name = "safe-mcp-terminal",
    instructions = "An allowlisted terminal. Call explain_command to learn whether a command would be allowed; run_command runs it without a shell inside the jail. Decide from `ok` and `code`, not from `reason`."
)]
impl rmcp::ServerHandler for TerminalServer {
    /// [`list_tools`] on one page; a cursor (none is ever issued) is invalid params.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        mcp_stdio_guard::listing::one_page(list_tools(), request.as_ref(), &context)
    }
}
