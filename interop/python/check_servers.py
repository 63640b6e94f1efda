#!/usr/bin/env python3
"""Interop check: the official MCP Python SDK (PyPI `mcp`) as the client of our reference servers.

For each server the SDK's high-level `mcp.Client` is used exactly as its documentation shows,
in its default connect mode (`mode="auto"`: on stdio it sends `server/discover` first and falls
back to `initialize` when that fails, see mcp/client/_probe.py). The check then lists the tools,
calls one read-only tool and checks its result, and reports the protocol version the SDK ended
up with and how it got there (server/discover or the initialize fallback).

Servers (binaries from --bin-dir, default $MCP_INTEROP_BIN_DIR or <repo>/target/debug), one
recipe per reference target (make_servers):
  toolhub   mcp-toolhub serve                      (temp workspace and state root)
  terminal  safe-mcp terminal --config POLICY      (temp jail, audit log outside it)
  files     safe-mcp files --config POLICY         (temp workspace, journal outside it)
  hub       mcp-hub CONFIG                         (upstreams: mcp-conformance fixture-server
                                                    and mcp-toolhub behind prefix `toolhub`)
Everything a server writes goes under one temp folder, removed at the end (--keep keeps it).
The reference targets are the target files' list (`mcp-conformance targets --reference`): one
without a recipe here, or a recipe for a target that is gone, stops the check with exit 2
before anything runs, so a new reference server cannot be left out.

Wire capture: --wire runs each server behind a line-for-line stdio tee (this file, re-executed
with --tee) and prints the JSON-RPC lines in both directions. A failing check is re-run once
with the tee automatically, so a failure always comes with the lines that caused it.

Exit status: 0 when every selected check passes, 1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]
CHECK_TIMEOUT_S = 10.0
HELLO = "hello from the interop check\n"


# --------------------------------------------------------------------------------------------
# The stdio tee (runs as its own process: `check_servers.py --tee LOG -- COMMAND ARGS...`).


def tee_main(log_path: str, argv: list[str]) -> int:
    """Run COMMAND, copy stdin to it and its stdout back, logging every line with its direction.

    Lines are forwarded byte for byte; the log gets `> ` (client to server) or `< ` (server to
    client) plus the raw line. The server's stderr is passed through unchanged. Stdin EOF is
    forwarded as EOF; the tee exits with the server's status once its stdout is closed.
    """
    log = open(log_path, "ab", buffering=0)
    lock = threading.Lock()
    t0 = time.monotonic()

    def record(prefix: bytes, line: bytes) -> None:
        stamp = b"%7.3f " % (time.monotonic() - t0)
        with lock:
            log.write(stamp + prefix + line + (b"" if line.endswith(b"\n") else b"\\ (no newline)\n"))

    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None

    def pump_in() -> None:
        try:
            for line in iter(sys.stdin.buffer.readline, b""):
                record(b"> ", line)
                child.stdin.write(line)
                child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            record(b"# ", b"client closed stdin\n")
            try:
                child.stdin.close()
            except OSError:
                pass

    threading.Thread(target=pump_in, daemon=True).start()
    out = sys.stdout.buffer
    for line in iter(child.stdout.readline, b""):
        record(b"< ", line)
        try:
            out.write(line)
            out.flush()
        except (BrokenPipeError, OSError):
            break
    code = child.wait()
    record(b"# ", b"server exited with status %d\n" % code)
    return code


# --------------------------------------------------------------------------------------------
# Server definitions.


@dataclass
class Server:
    name: str
    # The reference target (conformance/targets/reference-*.yaml) this recipe checks.
    target: str
    command: str
    args: list[str]
    env: dict[str, str]
    # (tool name, arguments, check(result) -> problem or None)
    call: tuple[str, dict[str, Any], Callable[[Any], str | None]]
    expect_tools: set[str] = field(default_factory=set)
    extra_calls: list[tuple[str, dict[str, Any], Callable[[Any], str | None]]] = field(default_factory=list)


def _text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _structured(result: Any) -> dict[str, Any]:
    """structuredContent, else the JSON of the first text block (our servers send both)."""
    if result.structured_content is not None:
        return result.structured_content
    try:
        return json.loads(_text_of(result))
    except ValueError:
        return {}


def check_toolhub_read(result: Any) -> str | None:
    if result.is_error:
        return f"isError: {_text_of(result)[:300]}"
    data = _structured(result)
    if data.get("path") != "hello.txt" or data.get("content") != HELLO:
        return f"expected path hello.txt with the seeded content: {json.dumps(data)[:300]}"
    return None


def check_safe_ok(what: str, holds: Callable[[dict[str, Any]], bool]) -> Callable[[Any], str | None]:
    """An OperationResult with ok: true whose detail satisfies `holds` (described by `what`)."""

    def check(result: Any) -> str | None:
        data = _structured(result)
        if result.is_error or data.get("ok") is not True:
            return f"not ok: isError={result.is_error} {json.dumps(data)[:300]}"
        try:
            good = holds(data.get("detail") or {})
        except (KeyError, TypeError, AttributeError):
            good = False
        if not good:
            return f"expected {what}: {json.dumps(data)[:300]}"
        return None

    return check


def check_echo(text: str) -> Callable[[Any], str | None]:
    def check(result: Any) -> str | None:
        if result.is_error:
            return f"isError: {_text_of(result)[:300]}"
        if text not in _text_of(result) and text not in json.dumps(result.structured_content or {}):
            return f"echoed text missing: {result.model_dump_json()[:300]}"
        return None

    return check


def make_servers(bin_dir: Path, tmp: Path) -> list[Server]:
    def exe(name: str) -> str:
        return str(bin_dir / name)

    # ToolHub: a workspace with one file, a state root outside it.
    th_ws, th_state = tmp / "toolhub" / "workspace", tmp / "toolhub" / "state"
    th_ws.mkdir(parents=True)
    th_state.mkdir(parents=True)
    (th_ws / "hello.txt").write_text(HELLO)
    toolhub_env = {
        "TOOLHUB_WORKSPACE_ROOT": str(th_ws),
        "TOOLHUB_STATE_ROOT": str(th_state),
        "RUST_LOG": "warn",
    }

    # safe-mcp: one policy for both servers (as reference/safe-mcp/scripts/make-sandbox.sh
    # lays it out): terminal jail, files workspace, state beside them outside both.
    sm = tmp / "safe-mcp"
    jail, inbox, sm_state = sm / "sandbox", sm / "inbox", sm / "state"
    for d in (jail, inbox, sm_state):
        d.mkdir(parents=True)
    (jail / "notes.txt").write_text(HELLO)
    (inbox / "report.pdf").write_bytes(b"%PDF-1.4 interop\n")
    (inbox / "photo.png").write_bytes(b"\x89PNG interop\n")
    policy = sm / "policy.toml"
    policy.write_text(
        textwrap.dedent(
            f"""\
            audit_log = "{sm_state}/audit.jsonl"
            audit_fail_mode = "closed"

            [terminal]
            jail_root = "{jail}"

            [terminal.limits]
            timeout_seconds = 10
            max_output_bytes = 65536

            [terminal.allowlist]
            commands = ["cat", "echo"]

            [terminal.denylist]
            commands = ["rm", "shutdown", "reboot", "curl", "wget", "chmod", "sudo"]

            [files]
            workspace_root = "{inbox}"
            journal = "{sm_state}/organizer-journal.json"
            max_plan_moves = 500

            [files.categories]
            Documents = [".pdf", ".txt"]
            Images = [".png", ".jpg"]
            """
        )
    )
    # The SDK starts a server with only its default inherited variables (HOME, PATH, SHELL,
    # TERM, USER, LOGNAME) plus `env` (mcp/client/stdio.py, get_default_environment), so no
    # SAFE_MCP_* or TOOLHUB_* variable of the caller reaches the servers.
    safe_env = {"RUST_LOG": "warn"}

    # Hub: the suite's fixture server (unprefixed: echo) and a ToolHub behind `toolhub`.
    hub_dir = tmp / "hub"
    hub_ws, hub_state = hub_dir / "workspace", hub_dir / "state"
    hub_ws.mkdir(parents=True)
    hub_state.mkdir(parents=True)
    (hub_ws / "hello.txt").write_text(HELLO)
    hub_cfg = hub_dir / "hub.toml"
    hub_cfg.write_text(
        textwrap.dedent(
            f"""\
            [servers.fixture]
            command = {json.dumps(exe("mcp-conformance"))}
            args = ["fixture-server"]

            [servers.toolhub]
            prefix = "toolhub"
            command = {json.dumps(exe("mcp-toolhub"))}
            args = ["serve"]
            env = {{ TOOLHUB_WORKSPACE_ROOT = {json.dumps(str(hub_ws))}, TOOLHUB_STATE_ROOT = {json.dumps(str(hub_state))}, RUST_LOG = "warn" }}

            [servers.toolhub.tools]
            exclude = ["shell.*"]
            """
        )
    )

    return [
        Server(
            name="toolhub",
            target="reference-toolhub",
            command=exe("mcp-toolhub"),
            args=["serve"],
            env=toolhub_env,
            call=("filesystem.read_file", {"path": "hello.txt"}, check_toolhub_read),
            expect_tools={"filesystem.read_file", "toolhub.capabilities"},
        ),
        Server(
            name="terminal",
            target="reference-safe-terminal",
            command=exe("safe-mcp"),
            args=["terminal", "--config", str(policy)],
            env=safe_env,
            call=(
                "explain_command",
                {"command": "cat notes.txt"},
                check_safe_ok("detail.would_run true", lambda d: d["would_run"] is True),
            ),
            expect_tools={"run_command", "explain_command"},
        ),
        Server(
            name="files",
            target="reference-safe-files",
            command=exe("safe-mcp"),
            args=["files", "--config", str(policy)],
            env=safe_env,
            call=(
                "list_files",
                {},
                check_safe_ok(
                    "detail.entries naming photo.png and report.pdf",
                    lambda d: sorted(e["name"] for e in d["entries"]) == ["photo.png", "report.pdf"],
                ),
            ),
            expect_tools={"list_files", "plan_organize", "apply_plan", "move_file", "undo_last_action", "redo_last_action"},
        ),
        Server(
            name="hub",
            target="reference-hub",
            command=exe("mcp-hub"),
            args=[str(hub_cfg)],
            env={"RUST_LOG": "warn"},
            call=("toolhub.filesystem.read_file", {"path": "hello.txt"}, check_toolhub_read),
            expect_tools={"echo", "toolhub.filesystem.read_file"},
            extra_calls=[("echo", {"text": "interop-echo"}, check_echo("interop-echo"))],
        ),
    ]


class Unchecked(Exception):
    """The reference targets and the recipes above disagree; the message says how."""


def reference_servers(bin_dir: Path, tmp: Path) -> list[Server]:
    """The recipes of make_servers, checked against the reference targets.

    The target files are the one list of the reference servers (`mcp-conformance targets
    --reference`): a reference target without a recipe here would go unchecked, and a recipe
    for a target that is gone checks nothing, so either stops the check (Unchecked).
    """
    def missing(names: list[str]) -> Unchecked:
        return Unchecked(f"{', '.join(names)} not found in {bin_dir} (cargo build --workspace, "
                         "or set MCP_INTEROP_BIN_DIR)")

    if not os.access(bin_dir / "mcp-conformance", os.X_OK):
        raise missing(["mcp-conformance"])
    listed = subprocess.run([str(bin_dir / "mcp-conformance"), "targets", "--reference"],
                            capture_output=True, text=True, check=False)
    references = listed.stdout.split()
    if listed.returncode != 0 or not references:
        raise Unchecked(f"mcp-conformance targets --reference: exit {listed.returncode}, "
                        f"{listed.stderr.strip() or 'no reference target listed'}")
    servers = make_servers(bin_dir, tmp)
    absent = sorted({Path(s.command).name for s in servers if not os.access(s.command, os.X_OK)})
    if absent:
        raise missing(absent)
    recipes = {s.target for s in servers}
    problems = []
    unknown = [r for r in references if r not in recipes]
    if unknown:
        problems.append(f"reference targets without an interop recipe: {', '.join(unknown)} "
                        "(add one to make_servers in interop/python/check_servers.py)")
    stale = sorted(recipes - set(references))
    if stale:
        problems.append(f"interop recipes for targets that are not reference targets: {', '.join(stale)}")
    if problems:
        raise Unchecked("; ".join(problems))
    return servers


def select(servers: list[Server], only: list[str] | None) -> list[Server]:
    """The servers --only names (all without it); an unknown name is an Unchecked error."""
    names = [s.name for s in servers]
    unknown = [n for n in only or [] if n not in names]
    if unknown:
        raise Unchecked(f"--only {', '.join(unknown)}: no such server (servers: {', '.join(names)})")
    return [s for s in servers if not only or s.name in only]


# --------------------------------------------------------------------------------------------
# One check.


@dataclass
class Outcome:
    name: str
    ok: bool
    lines: list[str]
    seconds: float
    via: str = "-"
    version: str = "-"


async def run_one(server: Server, wire_log: Path | None, stderr_log: Path) -> tuple[str, str, list[str]]:
    """Connect with the SDK defaults, list tools, call the read-only tool(s). Returns (via, version, notes)."""
    import anyio
    from mcp import Client, StdioServerParameters

    command, args = server.command, list(server.args)
    if wire_log is not None:
        command, args = sys.executable, [str(Path(__file__).resolve()), "--tee", str(wire_log), "--", command, *args]
    params = StdioServerParameters(command=command, args=args, env=server.env, cwd=str(stderr_log.parent))
    notes: list[str] = []
    with anyio.fail_after(CHECK_TIMEOUT_S):
        # The SDK's documented entry point, default mode ("auto"), no options.
        async with Client(params) as client:
            session = client.session
            if session.discover_result is not None:
                via = "server/discover"
            elif session.initialize_result is not None:
                via = "initialize (after the server/discover probe failed)"
            else:  # the SDK sets one of the two before it returns from __aenter__
                via = "?"
            version = client.protocol_version
            info = client.server_info
            notes.append(
                f"server: {info.name} {info.version}" if info is not None else "server: (no serverInfo)"
            )
            if session.discover_result is not None:
                notes.append(f"supportedVersions: {session.discover_result.supported_versions}")

            listed = await client.list_tools()
            names = [t.name for t in listed.tools]
            notes.append(f"tools/list: {len(names)} tools" + (f", next cursor {listed.next_cursor!r}" if listed.next_cursor else ""))
            missing = server.expect_tools - set(names)
            if missing:
                raise CheckFailed(f"tools/list lacks {sorted(missing)}; got {names}")

            for tool, arguments, check in [server.call, *server.extra_calls]:
                spec = next(t for t in listed.tools if t.name == tool)
                ro = spec.annotations.read_only_hint if spec.annotations is not None else None
                if ro is not True:
                    raise CheckFailed(f"{tool} is not annotated readOnlyHint: true (annotations: {spec.annotations})")
                result = await client.call_tool(tool, arguments)
                problem = check(result)
                if problem:
                    raise CheckFailed(f"tools/call {tool}: {problem}")
                notes.append(f"tools/call {tool} {json.dumps(arguments)}: ok (readOnlyHint true)")
    return via, version, notes


class CheckFailed(Exception):
    pass


def _leaves(e: BaseException) -> list[BaseException]:
    if isinstance(e, BaseExceptionGroup):
        return [leaf for sub in e.exceptions for leaf in _leaves(sub)]
    return [e]


def describe_failure(e: BaseException) -> list[str]:
    """The failure's leaf exceptions (task groups wrap them), each with the end of its traceback."""
    lines: list[str] = []
    for leaf in _leaves(e):
        if isinstance(leaf, CheckFailed):
            lines.append(str(leaf))
        elif isinstance(leaf, TimeoutError):
            lines.append(f"no result within {CHECK_TIMEOUT_S:.0f} s (TimeoutError)")
        else:
            text = "".join(traceback.format_exception_only(leaf)).rstrip().splitlines()
            where = traceback.extract_tb(leaf.__traceback__)[-3:]
            lines.append(text[0])
            lines += ["  " + t for t in text[1:12]]
            lines += [f"  at {f.filename.split('site-packages/')[-1]}:{f.lineno} ({f.name})" for f in where]
    return lines


