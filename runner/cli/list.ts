import { seedLabel } from '../report/labels';
import Table from 'cli-table3';
import type { Command } from 'commander';
import { CATALOG } from '../catalog';
import { UserError } from '../core/errors';
import { installCommand, needsOf, versionIn } from '../core/install';
import { expandSteps, loadProfile, profileNames, resolveMatrix } from '../core/matrix';
import { METHODS } from '../methods';
import { UNMEASURED_CONTESTANTS } from '../methods/catalog';
import { list, out } from './args';

const table = (head: string[], colWidths: (number | null)[]) => new Table({ head, style: { head: [], border: [] }, colWidths: colWidths as never, wordWrap: true });

/** `s3ab list`: methods (and whether each works here), workloads and profiles; `--require` as a host check. */
export function registerList(program: Command): void {
  program
    .command('list')
    .description('list methods (and whether each works on this host), workloads and profiles')
    .option('--require <a,b>', 'exit 2 unless these methods are available here (a host check, as the AWS runner setup does)', list)
    .action(async (o: { require?: string[] }) => {
      const known = CATALOG.methods.map((m) => m.name);
      const unknown = (o.require ?? []).filter((name) => !known.includes(name));
      if (unknown.length) throw new UserError(`--require: ${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length > 1 ? 'are not methods' : 'is not a method'}`, `use one of: ${known.join(', ')}`);
      const missing = await printMethods(o.require ?? []);
      if (missing.length) throw new UserError(`required methods are not available on this host: ${missing.join('; ')}`, 'install what each reason names, then check again with `s3ab list --require ...`');
      printWorkloads();
      printProfiles();
    });
}

/**
 * A method's pinned client versions in a few columns: one version where both places run it,
 * "LOCAL · runners RUNNER" where they differ; the reasons are in docs/methods.md#versions.
 */
function pinnedShort(method: string): string {
  const pins = (needsOf(method) ?? []).map((c) => {
    const local = versionIn(c, 'local');
    const runner = versionIn(c, 'runner');
    if (!local && !runner) return null;
    return local === runner || !runner ? local : !local ? `runners ${runner}` : `${local} · runners ${runner}`;
  }).filter((p): p is string => !!p);
  return pins.join('\n') || '–';
}

/** Prints the methods table; returns the required methods that are missing here, with their reasons. */
async function printMethods(required: string[]): Promise<string[]> {
  const methods = table(['method', 'kind', 'available here', 'version here / why not', 'pinned', 'variants'], [null, null, null, 60, 24, null]);
  const missing: string[] = [];
  for (const m of METHODS) {
    const a = await m.probe();
    if (!a.available && required.includes(m.name)) missing.push(`${m.name}: ${a.reason}`);
    const install = a.hostLacks ? null : installCommand(m.name);
    const why = `${a.reason ?? ''}${install && !a.reason?.includes(install) ? ` (install: \`${install}\`)` : ''}`;
    methods.push([m.name, m.kind, a.available ? 'yes' : 'no', a.available ? a.version ?? '' : why, pinnedShort(m.name), Object.keys(m.variants).join(', ')]);
  }
  for (const c of UNMEASURED_CONTESTANTS) methods.push([c.name, c.kind, 'no', c.why, '–', '–']);
  out('Methods');
  out(methods.toString());
  return missing;
}

function printWorkloads(): void {
  const workloads = table(['workload', 'what it measures', 'parameters (defaults)'], [null, 50, 50]);
  for (const w of CATALOG.workloads) {
    const props = (w.paramsSchema as { properties: Record<string, { default?: unknown }> }).properties;
    workloads.push([w.name, `${w.summary} (${seedLabel(w.name)})`, Object.entries(props).map(([k, v]) => `${k}=${JSON.stringify(v.default)}`).join('\n')]);
  }
  out('Workloads');
  out(workloads.toString());
}

function printProfiles(): void {
  const profiles = table(['profile', 'steps', 'description'], [null, null, 80]);
  for (const name of profileNames()) {
    const raw = loadProfile(name) as { description?: string };
    profiles.push([name, String(expandSteps(resolveMatrix(raw, `profile ${name}`, CATALOG)).length), raw.description ?? '']);
  }
  out('Profiles (s3ab run --profile NAME)');
  out(profiles.toString());
}
