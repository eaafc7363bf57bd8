#!/usr/bin/env bash
# The stack's performance targets (a synth and its tests fast enough to run on every change), measured in one run here:
#   `cdk synth` of the whole app (runner bundle fresh, both Lambdas bundled by esbuild, cdk-nag)  ≤ 20 s
#   the jest suite of the stack (template assertions, cdk-nag, cfn-lint, handlers)               ≤ 60 s
set -euo pipefail
if (( $# )); then echo "bench:aws-stack: it takes no options (got: $*)" >&2; echo "  fix: run it without arguments: npm run bench:aws-stack" >&2; exit 2; fi
cd "$(dirname "$0")/../.."
export AWS_EC2_METADATA_DISABLED=true
node scripts/setup.mjs --quiet --tests
node scripts/build.mjs --if-stale
rm -rf cdk.out
t0=$(date +%s.%N)
npx cdk synth --quiet >/dev/null 2>/tmp/s3ab-synth.$$ || { cat /tmp/s3ab-synth.$$ >&2; exit 1; }
t1=$(date +%s.%N)
npx jest test/aws/stack.test.ts test/aws/document-functions.test.ts >/tmp/s3ab-jest.$$ 2>&1 || { tail -50 /tmp/s3ab-jest.$$ >&2; exit 1; }
t2=$(date +%s.%N)
rm -f /tmp/s3ab-synth.$$ /tmp/s3ab-jest.$$
synth=$(echo "$t1 - $t0" | bc)
suite=$(echo "$t2 - $t1" | bc)
printf 'cdk synth (whole app, cold cdk.out):  %6.1f s   target <= 20 s  %s\n' "$synth" "$(echo "$synth <= 20" | bc | sed 's/1/ok/;s/0/OVER/')"
printf 'stack jest suite (2 files):           %6.1f s   target <= 60 s  %s\n' "$suite" "$(echo "$suite <= 60" | bc | sed 's/1/ok/;s/0/OVER/')"
