//! Engine bugs (`engine/bugs/`): each test states the correct behaviour and is ignored until
//! the engine does it.

use crate::{ENGINE, ENGINE_TARGET, FIXTURE_TARGET, run};

#[test]
fn bug_exit_observation_has_the_whole_output() {
    let dir = tempfile::tempdir().expect("scenario folder");
    for i in 0..32 {
        let text = format!(
            "name: engine/bugs/exit-output-{i}\nsuite: engine\nservers:\n  quitter:\n    env: \
             {{ ENGINE_FIXTURE_ARGS: \"--stderr-line quitting --exit-at-start 3\" }}\nsteps:\n  \
             - wait_exit: {{}}\n    within: 10s\n    expect: {{ code: 3, stderr: \"quitting\\n\" }}\n"
        );
        std::fs::write(dir.path().join(format!("exit-{i:02}.yaml")), text).expect("write");
    }
    let folder = dir.path().display().to_string();
    let o = run(ENGINE_TARGET, &[&folder], &["-j", "32"]);
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_progress_is_per_call_inside_repeat() {
    let o = run(
        FIXTURE_TARGET,
        &[&format!("{ENGINE}/bugs/repeat-progress.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_no_message_sees_responses() {
    let file = format!("{ENGINE}/bugs/no-message-response.yaml");
    let o = run(FIXTURE_TARGET, &[&file], &[]);
    let s = o.scenario("engine/bugs/no-message-response");
    assert_eq!(s["status"], "failed", "a response with that id did arrive");
    assert_eq!(s["failure"]["step_label"], "no_response h");
}

#[test]
fn bug_await_does_not_cross_a_restart() {
    let o = run(
        FIXTURE_TARGET,
        &[&format!("{ENGINE}/bugs/await-after-restart.yaml")],
        &[],
    );
    let f = &o.scenario("engine/bugs/await-after-restart")["failure"];
    assert_eq!(f["step_label"], "await old", "{f}");
    let shown = format!("{} {}", f["message"], f["actual"]);
    assert!(
        !shown.contains("a different request"),
        "await old must not return the response of `fresh`: {shown}"
    );
}

#[test]
fn bug_within_observes_at_its_deadline() {
    let o = run(
        ENGINE_TARGET,
        &[&format!("{ENGINE}/bugs/within-last-attempt.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_default_server_is_the_first_declared() {
    let o = run(
        ENGINE_TARGET,
        &[&format!("{ENGINE}/bugs/servers-order.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_set_expands_in_written_order() {
    let o = run(
        FIXTURE_TARGET,
        &[&format!("{ENGINE}/bugs/set-order.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}