def check_server(server: Server, tmp: Path, wire: bool) -> Outcome:
    import anyio

    logdir = tmp / "logs" / server.name
    logdir.mkdir(parents=True, exist_ok=True)
    wire_log = logdir / "wire.log" if wire else None
    stderr_log = logdir / "stderr.log"
    t0 = time.monotonic()
    # The SDK's stdio transport passes the server's stderr to ours; keep it out of the report
    # by pointing fd 2 at a file for the duration of the check, and show it on failure.
    saved = os.dup(2)
    with open(stderr_log, "ab") as err:
        os.dup2(err.fileno(), 2)
        try:
            via, version, notes = anyio.run(run_one, server, wire_log, stderr_log)
            ok, lines = True, notes
        except BaseException as e:  # noqa: BLE001 - every failure of the client is a check failure
            if isinstance(e, KeyboardInterrupt):
                raise
            ok, lines, via, version = False, describe_failure(e), "-", "-"
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
    out = Outcome(server.name, ok, lines, time.monotonic() - t0, via, version)
    if not ok or wire:
        err_text = stderr_log.read_text(errors="replace").strip()
        if err_text:
            out.lines.append("stderr (the server's and the SDK's log), last 15 lines:")
            out.lines += ["  " + line for line in err_text.splitlines()[-15:]]
    if wire_log is not None and wire_log.exists():
        out.lines.append("wire (> client to server, < server to client):")
        out.lines += ["  " + line for line in wire_log.read_text(errors="replace").splitlines()]
    return out


