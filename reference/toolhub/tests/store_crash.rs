//! The approval store under SIGKILL: the server killed at a random moment while it creates or
//! consumes a request, the admin CLI killed while it approves. After every kill the store
//! opens, no acknowledged request or approval is lost, a consumed request is never resumable
//! again and no approved command runs twice.
//!
//! Each trial runs one shell request through create, approve and consume with a kill in each
//! phase; the command appends its own token to a log, so a second run would show. The kill
//! moments are drawn from a seeded generator (the trial number), spread over the few
//! milliseconds each operation takes; the delay chooses when to kill, it synchronises nothing.
//! `STORE_CRASH_TRIALS` sets the number of trials (default 12, the bounded sample `cargo test`
//! runs; the figures in the note come from `STORE_CRASH_TRIALS=300`).

mod common;

use std::time::{Duration, Instant};

use std::collections::BTreeMap;

use common::{ADMIN, Sandbox};
use serde_json::{Value, json};

/// A small deterministic generator (xorshift64*), so a failing trial can be rerun by number.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }

    fn delay(&mut self, max_micros: u64) -> Duration {
        Duration::from_micros(self.below(max_micros + 1))
    }
}

/// The status of every request the admin CLI lists, by id; the CLI must succeed (the store
/// always opens).
fn statuses(sb: &Sandbox) -> Vec<(String, String)> {
    let out = sb
        .admin(&["list"], "")
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out)
        .expect("utf8")
        .lines()
        .filter(|l| l.starts_with("req_"))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let id = parts.next().unwrap_or_default().to_owned();
            let status = parts.next().unwrap_or_default().to_owned();
            (id, status)
        })
        .collect()
}

fn status_of(sb: &Sandbox, id: &str) -> Option<String> {
    statuses(sb)
        .into_iter()
        .find(|(rid, _)| rid == id)
        .map(|(_, s)| s)
}

/// How many times the command of `token` ran.
fn runs(sb: &Sandbox, token: &str) -> usize {
    std::fs::read_to_string(sb.dir.path().join("ran.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| *l == token)
        .count()
}

/// A `tools/call` sent, then the server SIGKILLed after `delay`; the answer if it came first.
fn call_then_kill(sb: &Sandbox, name: &str, args: Value, delay: Duration) -> Option<Value> {
    let mut server = sb.server();
    server.initialize();
    server.send(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": name, "arguments": args}})
        .to_string(),
    );
    let started = Instant::now();
    while started.elapsed() < delay {
        std::hint::spin_loop();
    }
    server
        .kill_now()
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["id"] == json!(7))
        .map(|m| m["result"]["structuredContent"].clone())
}

/// The admin CLI approving `id`, SIGKILLed after `delay` (if still running); whether it
/// finished on its own with success.
fn approve_then_kill(sb: &Sandbox, id: &str, delay: Duration) -> bool {
    use std::io::Write;
    let mut child = std::process::Command::new(ADMIN)
        .env_clear()
        .envs(sb.env())
        .args(["approve", id])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn admin");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"APPROVE\n");
    }
    let started = Instant::now();
    while started.elapsed() < delay {
        if let Ok(Some(status)) = child.try_wait() {
            return status.success();
        }
        std::hint::spin_loop();
    }
    let _ = child.kill();
    child.wait().expect("reap admin").success()
}

/// Where the kills landed, counted per phase, to show the trials hit every side of each
/// commit.
type Tally = BTreeMap<&'static str, usize>;

