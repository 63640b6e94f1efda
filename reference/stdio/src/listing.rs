//! `tools/list` for servers whose whole inventory is one page.
//!
//! None of the reference servers paginates: each lists every tool in one result, without
//! `nextCursor`. So no cursor was ever handed out, and any cursor a client sends is one the
//! server never issued. MCP 2025-11-25 (server/utilities/pagination, "Error Handling"):
//! "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)"; 2026-07-28
//! keeps the rule. rmcp's generated `list_tools` ignores the cursor and lists everything
//! again, which a client walking pages cannot tell from a server that repeats itself.

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{CacheScope, ListToolsResult, PaginatedRequestParams, ProtocolVersion, Tool};
use rmcp::service::RequestContext;

/// Refuses any cursor with -32602 (see the module documentation); `Ok` for a first page.
pub fn refuse_cursor(request: Option<&PaginatedRequestParams>) -> Result<(), ErrorData> {
    // The cursor is not echoed: it is the client's, of any length.
    match request.and_then(|r| r.cursor.as_deref()) {
        None => Ok(()),
        Some(_) => Err(ErrorData::invalid_params(
            "invalid cursor: this server lists all its tools on one page and issues no cursors",
            None,
        )),
    }
}

/// The one-page `tools/list` result of `tools`, exactly as rmcp's `#[tool_handler]` builds
/// it (complete; for a 2026-07-28 request also `ttlMs: 0` and `cacheScope: public`), after
/// [`refuse_cursor`].
pub fn one_page(
    tools: Vec<Tool>,
    request: Option<&PaginatedRequestParams>,
    context: &RequestContext<RoleServer>,
) -> Result<ListToolsResult, ErrorData> {
    refuse_cursor(request)?;
    let modern = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    // `with_all_items` marks the result complete.
    let mut result = ListToolsResult::with_all_items(tools);
    if modern {
        result = result.with_ttl_ms(0).with_cache_scope(CacheScope::Public);
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_first_page_is_served() {
        assert!(refuse_cursor(None).is_ok());
        assert!(refuse_cursor(Some(&PaginatedRequestParams::default())).is_ok());
        let with = PaginatedRequestParams::default().with_cursor(Some("not-a-cursor".into()));
        let error = refuse_cursor(Some(&with)).expect_err("a cursor is refused");
        assert_eq!(error.code.0, -32602);
    }
}
