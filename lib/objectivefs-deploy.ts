/**
 * ObjectiveFS on runners, as the stack is deployed: the SSM SecureString parameter that holds its
 * license (by name: the license itself never enters the template, a command line or a log) and the
 * SHA-256 of the vendor's package per runner architecture (no published checksum was at hand, so
 * the deployer gives the one of the package they checked). Without them the `objectivefs` method
 * is not installed on runners, and its steps record why.
 */
export interface ObjectivefsDeploy {
  /** The SSM parameter's name (context `objectivefsLicenseParameter`), e.g. /s3ab/objectivefs-license. */
  licenseParameter: string;
  /** SHA-256 of the vendor's RPM by `uname -m` (context `objectivefsRpmSha256`: `x86_64=HEX,aarch64=HEX`). */
  sha256: Partial<Record<RunnerArch, string>>;
}

type RunnerArch = 'x86_64' | 'aarch64';
const ARCHES: readonly RunnerArch[] = ['x86_64', 'aarch64'];
/** An SSM parameter name: letters, digits and . - _ /, a path or a plain name (SSM's own rule). */
const PARAMETER_NAME = /^\/?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;

/**
 * The deploy-time values from the context, checked together: both or neither; an error names each
 * problem and its fix. Undefined: ObjectiveFS is not enabled.
 */
export function objectivefsDeploy(licenseParameter: unknown, sha256: unknown): ObjectivefsDeploy | undefined {
  if (licenseParameter === undefined && sha256 === undefined) return undefined;
  const problems: string[] = [];
  if (typeof licenseParameter !== 'string' || !PARAMETER_NAME.test(licenseParameter) || licenseParameter.length > 1011) {
    problems.push(`objectivefsLicenseParameter must name an SSM SecureString parameter holding the license (e.g. /s3ab/objectivefs-license), got ${JSON.stringify(licenseParameter ?? null)}`);
  }
  const sums: Partial<Record<RunnerArch, string>> = {};
  if (typeof sha256 !== 'string' || !sha256.trim()) {
    problems.push('objectivefsRpmSha256 is missing: give the SHA-256 of the vendor\'s package for each runner architecture you use, as x86_64=HEX,aarch64=HEX (sha256sum of the RPM you downloaded)');
  } else {
    for (const part of sha256.split(',').map((x) => x.trim())) {
      const m = /^(x86_64|aarch64)=([0-9a-f]{64})$/.exec(part);
      if (!m) problems.push(`objectivefsRpmSha256: "${part}" is not ARCH=HEX (ARCH x86_64 or aarch64, HEX 64 lower-case hex digits)`);
      else sums[m[1] as RunnerArch] = m[2];
    }
  }
  if (problems.length) throw new Error(`ObjectiveFS deploy values: ${problems.length} problem${problems.length > 1 ? 's' : ''}:\n- ${problems.join('\n- ')}`);
  return { licenseParameter: licenseParameter as string, sha256: sums };
}

/** The parameter's name as its ARN ends (`parameter/NAME`, without a leading slash). */
export const parameterArnName = (name: string) => name.replace(/^\//, '');

/** The setup job that installs the vendor's package (checksum first) and writes the license where its client reads it. */
export function objectivefsJob(url: string, deploy: ObjectivefsDeploy | undefined): string[] {
  if (!deploy) {
    return ['echo "s3ab setup: objectivefs: this stack was deployed without an ObjectiveFS license (cdk deploy -c objectivefsLicenseParameter=NAME -c objectivefsRpmSha256=ARCH=HEX): its steps record why they are skipped"'];
  }
  return [
    'UARCH=$(uname -m)',
    `case "$UARCH" in ${ARCHES.map((a) => `${a}) SUM=${deploy.sha256[a] ?? '""'};;`).join(' ')} *) SUM="";; esac`,
    '[ -n "$SUM" ] || { echo "s3ab setup: objectivefs: no SHA-256 of the vendor\'s $UARCH package was given at deploy (-c objectivefsRpmSha256=$UARCH=HEX)" >&2; exit 3; }',
    'RPM=$(mktemp --suffix=.rpm)',
    `curl -fsSL --proto '=https' -o "$RPM" "${url}"`,
    'echo "$SUM  $RPM" | sha256sum -c --status || { echo "s3ab setup: objectivefs: the vendor\'s package does not have the SHA-256 given at deploy (it has $(sha256sum "$RPM" | cut -d" " -f1))" >&2; exit 3; }',
    'dnf install -y -q "$RPM" && rm -f "$RPM"',
    // The license: from the SecureString straight into the vendor's environment folder, readable by root only; never echoed.
    'install -d -m 700 /etc/objectivefs.env',
    `( umask 077; aws ssm get-parameter --name '${deploy.licenseParameter}' --with-decryption --query Parameter.Value --output text > /etc/objectivefs.env/OBJECTIVEFS_LICENSE )`,
  ];
}
