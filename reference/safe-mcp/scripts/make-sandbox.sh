#!/bin/sh
# Makes a quickstart sandbox for safe-mcp under BASE (default: ./safe-mcp-sandbox):
#   BASE/sandbox/      the terminal jail (jail_root)
#   BASE/inbox/        the files workspace (workspace_root)
#   BASE/state/        audit log and undo journal, beside and outside both jails
#   BASE/policy.toml   policy.example.toml with these absolute paths filled in
# Idempotent: existing folders and files are kept; the policy is rewritten only if it differs.
# Usage: make-sandbox.sh [BASE]
set -eu

script_dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)
example="$script_dir/../policy.example.toml"
[ -f "$example" ] || { echo "fatal: $example not found" >&2; exit 1; }

base=${1:-./safe-mcp-sandbox}
if [ ! -d "$base" ]; then
    mkdir -p -- "$base"
    echo "created $base"
fi
base=$(CDPATH= cd -- "$base" && pwd -P)

for dir in sandbox inbox state; do
    if [ -d "$base/$dir" ]; then
        echo "exists  $base/$dir"
    else
        mkdir -p -- "$base/$dir"
        echo "created $base/$dir"
    fi
done

if [ ! -e "$base/sandbox/notes.txt" ]; then
    echo "demo file" > "$base/sandbox/notes.txt"
    echo "created $base/sandbox/notes.txt"
fi

# A TOML basic string holding $1, escaped for a sed replacement (delimiter |).
value() {
    printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')" |
        sed -e 's/[\\&|]/\\&/g'
}
case $base in
    *'
'*) echo "fatal: the base path contains a newline" >&2; exit 1 ;;
esac

policy="$base/policy.toml"
tmp="$policy.tmp.$$"
trap 'rm -f -- "$tmp"' EXIT
sed \
    -e "s|^audit_log = \"state/audit.jsonl\"|audit_log = $(value "$base/state/audit.jsonl")|" \
    -e "s|^jail_root = \"sandbox\"|jail_root = $(value "$base/sandbox")|" \
    -e "s|^workspace_root = \"inbox\"|workspace_root = $(value "$base/inbox")|" \
    -e "s|^journal = \"state/organizer-journal.json\"|journal = $(value "$base/state/organizer-journal.json")|" \
    "$example" > "$tmp"
for key in audit_log jail_root workspace_root journal; do
    grep -q "^$key = \"/" "$tmp" || {
        echo "fatal: could not fill in $key from $example" >&2
        exit 1
    }
done
if [ -f "$policy" ] && cmp -s "$tmp" "$policy"; then
    echo "exists  $policy"
else
    mv -f -- "$tmp" "$policy"
    echo "wrote   $policy"
fi

cat <<MSG

Run the servers (safe-mcp from target/debug, target/release or PATH):
  safe-mcp terminal --config '$policy'
  safe-mcp files --config '$policy'
MSG