/// How long each operation takes here when nothing kills it: the kill moments are drawn from
/// zero to twice it (four times for a consume, so some kills land after its command ran), so
/// kills land before, during and after each commit.
struct Windows {
    create: u64,
    approve: u64,
    consume: u64,
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Times one unkilled create, approve and consume.
fn measure_windows() -> Windows {
    let sb = Sandbox::new();
    let args = json!({"program": "/bin/sh", "args": ["-c", "true"]});
    let mut server = sb.server();
    server.initialize();
    let t = Instant::now();
    let made = server.structured("shell.run", args);
    let create = micros(t.elapsed());
    let id = made["request_id"].as_str().expect("request id").to_owned();
    let t = Instant::now();
    sb.admin(&["approve", &id], "APPROVE\n").success();
    let approve = micros(t.elapsed());
    let t = Instant::now();
    let done = server.structured("shell.run_approved", json!({"request_id": id}));
    let consume = micros(t.elapsed());
    assert_eq!(done["outcome"], "SUCCEEDED", "{done}");
    Windows {
        create: create * 2,
        approve: approve * 2,
        consume: consume * 4,
    }
}

fn trial(n: u64, windows: &Windows, tally: &mut Tally) {
    let sb = Sandbox::new();
    let mut rng = Rng::new(n);
    let token = format!("token-{n}");
    let log = sb.dir.path().join("ran.log");
    let args = json!({"program": "/bin/sh",
                      "args": ["-c", "echo \"$0\" >> \"$1\"", token, log.display().to_string()]});

    // Create, killed at a random moment: an acknowledged request exists afterwards.
    let answer = call_then_kill(&sb, "shell.run", args.clone(), rng.delay(windows.create));
    let listed = statuses(&sb);
    *tally
        .entry(match (&answer, listed.is_empty()) {
            (Some(_), _) => "create: answered before the kill",
            (None, false) => "create: stored, killed before answering",
            (None, true) => "create: killed before storing",
        })
        .or_default() += 1;
    let id = match answer.as_ref().and_then(|a| a["request_id"].as_str()) {
        Some(id) => {
            assert_eq!(
                status_of(&sb, id).as_deref(),
                Some("PENDING"),
                "trial {n}: an acknowledged request was lost: {listed:?}"
            );
            id.to_owned()
        }
        None => match listed.first() {
            Some((id, status)) => {
                assert_eq!(status, "PENDING", "trial {n}");
                id.clone()
            }
            // Killed before the request was stored: make it now.
            None => {
                let mut server = sb.server();
                server.initialize();
                let made = server.structured("shell.run", args.clone());
                made["request_id"].as_str().expect("request id").to_owned()
            }
        },
    };
    assert!(
        statuses(&sb).len() <= 1,
        "trial {n}: a request appeared twice"
    );

    // Approve, the admin killed at a random moment: PENDING or APPROVED, nothing else; a
    // successful approval is never lost.
    let approved = approve_then_kill(&sb, &id, rng.delay(windows.approve));
    let now = status_of(&sb, &id);
    *tally
        .entry(match (approved, now.as_deref()) {
            (true, _) => "approve: finished before the kill",
            (false, Some("APPROVED")) => "approve: stored, killed before exiting",
            _ => "approve: killed before storing",
        })
        .or_default() += 1;
    if approved {
        assert_eq!(now.as_deref(), Some("APPROVED"), "trial {n}: approval lost");
    } else {
        assert!(
            matches!(now.as_deref(), Some("PENDING" | "APPROVED")),
            "trial {n}: {now:?}"
        );
        if now.as_deref() == Some("PENDING") {
            sb.admin(&["approve", &id], "APPROVE\n").success();
        }
    }

    // Consume, the server killed at a random moment: consumed at most once, run at most once.
    let resume = json!({"request_id": id});
    let first = call_then_kill(
        &sb,
        "shell.run_approved",
        resume.clone(),
        rng.delay(windows.consume),
    );
    let after_kill = status_of(&sb, &id);
    assert!(
        matches!(after_kill.as_deref(), Some("APPROVED" | "CONSUMED")),
        "trial {n}: {after_kill:?}"
    );
    let ran_before = runs(&sb, &token);
    *tally
        .entry(match (&first, after_kill.as_deref(), ran_before) {
            (Some(_), _, _) => "consume: answered before the kill",
            (None, Some("CONSUMED"), 1) => "consume: consumed and ran, killed before answering",
            (None, Some("CONSUMED"), _) => "consume: consumed, killed before running",
            _ => "consume: killed before consuming",
        })
        .or_default() += 1;
    assert!(ran_before <= 1, "trial {n}: ran {ran_before} times");
    if first.is_some() {
        assert_eq!(
            after_kill.as_deref(),
            Some("CONSUMED"),
            "trial {n}: answered but not consumed"
        );
    }
    let mut server = sb.server();
    server.initialize();
    let second = server.structured("shell.run_approved", resume.clone());
    match after_kill.as_deref() {
        Some("APPROVED") => {
            assert_eq!(second["outcome"], "SUCCEEDED", "trial {n}: {second}");
            assert_eq!(ran_before, 0, "trial {n}: ran without being consumed");
        }
        _ => assert_eq!(
            second["outcome"], "APPROVAL_CONSUMED",
            "trial {n}: {second}"
        ),
    }
    let third = server.structured("shell.run_approved", resume);
    assert_eq!(third["outcome"], "APPROVAL_CONSUMED", "trial {n}: {third}");
    drop(server);
    assert!(
        runs(&sb, &token) <= 1,
        "trial {n}: an approved command ran twice"
    );
    assert_eq!(
        status_of(&sb, &id).as_deref(),
        Some("CONSUMED"),
        "trial {n}"
    );
}

#[test]
fn the_store_survives_sigkill_of_the_server_and_the_admin_cli() {
    let trials: u64 = std::env::var("STORE_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let started = Instant::now();
    let mut tally = Tally::new();
    let windows = measure_windows();
    for n in 0..trials {
        trial(n, &windows, &mut tally);
    }
    eprintln!(
        "{trials} trials in {:?}; kill windows (µs): create {}, approve {}, consume {}",
        started.elapsed(),
        windows.create,
        windows.approve,
        windows.consume
    );
    for (outcome, count) in &tally {
        eprintln!("  {count:>4}  {outcome}");
    }
}
