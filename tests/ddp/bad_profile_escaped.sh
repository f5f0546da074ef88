#!/usr/bin/env bash
# A compute profile whose layer name carries terminal escapes (an OSC title change, a colour):
# exit 2, one error line, and not one escape or bell byte from the file on stdout or stderr.
# usage: bad_profile_escaped.sh BIN_DIR MODEL PROFILE
set -uo pipefail
bin_dir=$1 model=$2 profile=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timeout 60 "$here/../../scripts/mpirun-local.sh" -np 2 "$bin_dir/ddp_step_perf" --model "$model" --compute-profile "$profile" \
  >"$work/stdout" 2>"$work/stderr"
status=$?
lines=$(grep -c "^ddp_step_perf: error: " "$work/stderr")
if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ]; then
  echo "FAIL: exit $status (want 2), $lines error lines (want 1)"
  cat -v "$work/stderr"
  exit 1
fi
if LC_ALL=C grep -q $'[\x1b\x07]' "$work/stdout" "$work/stderr"; then
  echo "FAIL: an escape or bell byte from the profile reached the terminal:"
  cat -v "$work/stderr"
  exit 1
fi
echo "ok: $(grep "^ddp_step_perf: error: " "$work/stderr")"
