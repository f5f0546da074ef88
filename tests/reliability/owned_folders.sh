#!/usr/bin/env bash
# The scripts that clean up remove only what they made and signal only the daemons they started
# (issue 64, scripts/owned.sh): a state folder of other files is refused with one line and left
# whole, a pid file naming some other process kills nothing, a namespace the cluster scripts did
# not make is left alone. The Slurm and namespace cases need root (they skip their part without it).
# usage: owned_folders.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
work=$(mktemp -d)
bystanders=()
cleanup() {
  local pid
  for pid in "${bystanders[@]}"; do kill "$pid" 2>/dev/null; done
  [ -n "${foreign_ns:-}" ] && ip netns del "$foreign_ns" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# A folder of a user's files: none may change.
make_users_folder() { mkdir -p "$1/reports" && echo precious >"$1/reports/r.json" && echo notes >"$1/notes.txt"; }
users_folder_whole() { [ "$(cat "$1/reports/r.json" "$1/notes.txt" 2>/dev/null)" = $'precious\nnotes' ] && [ ! -e "$1/.collbench-owner" ]; }
# one_line FILE WORD: FILE is one line that names WORD.
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && grep -qF -- "$2" "$1"; }
# A process that is nobody's daemon; its pid goes into pid files.
# Every background process keeps its output away from ctest's pipe, which would wait for it.
bystander() { sleep 120 </dev/null >/dev/null 2>&1 & bystanders+=($!); }
# A stand-in daemon started with PATH in its command line, as up.sh starts each one; a loop of short
# sleeps, so that nothing of it outlives the signal by more than 0.2 s.
daemon_with() { bash -c 'while :; do sleep 0.2; done' "$1" </dev/null >/dev/null 2>&1 & }

# --- scripts/owned.sh itself ---
(
  program=test
  . "$source_dir/scripts/owned.sh"
  owned_folder_make "$work/new" tester && [ "$(cat "$work/new/.collbench-owner")" = "tester made" ] || exit 1
  owned_folder_remove "$work/new" tester && [ ! -e "$work/new" ] || exit 2
  mkdir "$work/empty"
  owned_folder_make "$work/empty" tester && touch "$work/empty/x" && owned_folder_remove "$work/empty" tester || exit 3
  [ -d "$work/empty" ] && [ -z "$(ls -A "$work/empty")" ] || exit 4  # adopted: emptied, kept
  make_users_folder "$work/users"
  owned_folder_make "$work/users" tester 2>"$work/err" && exit 5
  one_line "$work/err" "$work/users" || exit 6
  owned_folder_remove "$work/users" tester 2>/dev/null && exit 7
  owned_folder_make "$work/marked" other && ! owned_folder_remove "$work/marked" tester 2>/dev/null && [ -d "$work/marked" ] || exit 8
  users_folder_whole "$work/users" || exit 9
  sleep 120 </dev/null >/dev/null 2>&1 &
  pid=$!
  owned_pid "$pid" "$work/" && exit 10
  [ -z "$(owned_pids "$work/" "$pid" 1 abc 2>/dev/null)" ] || exit 11
  kill "$pid"
  daemon_with "$work/state/x"
  pid=$!
  sleep 0.2
  owned_pid "$pid" "$work/" || exit 12
  kill "$pid"
) && ok "owned.sh: made, adopted, foreign and another script's folders; pids by command line" || fail "owned.sh (step $?)"

# --- scripts/slurm/up.sh: a state folder of other files is refused before anything runs ---
make_users_folder "$work/state"
CB_SLURM_STATE="$work/state" bash "$source_dir/scripts/slurm/up.sh" >"$work/out" 2>"$work/err"
code=$?
if [ "$code" -eq 2 ] && one_line "$work/err" "$work/state" && users_folder_whole "$work/state"; then
  ok "up.sh refuses a folder of other files: $(cat "$work/err")"
else
  fail "up.sh on a folder of other files: exit $code, $(cat "$work/err"); $(ls -A "$work/state")"
fi

if [ "$(id -u)" -eq 0 ]; then
  # --- scripts/slurm/down.sh: a folder up.sh never made, whose munged.pid names a bystander ---
  bystander
  echo "${bystanders[-1]}" >"$work/state/munged.pid"
  CB_SLURM_STATE="$work/state" bash "$source_dir/scripts/slurm/down.sh" >"$work/out" 2>"$work/err"
  code=$?
  if [ "$code" -eq 2 ] && one_line "$work/err" "$work/state" && users_folder_whole "$work/state" && kill -0 "${bystanders[-1]}"; then
    ok "down.sh refuses a folder up.sh did not make, signals nothing"
  else
    fail "down.sh on a foreign folder: exit $code, $(cat "$work/err"); bystander $(kill -0 "${bystanders[-1]}" 2>&1 && echo alive || echo killed)"
  fi
  # Its own folder (marked as up.sh marks it) whose pid files name a bystander and one of its own
  # daemons: the daemon is stopped, the bystander is not, and the folder goes.
  mkdir -p "$work/own"
  echo "scripts/slurm/up.sh made" >"$work/own/.collbench-owner"
  bystander
  echo "${bystanders[-1]}" >"$work/own/munged.pid"
  daemon_with "$work/own/slurm.conf"
  daemon=$!
  echo "$daemon" >"$work/own/slurmctld.pid"
  CB_SLURM_STATE="$work/own" bash "$source_dir/scripts/slurm/down.sh" >"$work/out" 2>"$work/err"
  code=$?
  sleep 0.2
  if [ "$code" -eq 0 ] && [ ! -e "$work/own" ] && kill -0 "${bystanders[-1]}" && ! kill -0 "$daemon" 2>/dev/null &&
     grep -q "pid ${bystanders[-1]} is not a process this script started" "$work/err"; then
    ok "down.sh stops its own daemon, not a pid file's bystander"
  else
    fail "down.sh on its own folder: exit $code, $(cat "$work/err"); own folder $([ -e "$work/own" ] && echo kept || echo gone)"
  fi
  kill "$daemon" 2>/dev/null

  # --- scripts/cluster/down.sh: a namespace its prefix names that the scripts did not make ---
  prefix="cbown$$"
  foreign_ns="$prefix-host-a"
  if ip netns add "$foreign_ns" 2>/dev/null; then
    ip netns exec "$foreign_ns" sleep 120 </dev/null >/dev/null 2>&1 &
    inside=$!
    bystanders+=("$inside")
    CB_CLUSTER_PREFIX=$prefix CB_CLUSTER_MARKS="$work/marks" bash "$source_dir/scripts/cluster/down.sh" >"$work/out" 2>"$work/err"
    code=$?
    if [ "$code" -eq 2 ] && one_line "$work/err" "$foreign_ns" && [ -e "/run/netns/$foreign_ns" ] && kill -0 "$inside"; then
      ok "cluster down.sh leaves another's namespace and its processes: $(cat "$work/err")"
    else
      fail "cluster down.sh on another's namespace: exit $code, $(cat "$work/err")"
    fi
  else
    echo "skip: no network namespaces here (cluster down.sh)"
  fi
else
  echo "skip: not root (down.sh and the namespace cases)"
fi
[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases ok"
