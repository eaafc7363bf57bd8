import type { SeedId } from '../../core/workload';
import { VERDICT_LABELS, ourSetup, type ClaimVerdict } from '../claim-checks';
import { esc } from '../html/format';
import { noData, table, type TCell } from '../html/parts';
import type { ReportModel } from '../model';
import { SEED_SETUPS, checkClaims, seedShort, type CheckedClaim } from '../seed-claims';
import { textTable, wrapText } from '../text/table';
import type { DataTable, PageContext, ReportSection, TextContext } from './section';

/**
 * "Seed claims": each seed's headline claims (runner/report/seed-claims.ts) checked against this
 * run's records: reproduced, contradicted, a figure of a different setup, or not measured (and what
 * would measure it).
 */

/** What the run says about a claim, in one line: its figure, by how much it disagrees, both setups, or what would measure it. */
function verdictDetail(seed: SeedId, v: ClaimVerdict): string {
  switch (v.kind) {
    case 'reproduced': return v.ours;
    case 'contradicted': return `${v.ours} — ${v.by}`;
    case 'different-setup': return `${v.ours}; the seed: ${v.theirs} on ${SEED_SETUPS[seed]}; this run: ${v.ourSetup}`;
    case 'not-measured': return v.needs;
  }
}

const VERDICT_CLASS: Record<ClaimVerdict['kind'], string> = { reproduced: 'supported', contradicted: 'unsupported', 'different-setup': 'failed', 'not-measured': 'missing' };

const anyMeasured = (checked: CheckedClaim[]) => checked.some((c) => c.verdict.kind !== 'not-measured');
const seedsOf = (checked: CheckedClaim[]) => [...new Set(checked.map((c) => c.seed))];

function html(ctx: PageContext): string {
  const checked = checkClaims(ctx.model);
  const parts = anyMeasured(checked) ? [] : [noData('this run measured none of the seeds\' claims.', 'The seed, mounts and full profiles measure those of seeds 001–003 on mount methods: s3ab run --profile mounts.')];
  parts.push(`<p class="lead">Each seed's headline claims (described in docs/seeds.md), checked against this run (${esc(ourSetup(ctx.model))}). Claims are put in a form that does not depend on the setup where they can be (works or fails, a success rate, which is faster, a ratio band); a figure that does is shown beside ours as "different setup", both setups named.</p>`);
  for (const seed of seedsOf(checked)) {
    const rows: TCell[][] = checked.filter((c) => c.seed === seed).map(({ claim, verdict }) => [
      claim.statement, claim.published, claim.form,
      { html: esc(VERDICT_LABELS[verdict.kind]), cls: VERDICT_CLASS[verdict.kind] },
      verdictDetail(seed, verdict),
    ]);
    parts.push(`<h3>${esc(seedShort(seed))}: ${esc(seed.slice(4))}</h3>`,
      table(['claim', 'published', 'form', 'verdict', 'this run'], rows, { cls: 'claims', caption: `Published on ${SEED_SETUPS[seed]}.` }));
  }
  return parts.join('\n');
}

function lines({ model, width }: TextContext): string[] {
  const checked = checkClaims(model);
  const head = 'Seed claims — each seed\'s headline claims checked against this run: reproduced (our figure), contradicted (by how much), different setup (both named), or not measured in this run (what would measure it).';
  if (!anyMeasured(checked)) return ['', ...wrapText(`${head} None was measured in this run: the seed, mounts and full profiles measure most.`, width)];
  const rows = checked.map(({ seed, claim, verdict }) => [seed.slice(0, 3), claim.statement, VERDICT_LABELS[verdict.kind], verdictDetail(seed, verdict)]);
  return ['', ...wrapText(head, width),
    ...textTable([{ head: 'seed' }, { head: 'claim', wrap: true }, { head: 'verdict', wrap: true }, { head: 'this run', wrap: true }], rows, width)];
}

function tables(model: ReportModel): DataTable[] {
  return [{
    name: 'seed_claims',
    columns: ['seed', 'claim', 'form', 'statement', 'published', 'seed_setup', 'verdict', 'detail'],
    rows: checkClaims(model).map(({ seed, claim, verdict }) => [seed, claim.id, claim.form, claim.statement, claim.published, SEED_SETUPS[seed], verdict.kind, verdictDetail(seed, verdict)]),
  }];
}

export const seedClaimsSection: ReportSection = {
  id: 'seed-claims',
  title: 'Seed claims',
  hasData: (model) => anyMeasured(checkClaims(model)),
  html,
  text: { lines },
  tables,
};
