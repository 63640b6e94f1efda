//! The guard offers every line to the intercept first, in order, with the lifecycle it saw;
//! what the intercept takes never reaches rmcp, and its answers share the one writer.

use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::ServerHandler;
use rmcp::model::{InitializeResult, ServerCapabilities, ServerConfig};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;

use super::*;
use crate::{GuardOptions, serve_guarded_with};

#[derive(Debug, Clone)]
struct Plain;

impl ServerHandler for Plain {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Takes lines holding `take-me` (answering them itself), records every offer.
#[derive(Debug, Default)]
struct Taker {
    seen: Mutex<Vec<(String, Lifecycle)>>,
    out: OnceLock<LineSender>,
}

impl Intercept for Taker {
    fn attach(&self, lines: LineSender) {
        let _ = self.out.set(lines);
    }

    fn offer(&self, line: &[u8], lifecycle: Lifecycle) -> bool {
        let text = String::from_utf8_lossy(line).into_owned();
        let take = text.contains("take-me");
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((text, lifecycle));
        if take && let Some(out) = self.out.get() {
            let _ =
                out.send(b"{\"jsonrpc\":\"2.0\",\"id\":\"take-me\",\"result\":{\"taken\":true}}\n");
        }
        take
    }
}

#[tokio::test]
async fn lines_are_offered_first_with_the_lifecycle_and_taken_ones_stay_out_of_rmcp() {
    let taker = Arc::new(Taker::default());
    // Real pipes, as a client gives a server: the server's ends block, the test's are async.
    let (server_in, client) = std::io::pipe().expect("pipe");
    let (client_out, server_out) = std::io::pipe().expect("pipe");
    let mut client = pipe::Sender::from_owned_fd(OwnedFd::from(client)).expect("client in");
    let client_out = pipe::Receiver::from_owned_fd(OwnedFd::from(client_out)).expect("client out");
    let options = GuardOptions {
        intercept: Some(taker.clone()),
        ..GuardOptions::default()
    };
    let serve = tokio::spawn(serve_guarded_with(Plain, server_in, server_out, options));
    let mut lines = BufReader::new(client_out).lines();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("an answer within the deadline")
            .expect("read")
            .expect("a line")
    };
    client
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"take-me\",\"method\":\"tools/list\"}\n")
        .await
        .expect("write");
    assert!(next().await.contains(r#""taken":true"#));
    client
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n")
        .await
        .expect("write");
    assert!(next().await.contains(r#""protocolVersion":"2025-11-25""#));
    client
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
        .await
        .expect("write");
    assert_eq!(next().await, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    drop(client);
    tokio::time::timeout(Duration::from_secs(10), serve)
        .await
        .expect("the session ends at EOF")
        .expect("join");
    let seen = taker
        .seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .map(|(_, lifecycle)| *lifecycle)
        .collect::<Vec<_>>();
    assert_eq!(
        seen,
        [
            Lifecycle::NotStarted,
            Lifecycle::NotStarted,
            Lifecycle::Initialized
        ]
    );
    // Once the session is over, a line the intercept still sends is dropped, and stdout is
    // closed: the client reads the end of it.
    let out = taker.out.get().expect("attached");
    assert!(
        !out.send(b"{\"late\":true}\n"),
        "a line written after the session"
    );
    let rest = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("the end of stdout within the deadline")
        .expect("read");
    assert_eq!(rest, None);
}
