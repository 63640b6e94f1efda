"""Calibration: run the protocol suite on third-party servers and compare with expected verdicts.

Started by calibration/run (which installs the servers and puts them on PATH); Python 3.11+
standard library only. For each target calibration/targets/NAME.yaml it runs the one
command a stranger runs,

    mcp-conformance check --target calibration/targets/NAME.yaml --protocol both \
        --json target/calibration/reports/NAME.json

(the protocol suite built into the binary, the sweep of the server's own tools with default
settings, scenarios named `sweep/...`, and the protocol fuzz, in one report), then, when
calibration/scenarios/NAME/ exists, `mcp-conformance run` of the scenarios there (the suite
as a client of that server's own tools), and compares every scenario's verdict with
calibration/expected/NAME.toml:

    [scenarios."protocol/unknown-tool [legacy]"]
    status = "failed"                 # passed | failed | skipped | warned | beyond
    spec = "https://modelcontextprotocol.io/specification/..."   # failed/warned: required
    quote = "the sentence the server breaks, verbatim"            # failed/warned: required
    why = "one line: what the server does instead"                # failed/warned/beyond: required
    pending_fix = "FINDINGS.md: ..."  # optional: the suite's verdict is known to be wrong;
                                      # status is what the scenario SHOULD give once fixed
    note = "free text"                # optional, kept by --update

Verdicts: `warned` is a scenario that passed with warnings (a failed `should` check);
`beyond` is a failure of a check the suite marks `beyond` (stronger than the specification);
`error` (the suite could not carry the scenario out) never matches an expectation.

Exit status: 0 every verdict as expected (pending fixes are reported, not failed); 1 a verdict
differs, a scenario has no entry, an entry names no scenario that ran, or a failed/warned entry
lacks its quote; 2 bad usage or input (missing binary, unreadable expected file, the suite
refusing a target).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAL = ROOT / "calibration"
STATUSES = ("passed", "failed", "skipped", "warned", "beyond")
NEEDS_QUOTE = ("failed", "warned")
FIELDS = ("status", "pending_fix", "spec", "quote", "why", "note")


class InputError(Exception):
    """Bad input or usage: reported on one line, exit 2."""


def rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


# --- expected files ---------------------------------------------------------------------------


def load_expected(path: Path) -> dict[str, dict[str, str]]:
    """Reads calibration/expected/NAME.toml: {scenario name: entry}. A missing file is empty."""
    if not path.exists():
        return {}
    try:
        with path.open("rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{rel(path)}: not valid TOML: {e}") from None
    extra = set(doc) - {"scenarios"}
    if extra:
        raise InputError(f"{rel(path)}: unknown top-level key(s) {sorted(extra)}; entries go under [scenarios.\"NAME\"]")
    scenarios = doc.get("scenarios", {})
    if not isinstance(scenarios, dict):
        raise InputError(f"{rel(path)}: `scenarios` must be a table of tables")
    out: dict[str, dict[str, str]] = {}
    for name, entry in scenarios.items():
        where = f"{rel(path)}: [scenarios.\"{name}\"]"
        if not isinstance(entry, dict):
            raise InputError(f"{where} must be a table")
        unknown = set(entry) - set(FIELDS)
        if unknown:
            raise InputError(f"{where}: unknown key(s) {sorted(unknown)} (known: {', '.join(FIELDS)})")
        for key, value in entry.items():
            if not isinstance(value, str):
                raise InputError(f"{where}: `{key}` must be a string")
        status = entry.get("status")
        if status not in STATUSES:
            raise InputError(f"{where}: status must be one of {', '.join(STATUSES)}, not {status!r}")
        out[name] = dict(entry)
    return out


def missing_reasons(entry: dict[str, str]) -> list[str]:
    """What an entry lacks for its status: a failure or warning needs spec, quote and why."""
    status = entry["status"]
    lacks = []
    if status in NEEDS_QUOTE:
        if not entry.get("spec", "").startswith(("https://", "http://")):
            lacks.append("spec (the URL of the page)")
        if not entry.get("quote", "").strip():
            lacks.append("quote (the sentence the server breaks)")
    if status in NEEDS_QUOTE + ("beyond",) and not entry.get("why", "").strip():
        lacks.append("why (one line)")
    if "pending_fix" in entry and not entry["pending_fix"].strip():
        lacks.append("a non-empty pending_fix")
    return lacks


def toml_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def write_expected(path: Path, server: str, target: Path, entries: dict[str, dict[str, str]]) -> None:
    lines = [
        f"# Expected verdicts of the protocol suite on {server} ({rel(target)}),",
        "# checked by calibration/run; statuses are rewritten by `calibration/run --update`, which keeps",
        "# the other fields (put notes in `note`: comments are not kept). See calibration/README.md.",
        "",
    ]
    for name in sorted(entries):
        entry = entries[name]
        lines.append(f"[scenarios.{toml_string(name)}]")
        for key in FIELDS:
            if key in entry:
                lines.append(f"{key} = {toml_string(entry[key])}")
        lines.append("")
    text = "\n".join(lines)
    tomllib.loads(text)  # what we write must read back
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


# --- runs -----------------------------------------------------------------------------------


@dataclass
class Run:
    server: str
    target: Path
    expected_file: Path
    json_path: Path
    log_path: Path
    exit_code: int = -1
    seconds: float = 0.0
    target_name: str = ""
    verdicts: dict[str, str] = field(default_factory=dict)
    details: dict[str, str] = field(default_factory=dict)


def verdict_of(s: dict) -> tuple[str, str]:
    """The verdict of one scenario of the JSON report, and a one-line detail."""
    status = s.get("status")
    failure = s.get("failure") or {}
    warnings = s.get("warnings") or []
    if status == "failed":
        message = (failure.get("message") or "").splitlines()[0:1]
        detail = f"{failure.get('step_label') or ''}: {message[0] if message else ''}".strip(": ")
        if failure.get("kind") == "error":
            return "error", detail
        if failure.get("level") == "beyond":
            return "beyond", detail
        return "failed", detail
    if status == "passed":
        if warnings:
            first = (warnings[0].get("message") or "").splitlines()[0:1]
            return "warned", f"{len(warnings)} warning(s): {first[0] if first else ''}"
        return "passed", ""
    if status == "skipped":
        return "skipped", s.get("skip_reason") or ""
    return f"unknown status {status!r}", ""


def client_scenarios(run: Run) -> Path | None:
    """The folder of scenarios written for this server's own tools, if it has one:
    calibration/scenarios/NAME/ (the suite as a client: the server's requests to it, which a
    blind check cannot reach, since such tools appear only to a client declaring the
    capability)."""
    folder = CAL / "scenarios" / run.server
    return folder if folder.is_dir() else None


def client_json(run: Run) -> Path:
    return run.json_path.with_suffix(".client.json")


def run_one(binary: Path, run: Run, jobs_per_run: int) -> Run:
    """`mcp-conformance check` on one server: the protocol suite, the sweep and the fuzz;
    then `mcp-conformance run` of its client scenarios, when it has some."""
    cmd = [str(binary), "check", "--target", str(run.target), "--protocol", "both",
           "--json", str(run.json_path), "--no-color", "-j", str(jobs_per_run)]
    run.json_path.unlink(missing_ok=True)
    client_json(run).unlink(missing_ok=True)
    started = time.monotonic()
    with run.log_path.open("w", encoding="utf-8") as log:
        proc = subprocess.run(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        run.exit_code = proc.returncode
        folder = client_scenarios(run)
        if folder is not None and run.exit_code in (0, 1):
            log.flush()
            extra = [str(binary), "run", "--target", str(run.target), "--protocol", "both",
                     "--json", str(client_json(run)), "--no-color", str(folder)]
            proc = subprocess.run(extra, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT)
            if proc.returncode not in (0, 1):
                run.exit_code = proc.returncode
    run.seconds = time.monotonic() - started
    return run


def read_report(run: Run) -> None:
    if run.exit_code not in (0, 1) or not run.json_path.exists():
        tail = run.log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
        raise InputError(
            f"mcp-conformance could not check {rel(run.target)} (exit {run.exit_code}): "
            f"{tail[0] if tail else 'no output'} (full output: {rel(run.log_path)})"
        )
    paths = [run.json_path] + ([client_json(run)] if client_scenarios(run) is not None else [])
    scenarios = []
    for path in paths:
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
            scenarios += report["scenarios"]
            run.target_name = run.target_name or str(report.get("target") or run.server)
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"{rel(path)}: not a mcp-conformance JSON report ({e})") from None
    for s in scenarios:
        name = s["name"]
        if name in run.verdicts:
            raise InputError(f"{rel(run.json_path)}: scenario {name!r} reported twice")
        run.verdicts[name], run.details[name] = verdict_of(s)


# --- comparison -----------------------------------------------------------------------------


@dataclass
class Row:
    server: str
    scenario: str
    expected: str
    actual: str
    note: str
    fails: bool


def compare(run: Run, expected: dict[str, dict[str, str]]) -> list[Row]:
    rows = []
    for name in sorted(set(run.verdicts) | set(expected)):
        actual = run.verdicts.get(name)
        entry = expected.get(name)
        if entry is None:
            rows.append(Row(run.server, name, "-", actual, "NEW: no entry in the expected file", True))
            continue
        want = entry["status"]
        if actual is None:
            rows.append(Row(run.server, name, want, "-", "STALE: the entry names no scenario that ran", True))
            continue
        lacks = missing_reasons(entry)
        pending = "pending_fix" in entry
        if actual == "error":
            rows.append(Row(run.server, name, want, actual, f"ERROR: {run.details[name]}", True))
        elif lacks:
            rows.append(Row(run.server, name, want, actual, "INCOMPLETE: needs " + ", ".join(lacks), True))
        elif actual == want:
            rows.append(Row(run.server, name, want, actual,
                            "fixed? matches now: drop pending_fix (--update does)" if pending else "", False))
        elif pending:
            rows.append(Row(run.server, name, want, actual, "pending fix (see FINDINGS.md)", False))
        else:
            detail = run.details.get(name, "")
            rows.append(Row(run.server, name, want, actual, "MISMATCH" + (f": {detail}" if detail else ""), True))
    return rows


def print_table(rows: list[Row]) -> None:
    headers = ("server", "scenario", "expected", "actual", "")
    widths = [max(len(headers[i]), *(len(getattr(r, f)) for r in rows)) if rows else len(headers[i])
              for i, f in enumerate(("server", "scenario", "expected", "actual"))]
    def line(cols: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cols[:4], widths)) + ("  " + cols[4] if cols[4] else "")
    print(line(headers).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        note = r.note if len(r.note) <= 140 else r.note[:137] + "..."
        print(line((r.server, r.scenario, r.expected, r.actual, note)).rstrip())


# --- update ---------------------------------------------------------------------------------


def update(run: Run, expected: dict[str, dict[str, str]]) -> tuple[dict[str, dict[str, str]], list[str], list[str]]:
    """New entries from a fresh run: (entries, what changed, what needs a person)."""
    out: dict[str, dict[str, str]] = {}
    changed: list[str] = []
    todo: list[str] = []
    where = run.server
    for name in sorted(run.verdicts):
        actual = run.verdicts[name]
        entry = dict(expected.get(name, {}))
        old = entry.get("status")
        if actual == "error":
            todo.append(f"{where}: {name}: the suite could not run it ({run.details[name]}); entry left as it was")
            if entry:
                out[name] = entry
            continue
        if "pending_fix" in entry:
            if actual == old:
                del entry["pending_fix"]
                changed.append(f"{where}: {name}: the pending fix landed ({old}); pending_fix dropped")
            else:
                out[name] = entry
                continue
        elif old != actual:
            entry["status"] = actual
            changed.append(f"{where}: {name}: {old or 'new'} -> {actual}")
            if actual not in NEEDS_QUOTE and any(k in entry for k in ("spec", "quote", "why")):
                dropped = [k for k in ("spec", "quote", "why") if k in entry and not (k == "why" and actual == "beyond")]
                for k in dropped:
                    del entry[k]
                if dropped:
                    changed.append(f"{where}: {name}: dropped {', '.join(dropped)} (no longer a failure)")
            elif actual in NEEDS_QUOTE and entry.get("quote"):
                todo.append(f"{where}: {name}: now {actual} (was {old}): check that the kept quote still applies")
        entry["status"] = entry.get("status", actual)
        lacks = missing_reasons(entry)
        if lacks:
            todo.append(f"{where}: {name}: {entry['status']} needs " + ", ".join(lacks))
        out[name] = {k: entry[k] for k in FIELDS if k in entry}
    for name in sorted(set(expected) - set(run.verdicts)):
        changed.append(f"{where}: {name}: removed (no such scenario ran)")
    return out, changed, todo


# --- main -----------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="calibration/run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, type=Path, help="the mcp-conformance binary")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the statuses in calibration/expected/ from this run (quotes are kept)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="only this target (calibration/targets/NAME.yaml); repeatable")
    parser.add_argument("--jobs", type=int, default=0, metavar="N",
                        help="servers run at once (default: all)")
    parser.add_argument("-j", dest="jobs_per_run", type=int, default=0, metavar="N",
                        help="scenarios at once within one server's run (default: about twice the CPUs, "
                             "shared by the servers running at once)")
    parser.add_argument("--all", action="store_true", help="show the expected skips in the table too")
    parser.add_argument("--no-run", action="store_true",
                        help="judge the reports of the last run again (after editing expected files)")
    parser.add_argument("--reports", type=Path, default=ROOT / "target/calibration/reports",
                        help="where the JSON and human reports go (default: target/calibration/reports)")
    args = parser.parse_args(argv)

    binary = args.bin if args.bin.is_absolute() else ROOT / args.bin
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise InputError(f"{rel(binary)} is not an executable mcp-conformance")
    if args.jobs < 0 or args.jobs_per_run < 0:
        raise InputError("--jobs and -j take a positive number")

    targets = sorted((CAL / "targets").glob("*.yaml"))
    names = [t.stem for t in targets]
    unknown = [n for n in args.only if n not in names]
    if unknown:
        raise InputError(f"--only {unknown[0]}: no calibration/targets/{unknown[0]}.yaml (known: {', '.join(names)})")
    if args.only:
        targets = [t for t in targets if t.stem in args.only]
    if not targets:
        raise InputError("no target files in calibration/targets/")

    args.reports.mkdir(parents=True, exist_ok=True)
    runs = [Run(server=t.stem, target=t, expected_file=CAL / "expected" / f"{t.stem}.toml",
                json_path=args.reports / f"{t.stem}.json", log_path=args.reports / f"{t.stem}.txt")
            for t in targets]
    expected = {r.server: load_expected(r.expected_file) for r in runs}  # bad files fail before any run

    at_once = min(args.jobs or len(runs), len(runs))
    # Every scenario starts one to three server processes: keep the whole machine's share at
    # about two scenarios per CPU, so runtimes starting up do not starve each other.
    per_run = args.jobs_per_run or max(2, (2 * (os.cpu_count() or 1)) // at_once)
    started = time.monotonic()
    if args.no_run:
        print(f"== calibration: judging the last reports in {rel(args.reports)} again (--no-run)")
        for r in runs:
            if not r.json_path.exists():
                raise InputError(f"--no-run: {rel(r.json_path)} is missing; run calibration/run first")
            r.exit_code = 0
    else:
        print(f"== calibration: mcp-conformance check on {len(runs)} server(s), {at_once} at once, "
              f"-j {per_run} each, --protocol both", flush=True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=at_once) as pool:
            futures = [pool.submit(run_one, binary, r, per_run) for r in runs]
            for fut in concurrent.futures.as_completed(futures):
                r = fut.result()
                print(f"   {r.server}: mcp-conformance exit {r.exit_code} in {r.seconds:.1f} s ({rel(r.log_path)})",
                      flush=True)
    for r in runs:
        read_report(r)

    if args.update:
        changed_all: list[str] = []
        todo_all: list[str] = []
        for r in runs:
            entries, changed, todo = update(r, expected[r.server])
            write_expected(r.expected_file, r.target_name, r.target, entries)
            changed_all += changed
            todo_all += todo
        print(f"\n== calibration --update: {len(changed_all)} change(s) written to calibration/expected/")
        for c in changed_all:
            print(f"   {c}")
        still = [(r.server, n, e) for r in runs for n, e in load_expected(r.expected_file).items() if "pending_fix" in e
                 and r.verdicts.get(n) != e["status"]]
        if still:
            print(f"\n== pending fixes kept ({len(still)}): the suite's verdict is known to be wrong, see FINDINGS.md")
            for server, name, e in still:
                print(f"   {server}: {name}: suite says {r_verdict(runs, server, name)}, should be {e['status']}")
        if todo_all:
            print(f"\n== needs a person ({len(todo_all)}): no quote is invented")
            for t in todo_all:
                print(f"   {t}")
            return 1
        return 0

    rows = [row for r in runs for row in compare(r, expected[r.server])]
    quiet = [r for r in rows if r.expected == r.actual == "skipped" and not r.note]
    print()
    print_table(rows if args.all else [r for r in rows if r not in quiet])
    if quiet and not args.all:
        print(f"({len(quiet)} scenarios skipped as expected are not shown: --all shows every row)")
    failing = [r for r in rows if r.fails]
    pending = [r for r in rows if not r.fails and r.note.startswith("pending")]
    fixed = [r for r in rows if not r.fails and r.note.startswith("fixed?")]
    counts: dict[str, int] = {}
    for r in rows:
        if r.actual != "-":
            counts[r.actual] = counts.get(r.actual, 0) + 1
    print(f"\n== calibration: {len(rows)} verdicts ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))}) "
          f"in {time.monotonic() - started:.1f} s")
    if pending:
        print(f"\n== pending fixes ({len(pending)}): the suite's own verdict is wrong here (calibration/FINDINGS.md);"
              " reported, not failed")
        for r in pending:
            entry = expected[r.server][r.scenario]
            print(f"   {r.server}: {r.scenario}: suite says {r.actual}, should be {r.expected}: {entry['pending_fix']}")
    if fixed:
        print(f"\n== pending fixes that now hold ({len(fixed)}): run calibration/run --update to drop pending_fix")
        for r in fixed:
            print(f"   {r.server}: {r.scenario}: {r.actual}")
    if failing:
        print(f"\n== calibration FAILED: {len(failing)} verdict(s) not as expected")
        for r in failing:
            print(f"   {r.server}: {r.scenario}: expected {r.expected}, got {r.actual}: {r.note}")
        logs = sorted({rel(run.log_path) for run in runs if any(f.server == run.server for f in failing)})
        print(f"   human reports (transcripts of failures): {', '.join(logs)}")
        print("   a real change of verdict: calibration/run --update, then quote the spec for each new failure")
        return 1
    print("== calibration passed: every verdict as expected")
    return 0


def r_verdict(runs: list[Run], server: str, name: str) -> str:
    for r in runs:
        if r.server == server:
            return r.verdicts.get(name, "-")
    return "-"


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        print(f"calibration/run: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
