import type { MethodDefinition, MethodDescriptor } from '../core/method';
import { METHOD_DESCRIPTORS } from './catalog';

/**
 * A catalog entry's client, found by the layout rather than a hand-kept list: the method NAME's
 * implementation is runner/methods/NAME.impl.ts, which exports it (the descriptor joined with its
 * probe and open). esbuild bundles every NAME.impl.ts of this folder for the pattern below, so the
 * catalog line is a method's only registration; test/unit/layout.test.ts checks each entry has one.
 */
function implementationOf(descriptor: MethodDescriptor): MethodDefinition {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path built from the catalog's name, which an import cannot hold
  const module = require(`./${descriptor.name}.impl.ts`) as Record<string, unknown>;
  const found = Object.values(module).find((value): value is MethodDefinition => isMethodOf(value, descriptor));
  if (!found) throw new Error(`runner/methods/${descriptor.name}.impl.ts exports no method named ${descriptor.name}: export the descriptor joined with its probe and open`);
  return found;
}

function isMethodOf(value: unknown, descriptor: MethodDescriptor): boolean {
  const v = value as Partial<MethodDefinition> | null;
  return typeof v === 'object' && v !== null && v.name === descriptor.name && typeof v.probe === 'function' && typeof v.open === 'function';
}

/** Every access method the runner can run, in the catalog's order (runner/methods/catalog.ts). */
export const METHODS: readonly MethodDefinition[] = METHOD_DESCRIPTORS.map(implementationOf);

export function findMethod(name: string): MethodDefinition | undefined {
  return METHODS.find((m) => m.name === name);
}

/** A FUSE mount's kernel connection, for the run's cleanup of what a killed client process left (run/fleet.ts). */
export { FuseConnection } from './kit/fuse-connection';
