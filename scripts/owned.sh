# shellcheck shell=bash
# Sourced by every script that cleans up after itself (slurm/, cluster/, ci-perf.sh, gpu-verify.sh):
# a script removes only what it made and signals only the daemons it started (issue 64). A folder it
# makes carries a mark, .collbench-owner, naming the script; a folder without that mark, or with
# another script's, is refused with one line and never emptied. The caller sets `program` (its name,
# for the line).

owned_mark=.collbench-owner

# owned_folder_make DIR OWNER: makes DIR and marks it as OWNER's. An existing DIR is taken only when
# it is OWNER's already or empty (nothing in it can be lost; it is then "adopted": removing it later
# empties it and leaves the folder). Anything else: one line on stderr, status 2.
owned_folder_make() {
  local dir=$1 owner=$2
  if [ -e "$dir" ] || [ -L "$dir" ]; then
    owned_folder_is "$dir" "$owner" && return 0
    if [ -d "$dir" ] && [ ! -L "$dir" ] && [ -z "$(ls -A "$dir" 2>/dev/null)" ] && [ -w "$dir" ]; then
      echo "$owner adopted" >"$dir/$owned_mark" && return 0
    fi
    owned_refuse "$dir" "$owner"
    return 2
  fi
  mkdir -p "$dir" && echo "$owner made" >"$dir/$owned_mark"
}

# owned_folder_usable DIR OWNER: what owned_folder_make would take (absent, OWNER's, or empty),
# checked before anything starts; otherwise one line on stderr and status 2.
owned_folder_usable() {
  if [ -e "$1" ] || [ -L "$1" ]; then
    owned_folder_is "$1" "$2" && return 0
    [ -d "$1" ] && [ ! -L "$1" ] && [ -z "$(ls -A "$1" 2>/dev/null)" ] && return 0
    owned_refuse "$1" "$2"
    return 2
  fi
}

# owned_folder_is DIR OWNER: status 0 when DIR is a real folder (not a link) that OWNER marked.
owned_folder_is() {
  [ -d "$1" ] && [ ! -L "$1" ] && [ -f "$1/$owned_mark" ] && [ ! -L "$1/$owned_mark" ] &&
    [ "$(head -c 200 "$1/$owned_mark" | head -1 | sed 's/ \(made\|adopted\)$//')" = "$2" ]
}

# owned_refuse DIR OWNER: the one line for a folder OWNER did not make.
owned_refuse() {
  echo "$program: error: $1 exists and was not made by $2 (no $owned_mark naming it); refusing to touch it: choose another folder" >&2
}

# owned_folder_remove DIR OWNER: removes DIR (only its contents when it was adopted) when OWNER
# marked it; nothing when DIR is absent; otherwise one line on stderr and status 2, DIR untouched.
owned_folder_remove() {
  local dir=$1 owner=$2
  [ -e "$dir" ] || [ -L "$dir" ] || return 0
  if ! owned_folder_is "$dir" "$owner"; then
    owned_refuse "$dir" "$owner"
    return 2
  fi
  if grep -q ' adopted$' "$dir/$owned_mark"; then
    find "$dir" -mindepth 1 -maxdepth 1 ! -name "$owned_mark" -exec rm -rf {} + && rm -f "$dir/$owned_mark"
  else
    rm -rf "$dir"
  fi
}

# owned_pid PID TEXT: status 0 when PID is a live process whose command line holds TEXT (the state
# folder or namespace it was started with). A pid file can outlive its daemon and its pid be given
# to any other process; only one started with our TEXT is ours to signal.
owned_pid() {
  local pid=$1 text=$2
  [[ $pid =~ ^[0-9]{1,9}$ ]] && [ "$pid" -gt 1 ] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$text"
}

# owned_pids TEXT PID...: the PIDs that owned_pid accepts, blank-separated; a line on stderr for
# each one refused while alive (a reused pid, a file someone else wrote).
owned_pids() {
  local text=$1 pid kept=""
  shift
  for pid in "$@"; do
    if owned_pid "$pid" "$text"; then
      kept+="$pid "
    elif [[ $pid =~ ^[0-9]+$ ]] && [ -e "/proc/$pid" ]; then
      echo "$program: warning: pid $pid is not a process this script started (its command line does not name $text); not signalled" >&2
    fi
  done
  echo "$kept"
}
