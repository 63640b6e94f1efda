#!/usr/bin/env python3
"""Pack a built `mcp-conformance` binary into a binary wheel, the shape maturin's
`bindings = "bin"` gives (packaging/pypi/pyproject.toml builds the same from source):

    packaging/wheel.py --binary PATH --version V --out DIR [--platform-tag TAG | --triple T]

The wheel holds the binary as `mcp_conformance-V.data/scripts/mcp-conformance` (pip installs it
on the environment's PATH, executable) and the dist-info files (METADATA, WHEEL, LICENSE,
RECORD with a SHA-256 per file). The platform tag defaults to this machine's
(`manylinux_2_28_<arch>` on Linux with glibc 2.28 or later, as the release archives; a macOS
tag on macOS). Prints the wheel's path. Python 3 standard library only.

Why not maturin here: maturin compiles the crate itself, and CI smokes the binary it already
built (a second build would relink the binary other jobs are running); the release builds the
published wheels with maturin from packaging/pypi/.
"""

import argparse
import base64
import hashlib
import os
import platform
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "mcp_conformance"
SUMMARY = "Black-box conformance suite for MCP stdio servers"


# The wheel tag of each release archive's target triple (.github/workflows/release.yml).
TRIPLE_TAGS = {
    "x86_64-unknown-linux-gnu": "manylinux_2_28_x86_64",
    "aarch64-unknown-linux-gnu": "manylinux_2_28_aarch64",
    "aarch64-apple-darwin": "macosx_11_0_arm64",
    "x86_64-apple-darwin": "macosx_10_12_x86_64",
}


def platform_tag():
    """This machine's wheel platform tag."""
    machine = platform.machine().lower()
    if sys.platform.startswith("linux"):
        arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
        if not libc.startswith("glibc "):
            raise SystemExit("packaging/wheel.py: not a glibc Linux; pass --platform-tag")
        major, minor = (int(x) for x in libc.split()[1].split(".")[:2])
        if (major, minor) < (2, 28):
            raise SystemExit(f"packaging/wheel.py: {libc} is older than the wheels' 2.28")
        return f"manylinux_2_28_{arch}"
    if sys.platform == "darwin":
        arch = "arm64" if machine == "arm64" else "x86_64"
        floor = "11_0" if arch == "arm64" else "10_12"
        return f"macosx_{floor}_{arch}"
    raise SystemExit(f"packaging/wheel.py: no wheel tag for {sys.platform}; pass --platform-tag")


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def metadata(version):
    readme = (ROOT / "packaging" / "pypi" / "README.md").read_text(encoding="utf-8")
    return (
        "Metadata-Version: 2.1\n"
        f"Name: mcp-conformance\nVersion: {version}\nSummary: {SUMMARY}\n"
        "License: MIT\nRequires-Python: >=3.8\n"
        "Project-URL: Source, https://github.com/mcp-conformance/mcp-conformance\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )


def build(binary, version, out, tag):
    dist_info = f"{NAME}-{version}.dist-info"
    files = [
        (f"{NAME}-{version}.data/scripts/mcp-conformance", binary.read_bytes(), 0o755),
        (f"{dist_info}/METADATA", metadata(version).encode(), 0o644),
        (f"{dist_info}/WHEEL", (
            "Wheel-Version: 1.0\nGenerator: mcp-conformance packaging/wheel.py\n"
            f"Root-Is-Purelib: false\nTag: py3-none-{tag}\n").encode(), 0o644),
        (f"{dist_info}/LICENSE", (ROOT / "LICENSE").read_bytes(), 0o644),
    ]
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{NAME}-{version}-py3-none-{tag}.whl"
    records = [record_line(name, data) for name, data, _ in files]
    records.append(f"{dist_info}/RECORD,,")
    files.append((f"{dist_info}/RECORD", ("\n".join(records) + "\n").encode(), 0o644))
    tmp = wheel.with_suffix(".whl.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, wheel)
    return wheel


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True, type=Path)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--platform-tag")
    ap.add_argument("--triple", choices=sorted(TRIPLE_TAGS),
                    help="the release archive's target triple (sets the platform tag)")
    args = ap.parse_args()
    if not args.binary.is_file():
        print(f"packaging/wheel.py: no binary at {args.binary}", file=sys.stderr)
        return 2
    tag = args.platform_tag or TRIPLE_TAGS.get(args.triple or "") or platform_tag()
    print(build(args.binary, args.version, args.out, tag))
    return 0


if __name__ == "__main__":
    sys.exit(main())