# --------------------------------------------------------------------------------------------


def main() -> int:
    if len(sys.argv) > 3 and sys.argv[1] == "--tee" and sys.argv[3] == "--":
        return tee_main(sys.argv[2], sys.argv[4:])

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--bin-dir",
        default=os.environ.get("MCP_INTEROP_BIN_DIR") or str(REPO / "target" / "debug"),
        help="folder with mcp-toolhub, safe-mcp, mcp-hub, mcp-conformance (default: $MCP_INTEROP_BIN_DIR or target/debug)",
    )
    parser.add_argument("--only", action="append", metavar="NAME", help="check only this server (repeatable; toolhub, terminal, files, hub)")
    parser.add_argument("--wire", action="store_true", help="capture and print the JSON-RPC lines of every check")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (printed)")
    opts = parser.parse_args()

    import importlib.metadata

    bin_dir = Path(opts.bin_dir).resolve()

    from mcp_types.version import LATEST_MODERN_VERSION, HANDSHAKE_PROTOCOL_VERSIONS

    sdk = importlib.metadata.version("mcp")
    print(f"MCP Python SDK (PyPI mcp) {sdk}, Python {sys.version.split()[0]}; client mode: default (auto)")
    print(f"  probe: server/discover at {LATEST_MODERN_VERSION}; fallback: initialize offering {HANDSHAKE_PROTOCOL_VERSIONS[-1]}")
    print(f"servers from {bin_dir}")

    tmp = Path(tempfile.mkdtemp(prefix="mcp-interop-"))
    results: list[Outcome] = []
    try:
        try:
            servers = select(reference_servers(bin_dir, tmp), opts.only)
        except Unchecked as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        for server in servers:
            out = check_server(server, tmp, opts.wire)
            if not out.ok and not opts.wire:
                again = check_server(server, tmp / "rerun", True)
                out.lines.append(f"re-run with the wire captured: {'passed (flaky: still a failure)' if again.ok else 'failed again'}")
                wire_at = next((i for i, line in enumerate(again.lines) if line.startswith("wire (")), len(again.lines))
                out.lines += again.lines[wire_at:]
            results.append(out)
            status = "PASS" if out.ok else "FAIL"
            print(f"\n[{status}] {server.name}: {server.command} {' '.join(server.args)}  ({out.seconds:.1f} s)")
            if out.ok:
                print(f"  negotiated {out.version} via {out.via}")
            for line in out.lines:
                print(f"  {line}")
    finally:
        if opts.keep:
            print(f"\ntemp folder kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    failed = [r.name for r in results if not r.ok]
    print()
    print("summary:")
    for r in results:
        print(f"  {r.name:9} {'PASS' if r.ok else 'FAIL'}  {r.version:11} via {r.via}")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        return 1
    print(f"all {len(results)} servers passed with mcp {sdk}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
