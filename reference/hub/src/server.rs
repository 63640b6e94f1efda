//! The outward MCP face of the hub: an rmcp server advertising tools only, in both protocol
//! generations.
//!
//! - Legacy (`initialize` handshake): `initialize` may ask for 2024-11-05, 2025-03-26,
//!   2025-06-18 or 2025-11-25 (answered as asked), 2026-07-28 (answered as asked through the
//!   legacy lifecycle, as the mcp-hub document's "Protocol compatibility" lists it; rmcp would
//!   answer 2025-11-25, so the stdio guard writes the asked version into that one answer, see
//!   [`guard_options`]), or anything else (answered 2025-11-25).
//! - Modern (2026-07-28, <https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>,
//!   "Protocol Version Negotiation"): rmcp answers `server/discover` (every version above,
//!   `serverInfo` in the result `_meta`) and serves requests carrying the protocol `_meta` keys
//!   statelessly, rejecting missing keys with -32602 and unknown versions with -32022. A
//!   dual-era server "selects its behavior from how the client opens" (same page, after the
//!   compatibility matrix), which is what rmcp does.
//!
//! Either way the hub speaks to each upstream in that upstream's own generation (see
//! [`crate::upstream`]): the client's `io.modelcontextprotocol/*` request keys describe the
//! client-to-hub hop and are never forwarded (calls are rebuilt from name and arguments, and
//! [`crate::router`] strips them from forwarded cancellations).
//!
//! `tools/call` and `tools/list` requests mostly never reach this handler: the front
//! ([`crate::front`]) takes them from stdin and answers from the upstream's JSON text. The
//! handler serves what the front leaves to rmcp, the same way, through rmcp's types.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelledNotificationParam, Implementation,
    InitializeResult, ListToolsResult, NotificationMetaObject, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{RoleServer, ServerHandler};
use tokio::sync::Notify;

use crate::front::Front;
use crate::router::Router;

/// The version answered to clients asking `initialize` for one the hub does not know.
pub const DEFAULT_PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;
/// The newest version the hub serves: the modern generation's.
pub const NEWEST_PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2026_07_28;

/// The guard settings the hub serves with: 2026-07-28 is answered as asked, `input_closed`
/// is notified when the client closes stdin, and the front ([`crate::front`]) takes the calls
/// and listings it relays itself before rmcp sees them.
pub fn guard_options(
    input_closed: Arc<Notify>,
    router: Arc<Router>,
) -> mcp_stdio_guard::GuardOptions {
    let supported = ProtocolVersion::known_up_to(&NEWEST_PROTOCOL_VERSION).to_vec();
    mcp_stdio_guard::GuardOptions {
        echo_initialize_versions: vec![ProtocolVersion::V_2026_07_28],
        input_closed: Some(input_closed),
        intercept: Some(Arc::new(Front::new(router, supported))),
    }
}

/// The hub's rmcp server handler.
#[derive(Debug, Clone)]
pub struct HubServer {
    router: Arc<Router>,
}

impl HubServer {
    /// A handler serving `router`'s inventory.
    pub fn new(router: Arc<Router>) -> Self {
        Self { router }
    }
}

impl ServerHandler for HubServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_protocol_version(DEFAULT_PROTOCOL_VERSION)
            .with_server_info(Implementation::new("mcp-hub", crate::VERSION))
            .with_instructions(
                "mcp-hub: one tool inventory aggregated from several MCP servers. Tools only.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST_PROTOCOL_VERSION))
    }

    /// The whole inventory on one page; a cursor (the hub never issues one) is invalid params.
    /// Only what the front leaves to rmcp comes here (see [`crate::front`]): rmcp's typed
    /// entries, which lack what rmcp's `Tool` does not know.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        mcp_stdio_guard::listing::refuse_cursor(request.as_ref())?;
        Ok(ListToolsResult::with_all_items(
            self.router.registry().tools().to_vec(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.router.call(request, context).await
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        // rmcp 3.11 moves a notification's extensions into `context.extensions` before it
        // takes the `_meta` out of them for `context.meta` (service.rs, the notification
        // branch of the serve loop), so the client's `_meta` arrives there and `context.meta`
        // is empty. The document: the hub "preserves the cancellation reason and metadata".
        let meta = if context.meta.is_empty() {
            context
                .extensions
                .get::<NotificationMetaObject>()
                .cloned()
                .unwrap_or(context.meta)
        } else {
            context.meta
        };
        self.router.cancel(notification, meta);
    }
}
