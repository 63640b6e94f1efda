//! Shared servers (`runner/share.rs`) through `runner::run_all`: a scenario that only asks
//! gets a server an earlier one used, and a failure on such a server is never its verdict.

use mcp_conformance::model::{self, LevelPolicy};
use mcp_conformance::report::Status;
use mcp_conformance::runner::share::ServerPool;
use mcp_conformance::runner::{RunOptions, TargetCtx, run_all};
use std::path::PathBuf;
use std::sync::Arc;

/// The fixture server with `args`, started in this folder (so every scenario's invocation
/// is the same and a server can be shared), with a pool or without.
fn target(args: &[&str], pool: Option<Arc<ServerPool>>) -> TargetCtx {
    let exe = env!("CARGO_BIN_EXE_mcp-conformance");
    let here = std::env::current_dir().expect("the current folder");
    let args: Vec<String> = std::iter::once("fixture-server")
        .chain(args.iter().copied())
        .map(|a| format!("{a:?}"))
        .collect();
    let text = format!(
        "name: fixture\nsuites: [protocol]\nserver:\n  command: {exe:?}\n  args: [{}]\n  cwd: {:?}\n",
        args.join(", "),
        here.display().to_string()
    );
    let target = model::parse_target(&text, "target.yaml").expect("a valid target");
    TargetCtx {
        target,
        display: "fixture".into(),
        dir: PathBuf::from("."),
        exe: PathBuf::from(exe),
        pool,
    }
}

fn scenario(name: &str, calls: usize) -> model::Scenario {
    let call = "  - call: echo\n    args: {text: hi}\n    expect: {text: hi}\n";
    let text = format!(
        "name: {name}\nsuite: protocol\nsteps:\n  - initialize: {{}}\n{}",
        call.repeat(calls)
    );
    model::parse_scenario(&text, name).expect("a valid scenario")
}

/// Runs the scenarios one after the other; their statuses.
fn run(tctx: TargetCtx, scenarios: Vec<model::Scenario>) -> Vec<Status> {
    let options = RunOptions {
        jobs: 1,
        levels: LevelPolicy::default(),
        ..RunOptions::default()
    };
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let report = runtime.block_on(async {
        let pool = tctx.pool.clone();
        let report = run_all(vec![(Arc::new(tctx), scenarios)], &options, |_| {}).await;
        if let Some(pool) = pool {
            pool.close(std::time::Duration::from_millis(500)).await;
        }
        report
    });
    report.scenarios.iter().map(|s| s.status).collect()
}

#[test]
fn a_failure_on_an_inherited_server_is_judged_again_on_a_fresh_one() {
    // The server exits right after answering its second call. Alone, each scenario passes;
    // the second, on the server the first left (one call answered), would lose it mid-way.
    let record = tempfile::NamedTempFile::new().expect("a temp file");
    let path = record.path().to_str().expect("utf-8").to_string();
    let args = ["--crash-after", "2", "--record", path.as_str()];
    let pool = Arc::new(ServerPool::default());
    let statuses = run(
        target(&args, Some(pool)),
        vec![
            scenario("share/one-call", 1),
            scenario("share/two-calls", 2),
        ],
    );
    assert_eq!(statuses, vec![Status::Passed, Status::Passed]);
    // Two handshakes: the first scenario's, which the second inherited and lost its server
    // on, and the second's own on a fresh server.
    let handshakes = std::fs::read_to_string(record.path())
        .expect("the record")
        .lines()
        .filter(|l| l.contains(r#""method":"initialize""#))
        .count();
    assert_eq!(
        handshakes, 2,
        "the second scenario inherited the first one's handshake"
    );
}

#[test]
fn scenarios_that_only_ask_run_on_one_server_one_after_the_other() {
    let record = tempfile::NamedTempFile::new().expect("a temp file");
    let path = record.path().to_str().expect("utf-8").to_string();
    let args = ["--record", path.as_str()];
    let pool = Arc::new(ServerPool::default());
    let scenarios = (0..4).map(|i| scenario(&format!("share/{i}"), 1)).collect();
    let statuses = run(target(&args, Some(pool)), scenarios);
    assert!(
        statuses.iter().all(|s| *s == Status::Passed),
        "{statuses:?}"
    );
    let text = std::fs::read_to_string(record.path()).expect("the record");
    let handshakes = text
        .lines()
        .filter(|l| l.contains(r#""method":"initialize""#))
        .count();
    let calls = text
        .lines()
        .filter(|l| l.contains(r#""tools/call""#))
        .count();
    assert_eq!((handshakes, calls), (1, 4), "{text}");
}
