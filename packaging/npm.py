#!/usr/bin/env python3
"""Pack a built `mcp-conformance` binary as the npm packages: the platform package
`@mcp-conformance/cli-<os>-<cpu>` (the binary, chosen by npm from `os` and `cpu`) and the main
package `mcp-conformance` (a launcher, with one optional dependency per platform: the pattern
biome and esbuild use; no install script, nothing downloaded):

    packaging/npm.py --binary PATH --version V --out DIR [--platform OS-CPU | --triple T]

Prints the two tarballs' paths (`npm pack` makes them). The platform defaults to this
machine's (linux-x64, linux-arm64, darwin-x64, darwin-arm64). Python 3 standard library and
npm.
"""

import argparse
import json
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"]
# The npm platform of each release archive's target triple (.github/workflows/release.yml).
TRIPLE_PLATFORMS = {
    "x86_64-unknown-linux-gnu": "linux-x64",
    "aarch64-unknown-linux-gnu": "linux-arm64",
    "x86_64-apple-darwin": "darwin-x64",
    "aarch64-apple-darwin": "darwin-arm64",
}
COMMON = {
    "license": "MIT",
    "homepage": "https://github.com/mcp-conformance/mcp-conformance",
    "repository": {"type": "git", "url": "git+https://github.com/mcp-conformance/mcp-conformance.git"},
}


def this_platform():
    os_name = {"linux": "linux", "darwin": "darwin"}.get(sys.platform)
    cpu = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower())
    if not os_name or not cpu:
        raise SystemExit(f"packaging/npm.py: no npm platform for {sys.platform}/{platform.machine()}")
    return f"{os_name}-{cpu}"


def pack(folder, out):
    done = subprocess.run(["npm", "pack", "--pack-destination", str(out)], cwd=folder,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"packaging/npm.py: npm pack in {folder.name}: {done.stderr.strip()}")
    return out / done.stdout.strip().splitlines()[-1]


def build(binary, version, out, plat):
    out.mkdir(parents=True, exist_ok=True)
    out = out.resolve()
    os_name, cpu = plat.split("-")
    with tempfile.TemporaryDirectory() as tmp:
        native = Path(tmp) / "native"
        (native / "bin").mkdir(parents=True)
        shutil.copy2(binary, native / "bin" / "mcp-conformance")
        (native / "bin" / "mcp-conformance").chmod(0o755)
        (native / "package.json").write_text(json.dumps({
            "name": f"@mcp-conformance/cli-{plat}", "version": version,
            "description": f"The mcp-conformance binary for {plat} (installed by mcp-conformance)",
            "os": [os_name], "cpu": [cpu], "files": ["bin/mcp-conformance"],
            "preferUnplugged": True, **COMMON,
        }, indent=2) + "\n", encoding="utf-8")
        main = Path(tmp) / "main"
        (main / "bin").mkdir(parents=True)
        shutil.copy2(ROOT / "packaging" / "npm" / "launcher.js", main / "bin" / "mcp-conformance.js")
        shutil.copy2(ROOT / "packaging" / "pypi" / "README.md", main / "README.md")
        (main / "package.json").write_text(json.dumps({
            "name": "mcp-conformance", "version": version,
            "description": "Black-box conformance suite for MCP stdio servers",
            "bin": {"mcp-conformance": "bin/mcp-conformance.js"},
            "files": ["bin/mcp-conformance.js", "README.md"],
            "engines": {"node": ">=18"},
            "optionalDependencies": {f"@mcp-conformance/cli-{p}": version for p in PLATFORMS},
            **COMMON,
        }, indent=2) + "\n", encoding="utf-8")
        return pack(native, out), pack(main, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True, type=Path)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--platform", choices=PLATFORMS)
    ap.add_argument("--triple", choices=sorted(TRIPLE_PLATFORMS),
                    help="the release archive's target triple (sets the platform)")
    args = ap.parse_args()
    if not args.binary.is_file():
        print(f"packaging/npm.py: no binary at {args.binary}", file=sys.stderr)
        return 2
    plat = args.platform or TRIPLE_PLATFORMS.get(args.triple or "") or this_platform()
    for tarball in build(args.binary, args.version, args.out, plat):
        print(tarball)
    return 0


if __name__ == "__main__":
    sys.exit(main())
