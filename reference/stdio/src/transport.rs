//! The rmcp transport behind the guard: messages the guard already parsed come in, rmcp's
//! messages go out as lines through the one stdout writer. No second parse, no byte pipe.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ProtocolVersion, RequestId, ServerJsonRpcMessage,
    ServerResult,
};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use crate::intercept::LineSender;

/// rmcp's transport: `receive` takes the guard's forwarded messages, `send` serializes.
pub(crate) struct GuardTransport {
    /// Messages forwarded by the guard; closed when stdin ends.
    pub incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    /// The stdout writer.
    pub out: LineSender,
    /// Versions answered verbatim to `initialize` (see `GuardOptions`).
    pub echo_versions: Vec<ProtocolVersion>,
    /// The `initialize` request whose answer must name the version it asked for.
    pub echo: Option<(RequestId, ProtocolVersion)>,
    /// Set once an `initialize` answer is on stdout (the guard's
    /// [`crate::Lifecycle::Initialized`]).
    pub initialize_answered: Arc<AtomicBool>,
}

impl GuardTransport {
    /// Remembers an `initialize` asking for a version to echo.
    fn watch(&mut self, message: &ClientJsonRpcMessage) {
        if let ClientJsonRpcMessage::Request(req) = message
            && let ClientRequest::InitializeRequest(init) = &req.request
            && self.echo_versions.contains(&init.params.protocol_version)
        {
            self.echo = Some((req.id.clone(), init.params.protocol_version.clone()));
        }
    }

    /// Writes the asked version into the awaited `initialize` answer; true when `message` is
    /// an `initialize` answer.
    fn adjust(&mut self, message: &mut ServerJsonRpcMessage) -> bool {
        if let ServerJsonRpcMessage::Response(response) = message
            && let ServerResult::InitializeResult(result) = &mut response.result
        {
            if let Some((_, version)) = self.echo.take_if(|(id, _)| *id == response.id) {
                result.protocol_version = version;
            }
            return true;
        }
        false
    }
}

impl Transport<RoleServer> for GuardTransport {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "mcp-stdio-guard".into()
    }

    fn send(
        &mut self,
        mut item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let initialize = self
            .adjust(&mut item)
            .then(|| self.initialize_answered.clone());
        // Written here, not in the future: rmcp may run send futures concurrently, and lines
        // must keep the order in which rmcp made them. An `initialize` answer marks the
        // lifecycle under the writer's lock, before it is written: a line an intercept takes
        // once it sees the mark is answered after it, and a client that has read the answer
        // finds the mark set.
        let written = serde_json::to_vec(&item)
            .map_err(std::io::Error::other)
            .and_then(|mut line| {
                line.push(b'\n');
                let mark = || {
                    if let Some(answered) = initialize {
                        answered.store(true, Ordering::Release);
                    }
                };
                if self.out.send_marked(&line, mark) {
                    Ok(())
                } else {
                    Err(std::io::Error::new(
                        std::io::ErrorKind::BrokenPipe,
                        "stdout closed",
                    ))
                }
            });
        std::future::ready(written)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        let message = self.incoming.recv().await?;
        self.watch(&message);
        Some(message)
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}
