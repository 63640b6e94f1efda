#!/usr/bin/env python3
"""Schema warnings of the two MCP Inspector CLIs against our reference servers.

The MCP Inspector is what many people point at a server first, and both of its CLIs judge the
tool schemas of a `tools/list`:

  inspector-cli 1.0.3   (npm @modelcontextprotocol/inspector-cli, "v1")  its MCP client compiles
                        each outputSchema with ajv, which prints `unknown format "uint64" ignored
                        in schema at path ...` on stderr for every format outside the JSON Schema
                        standard set (schemars emits uint, uint32, uint64, int64, ...)
  inspector 2.12.0      (npm @modelcontextprotocol/inspector, "v2", `--cli` mode)  lints each
                        input and output schema for portability (`type` arrays, untyped or
                        boolean schemas, remote `$ref`s) and prints `Schema portability: N
                        errors, M warnings`; with `--strict`, used here, one block per finding

Both are installed by interop/run with `npm ci` from interop/inspector/package-lock.json into
target/interop-node (exact versions, integrity-checked; no global install). For each server,
configured exactly as check_servers.py configures it (same temp layout, same environment), each
CLI runs `--method tools/list`; the script counts the warnings each printed, prints a table and
fails when a count is above its allowance.

Allowances: zero everywhere. Contract V1 fixes tool names, annotations, property names and
required lists, not the spelling of a schema, so every portability finding has a portable
spelling (nullable `type: [X, "null"]` is served as `anyOf: [{type: X}, {type: "null"}]`, see
reference/stdio/src/schema.rs) and none needs an allowance. An allowance added later must be
explained where ALLOWANCE is defined.

Usage: check_inspectors.py [--bin-dir DIR] [--node-dir DIR] [--only NAME ...] [--keep] [--verbose]
Exit status: 0 when every count is within its allowance, 1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_servers import REPO, Server, Unchecked, reference_servers, select  # noqa: E402  (same folder, stdlib-only at import)

RUN_TIMEOUT_S = 60.0

V1_NAME = "@modelcontextprotocol/inspector-cli"
V2_NAME = "@modelcontextprotocol/inspector"
V1_ENTRY = "node_modules/@modelcontextprotocol/inspector-cli/build/index.js"
V2_ENTRY = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

# What counts as a schema warning on each CLI's stderr.
# v1: ajv (through the TypeScript SDK 1.x client) warns per unknown format, once per compile.
V1_FORMAT = re.compile(r'unknown format "[^"]*" ignored in schema')
# v2 --strict: one "Warning: tool ..." / "Error: tool ..." header line per finding.
V2_FINDING = re.compile(r'^(Warning|Error): tool "')
# v2's own client also validates with ajv; count format warnings there too should they appear.
ANY_FORMAT = V1_FORMAT

# Warnings tolerated per (column, server). Contract V1 forces none (see the module docstring);
# a non-zero entry needs its reason written beside it.
ALLOWANCE: dict[tuple[str, str], int] = {}

COLUMNS = ("v1 format", "v2 portability", "v2 format")


@dataclass
class Run:
    ok: bool
    tools: int | None
    stderr: str
    problem: str | None = None


@dataclass
class Row:
    server: str
    counts: dict[str, int] = field(default_factory=dict)
    tools: dict[str, int | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)


def package_version(node_dir: Path, name: str) -> str:
    try:
        return json.loads((node_dir / "node_modules" / name / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "?"


def run_cli(argv: list[str], env: dict[str, str], cwd: Path) -> Run:
    """Runs one inspector; `tools` is the number of tools in the JSON it printed on stdout."""
    try:
        done = subprocess.run(
            argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=RUN_TIMEOUT_S
        )
    except subprocess.TimeoutExpired as e:
        err = (e.stderr or b"").decode(errors="replace")
        return Run(False, None, err, f"no answer within {RUN_TIMEOUT_S:.0f} s")
    out = done.stdout.decode(errors="replace")
    err = done.stderr.decode(errors="replace")
    try:
        tools = len(json.loads(out)["tools"])
    except (ValueError, KeyError, TypeError):
        tools = None
    if done.returncode != 0 or tools is None:
        tail = " | ".join(err.strip().splitlines()[-5:])
        return Run(False, tools, err, f"exit {done.returncode}, {tools} tools; stderr: {tail[:400]}")
    return Run(True, tools, err)


def check(server: Server, node_dir: Path, cwd: Path, home: Path, verbose: bool) -> Row:
    row = Row(server.name)
    # Each CLI starts the server itself. The server's arguments come after `--`, so that its own
    # options (safe-mcp's --config) are not taken for the CLI's (v1 wants the command before
    # `--`, v2 takes command and arguments after it). v1 passes its own environment to the server; v2 passes
    # only the variables given with -e (plus a default set), so the server's env goes both ways.
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM")}
    base["HOME"] = str(home)  # neither CLI may read or write the user's own settings
    v1 = run_cli(
        ["node", str(node_dir / V1_ENTRY), "--method", "tools/list", server.command, "--", *server.args],
        {**base, **server.env},
        cwd,
    )
    env_flags = [flag for k, v in server.env.items() for flag in ("-e", f"{k}={v}")]
    v2 = run_cli(
        ["node", str(node_dir / V2_ENTRY), "--cli", *env_flags, "--method", "tools/list", "--strict",
         "--", server.command, *server.args],
        base,
        cwd,
    )
    for label, run in (("v1", v1), ("v2", v2)):
        row.tools[label] = run.tools
        if not run.ok:
            row.problems.append(f"{label}: {run.problem}")
    row.counts["v1 format"] = sum(1 for line in v1.stderr.splitlines() if V1_FORMAT.search(line))
    row.counts["v2 portability"] = sum(1 for line in v2.stderr.splitlines() if V2_FINDING.match(line))
    row.counts["v2 format"] = sum(1 for line in v2.stderr.splitlines() if ANY_FORMAT.search(line))
    over = any(row.counts[c] > ALLOWANCE.get((c, server.name), 0) for c in COLUMNS)
    if over or verbose:
        row.details += [f"v1 stderr: {line}" for line in v1.stderr.splitlines() if V1_FORMAT.search(line)][:40]
        v2_lines = [line for line in v2.stderr.splitlines() if line.strip()]
        row.details += [f"v2 stderr: {line}" for line in v2_lines][:80]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--bin-dir",
        default=os.environ.get("MCP_INTEROP_BIN_DIR") or str(REPO / "target" / "debug"),
        help="folder with mcp-toolhub, safe-mcp, mcp-hub, mcp-conformance (default: $MCP_INTEROP_BIN_DIR or target/debug)",
    )
    parser.add_argument(
        "--node-dir",
        default=os.environ.get("MCP_INTEROP_NODE_DIR") or str(REPO / "target" / "interop-node"),
        help="folder where interop/run installed interop/inspector (default: $MCP_INTEROP_NODE_DIR or target/interop-node)",
    )
    parser.add_argument("--only", action="append", metavar="NAME", help="check only this server (repeatable; toolhub, terminal, files, hub)")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (printed)")
    parser.add_argument("--verbose", action="store_true", help="print every warning line, not only for servers over their allowance")
    opts, _ = parser.parse_known_args()  # interop/run passes check_servers.py's options (--wire) too

    bin_dir = Path(opts.bin_dir).resolve()
    node_dir = Path(opts.node_dir).resolve()
    for entry in (V1_ENTRY, V2_ENTRY):
        if not (node_dir / entry).is_file():
            print(f"error: {node_dir / entry} missing (interop/run installs it with npm ci)", file=sys.stderr)
            return 2
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    v1_version, v2_version = package_version(node_dir, V1_NAME), package_version(node_dir, V2_NAME)
    print(f"\nMCP Inspector CLIs on node {node}: {V1_NAME} {v1_version} (v1), {V2_NAME} {v2_version} --cli (v2)")

    tmp = Path(tempfile.mkdtemp(prefix="mcp-inspector-"))
    # inspector-cli 1.0.3 reads its own package.json as `../package.json` when that path exists
    # relative to the working directory, else as `../../package.json` relative to its module
    # (which only exists inside the v1 `inspector` package): it must run in a folder whose
    # parent holds a package.json. target/interop-node/cwd is such a folder.
    cwd = node_dir / "cwd"
    cwd.mkdir(exist_ok=True)
    home = tmp / "home"
    home.mkdir()
    rows: list[Row] = []
    t0 = time.monotonic()
    try:
        try:
            servers = select(reference_servers(bin_dir, tmp), opts.only)
        except Unchecked as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        # One thread per server (each has its own folders under tmp); a server's two CLIs run
        # one after the other. Rows keep the servers' order.
        with ThreadPoolExecutor(max_workers=len(servers) or 1) as pool:
            rows = list(pool.map(lambda s: check(s, node_dir, cwd, home, opts.verbose), servers))
    finally:
        if opts.keep:
            print(f"temp folder kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    widths = (9, 6, 24, 27, 22)
    head = ("server", "tools", f"v1 {v1_version}: format", f"v2 {v2_version}: portability", f"v2 {v2_version}: format")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    failed: list[str] = []
    for row in rows:
        tools = "/".join("?" if row.tools.get(k) is None else str(row.tools[k]) for k in ("v1", "v2"))
        cells = [row.server, tools]
        bad = bool(row.problems)
        for column in COLUMNS:
            allowed = ALLOWANCE.get((column, row.server), 0)
            count = row.counts.get(column, 0)
            bad |= count > allowed
            cells.append(f"{count}" + (f" (allowed {allowed})" if allowed else ""))
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths)))
        if bad:
            failed.append(row.server)
    for row in rows:
        if row.problems or row.details:
            print(f"\n{row.server}:")
            for line in row.problems + row.details:
                print(f"  {line}")
    print(f"({time.monotonic() - t0:.1f} s; tools = as listed by v1/v2)")
    if failed:
        print(f"FAILED: Inspector schema warnings above the allowance (or a failed run): {', '.join(failed)}")
        return 1
    print(f"no Inspector schema warnings on {len(rows)} server{'' if len(rows) == 1 else 's'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
