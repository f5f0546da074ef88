#!/usr/bin/env bash
# scripts/ci-perf.sh --base-ref REF end to end on a real change in a temporary git repository
# (issue 65): REF is unpacked from git, built by its own scripts/build.sh into the cache folder of
# its commit, and run against this build with collbench ab, paired; the change is found (exit 1);
# a second check builds nothing; a build that fails leaves no folder taken for built. The
# repository holds this tree's ci-perf.sh and the scripts it sources; its build.sh makes stand-in
# *_perf programs (each copies a report to its -J path: the base commit's the fixture BASE, the
# change's one 30 % slower) and links the real collbench, so no compiler runs here.
# usage: ci_perf_base_ref.sh COLLBENCH FIXTURE_DIR (tests/data/summarize/compare: base.json, slower.json)
set -uo pipefail
collbench=$1 fixtures=$2 scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)"
work=$(mktemp -d) failures=0
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; tail -5 "$work/stderr" 2>/dev/null; failures=$((failures + 1)); }

repo="$work/repo"
mkdir -p "$repo/scripts"
for script in ci-perf.sh check-variables.sh owned.sh mpirun-local.sh launch-local.sh; do
  [ -f "$scripts/$script" ] && cp "$scripts/$script" "$repo/scripts/"
done
# write_build REPORT: a build.sh whose programs copy REPORT (a file in the repository) to their -J path.
write_build() {
  cp "$fixtures/$1" "$repo/report.json"
  cat > "$repo/scripts/build.sh" <<EOF
#!/usr/bin/env bash
# A stand-in build: the suite's programs copy this commit's report.json to their -J path.
set -e
root="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)"
[ "\${1:-}" = --suite ] || { echo "expected --suite" >&2; exit 2; }
[ -f "\$root/broken" ] && { echo "this commit does not build" >&2; exit 1; }
mkdir -p "\$BUILD_DIR/bin"
cp "\$root/report.json" "\$BUILD_DIR/report.json"
ln -sf "$collbench" "\$BUILD_DIR/bin/collbench"
echo "built \$(date +%s.%N)" >> "$work/builds.log"
for collective in all_reduce broadcast all_gather; do
  printf '#!/usr/bin/env bash\nwhile [ \$# -gt 0 ]; do [ "\$1" = -J ] && cp "%s" "\$2"; shift; done\n' "\$BUILD_DIR/report.json" > "\$BUILD_DIR/bin/\${collective}_perf"
  chmod +x "\$BUILD_DIR/bin/\${collective}_perf"
done
EOF
  chmod +x "$repo/scripts/build.sh"
}
git -C "$repo" init -q && git -C "$repo" config user.email t@example.com && git -C "$repo" config user.name test
write_build base.json
git -C "$repo" add -A && git -C "$repo" commit -qm base
write_build slower.json  # the change: every figure 30 % slower
git -C "$repo" commit -qam change
BUILD_DIR="$repo/build" bash "$repo/scripts/build.sh" --suite >/dev/null || fail "the change's stand-in build"
base=$(git -C "$repo" rev-parse HEAD~1)

check() {  # check REF: the paired check of the change against REF, 5 pairs a collective
  BUILD_DIR="$repo/build" CI_PERF_CACHE="$work/cache" OUT="$work/out-$RANDOM" NP=1 RUNS=5 MAX_RUNS=5 \
    timeout 240 bash "$repo/scripts/ci-perf.sh" --base-ref "$1" >"$work/stdout" 2>"$work/stderr"
}
check HEAD~1
code=$?
if [ "$code" -ne 1 ] || [ ! -f "$work/cache/$base/built" ] || [ "$(grep -c built "$work/builds.log")" -ne 2 ] ||
   ! grep -q "building HEAD~1 ($base)" "$work/stderr" || [ "$(grep -c '^| .* SLOWER |$' "$work/stdout")" -lt 3 ] ||
   ! grep -q "A: $work/cache/$base/build/bin" "$work/stdout"; then
  fail "--base-ref HEAD~1: exit $code (want 1, SLOWER, REF built once into the cache); $(grep -c built "$work/builds.log") builds"
else
  echo "ok: --base-ref HEAD~1 builds the base into the cache and finds the 30 % change (exit 1)"
fi
check "$base"
code=$?
[ "$code" -eq 1 ] && [ "$(grep -c built "$work/builds.log")" -eq 2 ] && ! grep -q building "$work/stderr" &&
  echo "ok: a second check reuses the cached build" || fail "the second check: exit $code, $(grep -c built "$work/builds.log") builds"
# A commit that fails to build: exit 1 naming its log, and no folder taken for built.
touch "$repo/broken" && git -C "$repo" add broken && git -C "$repo" commit -qm broken
broken=$(git -C "$repo" rev-parse HEAD)
check HEAD
code=$?
[ "$code" -eq 1 ] && [ ! -f "$work/cache/$broken/built" ] && grep -q "building HEAD ($broken) failed; see $work/cache/$broken/build.log" "$work/stderr" &&
  echo "ok: a failed build is exit 1 and is not cached" || fail "a failed build: exit $code"
[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases ok"
