//! `list_tools` follows an upstream's `nextCursor` to the last page (MCP 2025-11-25,
//! server/utilities/pagination: a result with `nextCursor` has more pages, fetched by passing
//! the cursor back unchanged), so the hub exposes every tool of each upstream; an empty
//! cursor ends the list.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::*;
use crate::config::InstanceId;

/// A fake upstream serving `tools/list` from `pages` (cursor -> result); any other cursor
/// gets -32602. Reports every request it receives.
fn paged_upstream(
    pages: Vec<(Option<&'static str>, Value)>,
) -> (Arc<Session>, mpsc::UnboundedReceiver<Value>) {
    let (hub_in, up_in, mut up_out, hub_out) = test_pipes();
    let (seen_tx, seen) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(up_in).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let _ = seen_tx.send(message.clone());
            let cursor = message["params"]["cursor"].as_str();
            let answer = match pages.iter().find(|(c, _)| *c == cursor) {
                Some((_, result)) => {
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": result})
                }
                None => json!({"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": -32602, "message": "invalid cursor"}}),
            };
            let _ = up_out.write_all(format!("{answer}\n").as_bytes()).await;
        }
    });
    let id = InstanceId::try_from("paged".to_owned()).expect("id");
    (Session::start(id, hub_in, hub_out), seen)
}

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

fn names(tools: &[Box<RawValue>]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| serde_json::from_str::<Value>(t.get()).ok())
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn every_page_is_listed_and_an_empty_cursor_ends_the_list() {
    bounded(async {
        let (session, mut seen) = paged_upstream(vec![
            (
                None,
                json!({"tools": [tool("a"), tool("b")], "nextCursor": "page-2"}),
            ),
            (
                Some("page-2"),
                json!({"tools": [tool("c")], "nextCursor": "page-3"}),
            ),
            (
                Some("page-3"),
                json!({"tools": [tool("d")], "nextCursor": ""}),
            ),
        ]);
        let tools = list_tools(&session).await.map_err(|_| "list_tools failed");
        session.close();
        assert_eq!(
            tools.map(|t| names(&t)),
            Ok(vec!["a".into(), "b".into(), "c".into(), "d".into()])
        );
        let mut cursors = Vec::new();
        while let Ok(message) = seen.try_recv() {
            cursors.push(message["params"]["cursor"].clone());
        }
        assert_eq!(cursors, [Value::Null, json!("page-2"), json!("page-3")]);
    })
    .await;
}
