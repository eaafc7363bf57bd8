#!/usr/bin/env bash
# A newcomer's first `npm run local` on a fresh machine: a fresh clone of the committed HEAD, an
# empty HOME (so no npm, Go, pip or cargo cache and no earlier build of this project is reused),
# then `npm run local` timed end to end, setup included. Prints the time of each setup component
# and of each phase (setup, build, run, summary), and fails unless the run ends COMPLETE.
# Target: ≤ 240 s (a newcomer's first result within four minutes).
#
#   npm run bench:first-run
#
# What an empty HOME cannot undo: Debian packages already installed on this host (apt installs
# system-wide). Those the quick run needs are listed with their estimate from assets/install.json,
# and added to a second total for a machine that lacks them too (an upper bound: they install
# beside the server's Go build).
set -euo pipefail
if (( $# )); then echo "bench:first-run: it takes no options (got: $*)" >&2; echo "  fix: run it without arguments: npm run bench:first-run" >&2; exit 2; fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
TARGET_S=240
work="$(mktemp -d /tmp/s3ab-first-run-XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
git clone -q --no-local "$root" "$work/repo"
cd "$work/repo"
# The toolchains stay (Node, Go, Rust, Python are on the fresh machine); their caches do not.
export HOME="$work/home" RUSTUP_HOME="${RUSTUP_HOME:-/root/.rustup}" CARGO_HOME="${CARGO_HOME:-/root/.cargo}"
unset GOPATH GOCACHE GOMODCACHE S3AB_CACHE XDG_CACHE_HOME npm_config_cache
log="$work/local.log"
# Each line of the output stamped with its time since the start: the phases are read from it.
start=$EPOCHREALTIME
status=0
npm run -s local 2>&1 | while IFS= read -r line; do printf '%.1f %s\n' "$(echo "$EPOCHREALTIME - $start" | bc)" "$line"; done > "$log" || status=$?
total=$(echo "$EPOCHREALTIME - $start" | bc)
if (( status )) || ! grep -qE '^[0-9.]+ Run \S+ \(quick\) — COMPLETE$' "$log"; then
  echo "bench:first-run: npm run local failed or did not reach a COMPLETE run; its output:" >&2
  tail -40 "$log" >&2
  exit 1
fi
at() { grep -m1 -E "$1" "$log" | cut -d' ' -f1; }
base_end=$(at '^[0-9.]+ \[setup\] ([0-9]+ components? installed|everything is installed)')
run_start=$(at '^[0-9.]+ \[s3ab ')
summary_start=$(at '^[0-9.]+ Run \S+ \(quick\)')
echo "fresh clone of $(git -C "$root" rev-parse --short HEAD), empty HOME: npm run local (quick profile)"
echo "  setup components (side by side; each one's own time):"
grep -E '^[0-9.]+ \[setup\] .* installed in' "$log" | grep -vE '\[setup\] [0-9]+ components? installed' | cut -d' ' -f2- | sed 's/^\[setup\] /    /' || true
printf '  phase  setup of the base and the quick profile  %6.0f s\n' "$base_end"
printf '  phase  build of the runner, its own setup check %6.0f s\n' "$(echo "$run_start - $base_end" | bc)"
printf '  phase  the run, to its summary                  %6.0f s\n' "$(echo "$summary_start - $run_start" | bc)"
printf '  phase  summary and HTML report                  %6.0f s\n' "$(echo "$total - $summary_start" | bc)"
grep -m1 -oE 'run [0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}: [0-9]+ steps \([^)]*\)' "$log" | sed 's/^/  /' || true
grep -E 'SKIPPED' "$log" | cut -d' ' -f2- | sed 's/^ */  /' | cut -c1-200 || true
if grep -qE 'SKIPPED \(not measured, not failed\): s3fs' "$log"; then
  echo "  (no FUSE mount in this run: s3fs was skipped, for the reason above)"
fi
apt_missing_estimate=0
for c in $(node -e "const s=require('./assets/install.json');const p=require('./assets/profiles/quick.json');const names=[...s.base,...p.methods.map(m=>typeof m==='string'?m:m.name).flatMap(m=>s.methods[m]?.needs??[])];console.log([...new Set(names)].filter(n=>s.components[n].local.kind==='apt').join(' '))"); do
  est=$(node -e "console.log(require('./assets/install.json').components['$c'].estimateSeconds)")
  echo "  apt    $c was already installed on this host (a fresh machine adds up to about ${est} s)"
  apt_missing_estimate=$((apt_missing_estimate + est))
done
printf '  total  %.0f s wall (target ≤ %d s)%s\n' "$total" "$TARGET_S" "$( [ "$apt_missing_estimate" -gt 0 ] && printf '; with the apt packages above, at most about %.0f s' "$(echo "$total + $apt_missing_estimate" | bc)")"
