/**
 * The awscrt (PyPI) release the s3-crt method is pinned to: scripts/setup.sh installs it into
 * .tools/pip, the EC2 runners' setup (lib/runner-fleet.ts) into /opt/s3ab/.tools/pip. Keep
 * setup.sh's AWSCRT_VERSION in step. The probe reports the version actually imported.
 */
export const AWSCRT_VERSION = '0.38.1';
