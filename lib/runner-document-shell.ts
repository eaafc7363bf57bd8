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
 * the runner reported itself — success (exit 0, `onSuccess`; or, whatever the exit code, the
 * success the runner wrote to `successFile` but could not send: a complete shard is never
 * reported failed) or failure naming the exit code and the log's tail. Without them a command
 * that dies before it reports leaves its task waiting for the heartbeat timeout. The token is read
 * from the results bucket (the state machine put it at `{{ taskTokenKey }}`: no SSM parameter
 * holds it) into `tokenFile` (owner-only), and every call reads it from there (`file://`), so no
 * process's command line — what `ps` shows — carries it.
 */
export function callbackLines(p: { error: string; what: string; log: string; tokenFile: string; resultsBucket: string; reportedFile?: string; successFile?: string; heartbeats: boolean; onSuccess?: string }): string[] {
  const token = `--task-token "file://${p.tokenFile}"`;
  const fail = `aws stepfunctions send-task-failure ${token} --error ${p.error} --cause "${p.what} exited $code on $(hostname) before it reported: $(tail -n 20 "${p.log}" | cut -c 1-300)" || true`;
  const ifNotReported = p.reportedFile ? `[ -e "${p.reportedFile}" ] || ` : '';
  const onExit = p.onSuccess ? `if [ "$code" = 0 ]; then ${p.onSuccess}; else ${fail}; fi` : fail;
  // A success the runner wrote but could not send is sent here, whatever the exit code, and never
  // turned into a failure: if Step Functions stays unreachable, the heartbeat timeout ends the task.
  const report = p.successFile
    ? `if [ -s "${p.successFile}" ]; then for pause in 5 15 30 0; do aws stepfunctions send-task-success ${token} --task-output "file://${p.successFile}" && break; sleep $pause; done; else ${onExit}; fi`
    : onExit;
  return [
    SECTION('callback'),
    `TASK_TOKEN_FILE=${p.tokenFile}`,
    `TASK_TOKEN_URL=s3://${p.resultsBucket}/{{ taskTokenKey }}`,
    // The state machine writes the token there just after sending this command: wait for it (2 min at
    // most), keep it in an owner-only file, delete the object. Without it nothing can report: the
    // task ends at its heartbeat timeout.
    '( umask 077 && mkdir -p "$(dirname "$TASK_TOKEN_FILE")" && for try in $(seq 60); do aws s3 cp --only-show-errors "$TASK_TOKEN_URL" "$TASK_TOKEN_FILE" 2>/dev/null && exit 0; sleep 2; done; exit 1 ) || { echo "s3ab: no task token at $TASK_TOKEN_URL after 2 min" >&2; exit 3; }',
    'aws s3 rm --only-show-errors "$TASK_TOKEN_URL" || true',
    ...(p.heartbeats
      // Its output goes nowhere: a sleeping loop must not hold the command's output open after it ended.
      ? [`( while kill -0 $$ 2>/dev/null; do sleep {{ heartbeatSeconds }}; aws stepfunctions send-task-heartbeat ${token} || true; done ) >/dev/null 2>&1 &`, 'HEARTBEATS=$!']
      : []),
    `finish() { code=$?; ${p.heartbeats ? 'kill "$HEARTBEATS" 2>/dev/null || true; ' : ''}${ifNotReported}{ ${report}; }; rm -f "$TASK_TOKEN_FILE"; }`,
    'trap finish EXIT',
  ];
}

/** The IMDS lines both documents start with: the region the AWS CLI and the runner use. */
export const IMDS = [
  'TOKEN=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 300")',
  'md() { curl -sf -H "X-aws-ec2-metadata-token: $TOKEN" "http://169.254.169.254/latest/meta-data/$1"; }',
];
