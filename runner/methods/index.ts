import type { MethodDefinition } from '../core/method';
import { awsCli } from './aws-cli.impl';
import { METHOD_DESCRIPTORS, type MethodName } from './catalog';
import { efs } from './efs.impl';
import { juicefs } from './juicefs.impl';
import { mountpoint } from './mountpoint.impl';
import { objectivefs } from './objectivefs.impl';
import { rclone } from './rclone.impl';
import { s3Api } from './s3-api.impl';
import { s3Crt } from './s3-crt.impl';
import { s3files } from './s3files.impl';
import { s3fs } from './s3fs.impl';
import { zerofs } from './zerofs.impl';

/** Every method's client, by the name in its descriptor: a method missing here does not compile. */
const IMPLEMENTATIONS: { readonly [K in MethodName]: MethodDefinition } = {
  's3-api': s3Api, 's3-crt': s3Crt, 'aws-cli': awsCli, s3fs, mountpoint, rclone, juicefs, zerofs, objectivefs, s3files, efs,
};

/** Every access method the runner can run, in the catalog's order (runner/methods/catalog.ts). */
export const METHODS: readonly MethodDefinition[] = METHOD_DESCRIPTORS.map((d) => IMPLEMENTATIONS[d.name]);

export function findMethod(name: string): MethodDefinition | undefined {
  return METHODS.find((m) => m.name === name);
}

/** A FUSE mount's kernel connection, for the run's cleanup of what a killed client process left (run/fleet.ts). */
export { FuseConnection } from './kit/fuse-connection';
