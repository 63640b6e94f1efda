//! Configuration parsing and validation: every error names the file and the key.

use super::*;

const FILE: &str = "conf/hub.toml";

fn parse(text: &str) -> Result<HubConfig, ConfigError> {
    HubConfig::parse(Path::new(FILE), text)
}

/// Asserts that `text` is refused with a one-line message naming the file and `needles`.
fn refused(text: &str, needles: &[&str]) -> String {
    let message = match parse(text) {
        Ok(config) => panic!("accepted: {config:?}"),
        Err(e) => e.to_string(),
    };
    assert!(message.starts_with(FILE), "no file in: {message}");
    assert!(!message.contains('\n'), "not one line: {message}");
    for needle in needles {
        assert!(message.contains(needle), "{needle:?} missing in: {message}");
    }
    message
}

#[test]
fn the_minimal_server_takes_defaults() {
    let config = parse("[servers.filesystem]\ncommand = \"npx\"\n").expect("valid");
    let server = &config.servers[0];
    assert_eq!(server.id.as_str(), "filesystem");
    assert_eq!(server.command, "npx");
    assert!(server.args.is_empty() && server.env.is_empty());
    assert!(server.stderr);
    assert!(server.prefix.is_none());
    assert_eq!(server.filter, Filter::All);
    assert!(server.overrides.is_empty());
}

#[test]
fn every_field_and_file_order() {
    let config = parse(
        r#"
[servers.zeta]
command = "z"

[servers.alpha]
prefix = "gh"
command = "uvx"
args = ["mcp-server-github", "--mode", "admin"]
stderr = false
env = {
  GITHUB_TOKEN = "t",
  GITHUB_OWNER = "acme",
}

[servers.alpha.tools]
include = ["list_*", "create_comment"]
exclude = ["list_secret"]

[servers.alpha.tools.overrides.create_comment]
read_only = false
external = true

[servers.alpha.tools.overrides.delete_issue]
destructive = true
sends_external_data = false
"#,
    )
    .expect("valid");
    let ids: Vec<&str> = config.servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["zeta", "alpha"]);
    let alpha = &config.servers[1];
    assert_eq!(
        alpha.prefix.as_ref().map(ToString::to_string),
        Some("gh".into())
    );
    assert_eq!(alpha.args, ["mcp-server-github", "--mode", "admin"]);
    assert_eq!(
        alpha.env,
        [
            ("GITHUB_TOKEN".to_owned(), "t".to_owned()),
            ("GITHUB_OWNER".to_owned(), "acme".to_owned())
        ]
    );
    assert!(!alpha.stderr);
    assert!(alpha.exclude_ignored);
    assert!(alpha.filter.exposes("list_secret"), "include wins");
    assert!(!alpha.filter.exposes("delete_issue"));
    assert_eq!(
        alpha.overrides["create_comment"],
        AnnotationOverride {
            read_only: Some(false),
            destructive: None,
            open_world: Some(true)
        }
    );
    assert_eq!(alpha.overrides["delete_issue"].open_world, Some(false));
}

#[test]
fn every_open_world_alias_is_accepted() {
    for alias in [
        "open_world",
        "external",
        "external_side_effect",
        "sends_external_data",
    ] {
        let text = format!(
            "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.t]\n{alias} = true\n"
        );
        let config = parse(&text).expect(alias);
        assert_eq!(config.servers[0].overrides["t"].open_world, Some(true));
    }
}

#[test]
fn no_servers_is_an_error() {
    refused("", &["servers", "at least one"]);
    refused("[servers]\n", &["servers", "at least one"]);
}

#[test]
fn invalid_instance_ids_and_prefixes_name_their_key() {
    refused(
        "[servers.\"a.b\"]\ncommand = \"x\"\n",
        &["servers.a.b", "instance id", "`.`"],
    );
    refused(
        "[servers.\"a b\"]\ncommand = \"x\"\n",
        &["servers.a b", "instance id"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\nprefix = \"g.h\"\n",
        &["servers.a.prefix", "`.`"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\nprefix = \"\"\n",
        &["servers.a.prefix", "empty"],
    );
}

/// The warning that `tools.exclude` is ignored is for a server that sets both lists, not for
/// one that sets either alone.
#[test]
fn exclude_is_ignored_only_beside_an_include() {
    let server = |tools: &str| {
        let text = format!("[servers.a]\ncommand = \"x\"\n[servers.a.tools]\n{tools}\n");
        parse(&text).expect("valid").servers[0].exclude_ignored
    };
    assert!(server("include = [\"a\"]\nexclude = [\"b\"]"));
    assert!(!server("include = [\"a\"]"));
    assert!(!server("exclude = [\"b\"]"));
    assert!(!server(""));
}

#[test]
fn shape_errors_name_line_and_key() {
    let m = refused("[servers.a]\nargs = []\n", &["servers.a", "command"]);
    assert!(m.starts_with(&format!("{FILE}:")), "{m}");
    // Line and column are both 1-based: the value `"no"` starts at column 10 of line 3.
    refused(
        "[servers.a]\ncommand = \"x\"\nstderr = \"no\"\n",
        &[":3:10:", "servers.a.stderr"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\nprefx = \"gh\"\n",
        &["servers.a", "prefx"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.t]\nreadonly = true\n",
        &["servers.a.tools.overrides.t", "readonly"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools]\ninclude = \"echo\"\n",
        &["servers.a.tools.include"],
    );
    refused("[servers.a\ncommand = 1\n", &[":1:"]);
    refused("[server.a]\ncommand = \"x\"\n", &["server"]);
}

#[test]
fn bad_values_name_their_key() {
    refused(
        "[servers.a]\ncommand = \"\"\n",
        &["servers.a.command", "empty"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools]\ninclude = [\"\"]\n",
        &["servers.a.tools.include", "empty"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools]\nexclude = [\"\"]\n",
        &["servers.a.tools.exclude", "empty"],
    );
    refused(
        "[servers.a]\ncommand = \"x\"\n[servers.a.env]\n\"A=B\" = \"v\"\n",
        &["servers.a.env.A=B"],
    );
}

#[test]
fn an_override_target_with_a_star_is_refused() {
    refused(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.\"list_*\"]\nread_only = true\n",
        &["servers.a.tools.overrides.list_*", "`*`"],
    );
}

#[test]
fn an_open_world_alias_twice_is_refused() {
    refused(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.t]\nopen_world = true\nexternal = false\n",
        &["servers.a.tools.overrides.t", "open_world"],
    );
}

#[test]
fn a_missing_file_is_a_read_error() {
    let e = HubConfig::load(Path::new("no/such/hub.toml")).expect_err("missing");
    assert!(matches!(e, ConfigError::Read { .. }));
    assert!(e.to_string().starts_with("no/such/hub.toml: cannot read"));
}

#[test]
fn the_startup_timeout_defaults_and_validates() {
    assert_eq!(startup_timeout(None).ok(), Some(DEFAULT_STARTUP_TIMEOUT));
    assert_eq!(
        startup_timeout(Some("250")).ok(),
        Some(Duration::from_millis(250))
    );
    for bad in ["0", "-1", "1.5", "soon", ""] {
        assert!(startup_timeout(Some(bad)).is_err(), "{bad}");
    }
}
