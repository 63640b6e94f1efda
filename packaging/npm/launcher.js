#!/usr/bin/env node
// mcp-conformance for npm: runs the native binary of the platform package npm installed
// beside this one (one optional dependency per platform, chosen by npm from `os` and `cpu`;
// nothing is downloaded at install time). Arguments, standard streams and the exit status
// (or the signal) pass through unchanged.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const PLATFORMS = {
  "linux x64": "@mcp-conformance/cli-linux-x64",
  "linux arm64": "@mcp-conformance/cli-linux-arm64",
  "darwin x64": "@mcp-conformance/cli-darwin-x64",
  "darwin arm64": "@mcp-conformance/cli-darwin-arm64",
};

function binary() {
  const key = `${process.platform} ${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    console.error(`mcp-conformance: no native binary for ${key} (supported: ${Object.keys(PLATFORMS).join(", ")})`);
    process.exit(2);
  }
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", "mcp-conformance");
  } catch {
    console.error(`mcp-conformance: the platform package ${pkg} is not installed (was the install run with --no-optional or --omit=optional?)`);
    process.exit(2);
  }
}

const result = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`mcp-conformance: cannot run the native binary: ${result.error.message}`);
  process.exit(2);
}
if (result.signal) {
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
