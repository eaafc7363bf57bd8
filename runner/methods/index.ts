import type { MethodDefinition } from '../core/method';
import { awsCli } from './aws-cli';
import { efs } from './efs';
import { mountpoint } from './mountpoint';
import { rclone } from './rclone';
import { s3Api } from './s3-api';
import { s3Crt } from './s3-crt';
import { s3files } from './s3files';
import { s3fs } from './s3fs';

/**
 * Every access method the runner knows. To add one: write runner/methods/NAME.ts exporting a
 * MethodDefinition and list it here; `s3ab list`, matrix validation and the report pick it up.
 */
export const METHODS: readonly MethodDefinition[] = [s3Api, s3Crt, awsCli, s3fs, mountpoint, rclone, s3files, efs];

export function findMethod(name: string): MethodDefinition | undefined {
  return METHODS.find((m) => m.name === name);
}
