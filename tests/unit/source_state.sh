#!/usr/bin/env bash
# cmake/SourceState.cmake on a scratch git repository: the commit it records is HEAD's; the tree is
# "clean" until a tracked file changes or an untracked file appears; the same change gives the same
# hash and a different change (or an added untracked file) another; outside git it says unknown.
# Then the programs of this build: --version's source line and a report's context.versions name
# the same commit and tree state as the file generated at build time.
# usage: source_state.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
source_dir=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
state() {  # the two values the generated file returns, "commit|tree"
  cmake -DSOURCE_DIR="$work/repo" -DOUTPUT="$work/state.cpp" -P "$source_dir/cmake/SourceState.cmake" || fail "the script failed"
  sed -n 's/.*return "\(.*\)"; }$/\1/p' "$work/state.cpp" | paste -sd'|'
}

mkdir -p "$work/repo"
[ "$(state)" = "unknown|unknown (not built from a git checkout)" ] || fail "outside git: $(state)"
git -C "$work/repo" init -q && git -C "$work/repo" config user.email t@t && git -C "$work/repo" config user.name t
echo one > "$work/repo/file" && git -C "$work/repo" add file && git -C "$work/repo" commit -qm one
head=$(git -C "$work/repo" rev-parse HEAD)
[ "$(state)" = "$head|clean" ] || fail "a clean tree: $(state), want $head|clean"
echo two > "$work/repo/file"
first=$(state)
[[ $first =~ ^$head\|modified\ \(diff\ sha256\ [0-9a-f]{16}\)$ ]] || fail "a modified file: $first"
[ "$(state)" = "$first" ] || fail "the same change hashed differently"
echo three > "$work/repo/file"
[ "$(state)" != "$first" ] || fail "a different change gave the same hash"
echo two > "$work/repo/file"
echo new > "$work/repo/untracked"
[ "$(state)" != "$first" ] || fail "an untracked file did not change the hash"
echo newer > "$work/repo/untracked"
with_untracked=$(state)
echo new > "$work/repo/untracked"
[ "$(state)" != "$with_untracked" ] || fail "an untracked file's content did not change the hash"
git -C "$work/repo" add -A && git -C "$work/repo" commit -qm two
[ "$(state)" = "$(git -C "$work/repo" rev-parse HEAD)|clean" ] || fail "after the commit: $(state)"

# This build's programs say what their generated file says.
generated="$build/generated/source_state.cpp"
[ -f "$generated" ] || fail "no $generated"
commit=$(sed -n 's/.*collbench_source_commit() { return "\(.*\)"; }$/\1/p' "$generated")
tree=$(sed -n 's/.*collbench_source_tree() { return "\(.*\)"; }$/\1/p' "$generated")
"$build/bin/all_reduce_perf" --version > "$work/version" || fail "--version exited $?"
grep -qxF "source: commit $commit, tree $tree" "$work/version" || fail "--version: $(cat "$work/version"), want commit $commit, tree $tree"
"$build/bin/all_reduce_perf" -b 8 -e 8 -n 1 -w 0 -J "$work/report.json" > /dev/null || fail "all_reduce_perf exited $?"
[ "$(jq -r '.context.versions.collbench_commit' "$work/report.json")" = "$commit" ] &&
  [ "$(jq -r '.context.versions.collbench_tree' "$work/report.json")" = "$tree" ] ||
  fail "the report names $(jq -c '.context.versions' "$work/report.json")"
case $tree in modified*) suffix="-dirty" ;; *) suffix="" ;; esac
jq -r '.context.versions.collbench' "$work/report.json" | grep -Eq "\+g${commit:0:7}${suffix}$" ||
  fail "versions.collbench $(jq -r '.context.versions.collbench' "$work/report.json") does not end in +g${commit:0:7}$suffix"
echo "ok: commit and tree state recorded as git says, and named by --version and the report ($commit, $tree)"
