#!/usr/bin/env bash
# Times the README's main job, `npm run local` with its default quick profile, from start to end
# (setup check, build check, embedded server start, every step, summary) and checks it against
# the 3-minute target. Results go to a temporary folder.
set -euo pipefail
if (( $# )); then echo "bench:quick-run: it takes no options (got: $*)" >&2; echo "  fix: run it without arguments: npm run bench:quick-run" >&2; exit 2; fi
cd "$(dirname "$0")/../.."
results=$(mktemp -d /tmp/s3ab-quick-run-XXXXXX)
trap 'rm -rf "$results"' EXIT
start=$(date +%s%N)
npm run --silent local -- --results "$results" > "$results.log" 2>&1 || { cat "$results.log"; echo "npm run local failed"; exit 1; }
end=$(date +%s%N)
rm -f "$results.log"
ms=$(( (end - start) / 1000000 ))
steps=$(ls "$results"/dt=*/ | wc -l)
peak=$(node -e "const fs=require('fs');const d='$results/_runs';const m=JSON.parse(fs.readFileSync(d+'/'+fs.readdirSync(d)[0]));console.log((m.peak_rss_bytes/1e6).toFixed(0)+' MB, status '+m.status)")
printf 'npm run local (quick profile): %d.%d s for %s steps; runner peak RSS %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$steps" "$peak"
if (( ms <= 180000 )); then echo "target ≤ 180 s: PASS"; else echo "target ≤ 180 s: FAIL"; exit 1; fi
