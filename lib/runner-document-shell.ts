/**
 * Shell pieces both SSM documents of the runner fleet share (lib/runner-fleet.ts's run-step
 * document, lib/runner-setup-script.ts's setup document): the section markers, the callback that
 * ends a command's Step Functions task, and the instance metadata lines.
 */

/**
 * Marks the start of a section of the setup script (a no-op for bash). The rehearsal runs the
 * sections that do not install anything on the host as they are, stands in for `bundle`, and
 * leaves out the rest (scripts/rehearsal/documents.ts).
 */
export const SECTION = (name: 'prologue' | 'callback' | 'packages' | 'bundle' | 'clients' | 's3files' | 'clock' | 'verify') => `: s3ab-section ${name}`;

/**
 * The shell lines that end a runner command's Step Functions task by callback: heartbeats while it
 * runs (a background loop the command's end stops), and at its exit — unless `reportedFile` says
 * the runner reported itself — success (exit 0, `onSuccess`) or failure naming the exit code and
 * the log's tail. Without them a command that dies before it reports leaves its task waiting for
 * the heartbeat timeout.
 */
export function callbackLines(p: { error: string; what: string; log: string; reportedFile?: string; heartbeats: boolean; onSuccess?: string }): string[] {
  const fail = `aws stepfunctions send-task-failure --task-token "$TASK_TOKEN" --error ${p.error} --cause "${p.what} exited $code on $(hostname) before it reported: $(tail -n 20 "${p.log}" | cut -c 1-300)" || true`;
  const ifNotReported = p.reportedFile ? `[ -e "${p.reportedFile}" ] || ` : '';
  const success = p.onSuccess ? `if [ "$code" = 0 ]; then ${p.onSuccess}; else ${fail}; fi` : fail;
  return [
    SECTION('callback'),
    "TASK_TOKEN='{{ taskToken }}'",
    ...(p.heartbeats
      // Its output goes nowhere: a sleeping loop must not hold the command's output open after it ended.
      ? ['( while kill -0 $$ 2>/dev/null; do sleep {{ heartbeatSeconds }}; aws stepfunctions send-task-heartbeat --task-token "$TASK_TOKEN" || true; done ) >/dev/null 2>&1 &', 'HEARTBEATS=$!']
      : []),
    `finish() { code=$?; ${p.heartbeats ? 'kill "$HEARTBEATS" 2>/dev/null || true; ' : ''}${ifNotReported}{ ${success}; }; }`,
    'trap finish EXIT',
  ];
}

/** The IMDS lines both documents start with: the region the AWS CLI and the runner use. */
export const IMDS = [
  'TOKEN=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 300")',
  'md() { curl -sf -H "X-aws-ec2-metadata-token: $TOKEN" "http://169.254.169.254/latest/meta-data/$1"; }',
];
