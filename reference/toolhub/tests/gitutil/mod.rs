//! Scratch git repositories for the git tool tests: a workspace that is a repository, a
//! state root, a trap-marker directory and an isolated HOME, all in one temporary directory.
//! Setup runs plain git with no system or global configuration.

#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use mcp_toolhub::config::{Config, ENV_STATE_ROOT, ENV_WORKSPACE_ROOT};
use mcp_toolhub::hub::Hub;

/// True when a `git` runs from this process's PATH.
pub fn git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Makes `path` executable by its owner.
pub fn make_executable(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A temporary directory holding `ws` (the workspace), `state`, `fired` and `home`.
pub struct Repo {
    tmp: tempfile::TempDir,
}

impl Repo {
    /// A workspace directory without any repository.
    pub fn empty() -> Repo {
        let tmp = tempfile::tempdir().expect("tempdir");
        for d in ["ws", "state", "fired", "home"] {
            std::fs::create_dir_all(tmp.path().join(d)).expect("mkdir");
        }
        Repo { tmp }
    }

    /// A workspace that is a fresh repository on branch `main` (no commits).
    pub fn init() -> Repo {
        let repo = Repo::empty();
        repo.git(&["init", "-q"]);
        repo.git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
        repo
    }

    pub fn dir(&self) -> PathBuf {
        self.tmp.path().canonicalize().expect("canonical tmp")
    }

    pub fn ws(&self) -> PathBuf {
        self.dir().join("ws")
    }

    pub fn fired(&self) -> PathBuf {
        self.dir().join("fired")
    }

    /// A hub on this workspace.
    pub fn hub(&self) -> Arc<Hub> {
        let ws = self.ws().display().to_string();
        let state = self.dir().join("state").display().to_string();
        let config = Config::from_lookup(&|k| match k {
            ENV_WORKSPACE_ROOT => Some(ws.clone()),
            ENV_STATE_ROOT => Some(state.clone()),
            _ => None,
        })
        .expect("config");
        Hub::new(config)
    }

    /// Writes a workspace file, creating parents.
    pub fn write(&self, rel: &str, content: &str) {
        let p = self.ws().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, content).expect("write");
    }

    fn command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir().join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .env("LC_ALL", "C")
            .args(args);
        cmd
    }

    /// Plain git in `cwd`; panics unless it succeeds.
    pub fn git_in(&self, cwd: &Path, args: &[&str]) -> String {
        let out = self.command(cwd, args).output().expect("spawn git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Plain git in the workspace; panics unless it succeeds.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.ws(), args)
    }

    /// Plain git in the workspace, whatever the result (the hardening control).
    pub fn git_plain(&self, args: &[&str]) -> Output {
        self.command(&self.ws(), args).output().expect("spawn git")
    }

    /// Commits everything staged.
    pub fn commit(&self, message: &str) {
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// Adds a committed submodule at `name` whose one file `s.txt` ("s\n") carries the
    /// attributes line `attributes`; returns the submodule's work tree.
    pub fn add_submodule(&self, name: &str, attributes: &str) -> PathBuf {
        let src = self.dir().join(format!("{name}-src"));
        std::fs::create_dir_all(&src).expect("mkdir");
        self.git_in(&src, &["init", "-q"]);
        std::fs::write(src.join(".gitattributes"), attributes).expect("attributes");
        std::fs::write(src.join("s.txt"), "s\n").expect("write");
        self.git_in(&src, &["add", "-A"]);
        self.git_in(&src, &["commit", "-q", "-m", "sub"]);
        let src = src.display().to_string();
        self.git(&[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            &src,
            name,
        ]);
        self.commit("add submodule");
        self.ws().join(name)
    }
}
