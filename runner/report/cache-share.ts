import { caseKey, movesPayload, ranked } from './analysis';
import type { Cell } from './model';
import type { Row } from './rows';
import { operationWithMode } from './rows';

/**
 * How much of a cold figure a cache served, and whether that share can change the verdict. The
 * share is what the server's log says it did not send: 1 − GET bytes sent / bytes read over the
 * cell's counted measurements (a GET-bytes ratio of 0.989 is 1.1% from a cache). It is unknown
 * where the measurements were flagged served-from-cache but the totals cannot show it: the flag
 * came from the link estimate with no server log, or from a per-object account whose shortfall
 * other objects' over-read hides in the totals.
 *
 * The warning is kept where the share could change the verdict (docs/honest-numbers.md): the
 * cell's figure with the cached bytes charged at the rate of the rest — rate × (1 − share), time
 * ÷ (1 − share), the least the figure could have been — falls below a ranked method of its case
 * that it now equals or beats; or the share is unknown.
 */
export interface CacheShare {
  /** Of the bytes read, the share the server did not send (0–1); null: flagged, but the totals cannot say how much. */
  share: number | null;
  /** The share could change the verdict (or is unknown): the figure keeps its warning. */
  warn: boolean;
}

/** Whether a request_counts row counts a cell's measurements: the same case, method, variant, cache state and comparability key. */
export function countsCell(r: Row, c: Cell): boolean {
  return String(r.workload) === c.workload && operationWithMode(String(r.operation), r.io as string | null) === c.operation &&
    (r.object_size_bytes === null || r.object_size_bytes === undefined ? null : Number(r.object_size_bytes)) === c.object_size_bytes &&
    String(r.method) === c.method && String(r.method_variant) === c.method_variant && String(r.cache ?? 'none') === c.cache &&
    (r.comparable_key === undefined || r.comparable_key === null || c.comparable_key === null || String(r.comparable_key) === c.comparable_key) &&
    (r.clients === undefined || r.clients === null || c.clients === null || Number(r.clients) === c.clients);
}

/** The share of the bytes read that the server did not send, from a request_counts row; null where it shows none. */
export function undeliveredShare(row: Row | undefined): number | null {
  const read = Number(row?.bytes ?? 0);
  const sent = Number(row?.get_bytes ?? NaN);
  if (!(read > 0) || !Number.isFinite(sent)) return null;
  const share = 1 - sent / read;
  return share > 0 ? share : null;
}

/** The figure a cell is ranked on in its case, higher better: MiB/s, else operations/s, else 1 / time. */
function rankFigure(c: Cell): number | null {
  if (movesPayload(c)) return c.mib_s_median;
  if (c.ops_s_median !== null) return c.ops_s_median;
  return c.duration_ms_median ? 1 / c.duration_ms_median : null;
}

const memo = new WeakMap<readonly Cell[], Map<Cell, CacheShare>>();

/** The cache share of a model's cell (null: not served from a cache), worked out once per model. */
export function cacheShareOf(model: { cells: readonly Cell[]; requests: readonly Row[] }, c: Cell): CacheShare | null {
  let shares = memo.get(model.cells);
  if (!shares) memo.set(model.cells, (shares = cacheShares(model.cells, model.requests)));
  return shares.get(c) ?? null;
}

/** Every cache-served cell of the run (served_from_cache > 0), by cell: its share and whether it keeps the warning. */
export function cacheShares(cells: readonly Cell[], requests: readonly Row[]): Map<Cell, CacheShare> {
  const out = new Map<Cell, CacheShare>();
  for (const c of cells.filter((x) => x.served_from_cache > 0)) {
    // Only a cold (or cache-less) read claims the store sent its bytes; a warm figure is a cache's by design.
    const share = c.cache === 'cold' || c.cache === 'none' ? undeliveredShare(requests.find((r) => countsCell(r, c))) : null;
    const figure = rankFigure(c);
    if (share === null || figure === null || !ranked(c)) {
      out.set(c, { share, warn: true });
      continue;
    }
    // The least the figure could have been, had the cache served nothing: the cached bytes at the rest's rate.
    const least = figure * (1 - share);
    const rivals = cells.filter((o) => o !== c && ranked(o) && caseKey(o) === caseKey(c)).map(rankFigure).filter((v): v is number => v !== null);
    out.set(c, { share, warn: rivals.some((v) => v <= figure && v > least) });
  }
  return out;
}

/** "1.1% from cache", "0.02% from cache", or the unknown share's words. */
export function cacheShareText(s: CacheShare): string {
  if (s.share === null) return 'served from cache (share unknown)';
  const pct = s.share * 100;
  return `${pct >= 10 ? pct.toFixed(0) : pct >= 1 ? pct.toFixed(1) : pct >= 0.01 ? pct.toFixed(2) : '< 0.01'}% from cache`;
}
