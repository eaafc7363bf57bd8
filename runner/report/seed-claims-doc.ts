import type { SeedId } from '../core/workload';
import { methodNeeds } from './claim-checks';
import { SEED_CLAIMS, SEED_SETUPS, seedShort, type SeedClaim } from './seed-claims';

/** The markers of the generated claims table in docs/seeds.md (`npm run gen` rewrites what lies between). */
const CLAIMS_BLOCK = { begin: '<!-- claims:begin (npm run gen writes this table from runner/report/seed-claims.ts) -->', end: '<!-- claims:end -->' };

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** "git-clone on mountpoint (profiles seed, mounts, full)": what measures a claim, or what it needs. */
function measuredBy(c: SeedClaim): string {
  const m = c.measure;
  const what = `\`${m.workload}\` ${m.operations.join(', ')} on ${m.methods.map((x) => `\`${x}\``).join(' and ')}`;
  if (m.needs) return `${what}; ${m.needs}`;
  if (m.profiles.length) return `${what} (profile${m.profiles.length > 1 ? 's' : ''} ${m.profiles.join(', ')})`;
  const needs = m.methods.map(methodNeeds).filter((n): n is string => n !== null);
  return `${what}; ${[...new Set(needs)].join('; ') || 'no profile runs it'}`;
}

/** docs/seeds.md's claims table: one row per claim, seeds in order, from the claims' data. */
export function claimsTable(claims: Record<SeedId, readonly SeedClaim[]> = SEED_CLAIMS): string {
  const rows = (Object.entries(claims) as [SeedId, readonly SeedClaim[]][]).flatMap(([seed, list]) => list.map((c) =>
    `| ${seedShort(seed).slice(5)} | ${cell(c.statement)} | ${cell(`${c.published} (${SEED_SETUPS[seed]})`)} | ${c.form} | ${cell(measuredBy(c))} |`));
  return ['| seed | claim | published figure (setup) | checked as | measured by |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** A document with its generated claims block replaced (the markers must be there). */
export function withClaimsTable(doc: string, table: string): string {
  const begin = doc.indexOf(CLAIMS_BLOCK.begin);
  const end = doc.indexOf(CLAIMS_BLOCK.end);
  if (begin < 0 || end < begin) throw new Error(`docs/seeds.md has no generated block: put ${CLAIMS_BLOCK.begin} and ${CLAIMS_BLOCK.end} where the table goes`);
  return `${doc.slice(0, begin + CLAIMS_BLOCK.begin.length)}\n${table}\n${doc.slice(end)}`;
}
