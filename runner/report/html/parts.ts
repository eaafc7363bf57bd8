import { seedLabel, workloadSummary } from '../labels';
import { cacheShareText, type CacheShare } from '../cache-share';
import { esc } from './format';

/**
 * The pieces every section of the page builds with: tables, figures, the no-data notice and the
 * plausibility flags on figures.
 */

/** One cell of an HTML table: text (escaped) or ready-made HTML. */
export type TCell = string | number | { html: string; cls?: string; title?: string };

function cellHtml(c: TCell, tag: 'td' | 'th'): string {
  if (typeof c === 'object') return `<${tag}${c.cls ? ` class="${c.cls}"` : ''}${c.title ? ` title="${esc(c.title)}"` : ''}>${c.html}</${tag}>`;
  return `<${tag}>${esc(c)}</${tag}>`;
}

/** A table with a header row; each row's first cell is its header cell. */
export function table(head: string[], rows: TCell[][], opts: { cls?: string; caption?: string } = {}): string {
  return `${opts.caption ? `<p class="tcap">${esc(opts.caption)}</p>` : ''}<div class="table-wrap"><table${opts.cls ? ` class="${opts.cls}"` : ''}>` +
    `<thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map((r) => `<tr>${r.map((c, i) => cellHtml(c, i === 0 ? 'th' : 'td')).join('')}</tr>`).join('')}</tbody></table></div>`;
}

export const CACHE_FLAG = '<span class="flag-cache" title="faster than the link to the store can carry: served from a cache, not the store">⚠ cache</span>';
export const NET_FLAG = '<span class="flag-net" title="at or near the runner\'s baseline (sustained) bandwidth, up to its burst: the network, not the method, may have set this figure">⚠ net-capped?</span>';

/** A figure's cache mark: the share served from a cache, with the warning only where that share could change the verdict. */
function cacheMark(cache: CacheShare): string {
  if (cache.share === null) return ` ${CACHE_FLAG}`;
  const title = cache.warn
    ? 'the server did not send this share of the bytes read: with them charged at the rate of the rest, this figure would rank below a method it now beats'
    : 'the server did not send this share of the bytes read; with them charged at the rate of the rest, the ranking would not change';
  return ` <span class="${cache.warn ? 'flag-cache' : 'cache-share'}" title="${esc(title)}">${cache.warn ? '⚠ ' : ''}${esc(cacheShareText(cache))}</span>`;
}

/**
 * A figure with its plausibility mark: served from a cache (the share, warned where it could change
 * the verdict) outranks near the baseline (the network). `cached`: the cell's CacheShare, or true
 * for a served-from-cache figure whose share is not known.
 */
export const withFlag = (text: string, cached: CacheShare | boolean | null, capped = false) => {
  const cache: CacheShare | null = cached === true ? { share: null, warn: true } : cached || null;
  return {
    html: `${esc(text)}${cache ? cacheMark(cache) : capped ? ` ${NET_FLAG}` : ''}`, cls: cache?.warn ? 'cached' : !cache && capped ? 'capped' : undefined,
  };
};

/** What a section without data says: what is missing, and how a run gets it. */
export function noData(what: string, hint: string): string {
  return `<p class="nodata"><strong>No data:</strong> ${esc(what)} ${esc(hint)}</p>`;
}

export function figure(svg: string, caption: string): string {
  return `<figure class="chart">${svg}<figcaption>${caption}</figcaption></figure>`;
}

/** A workload's heading: its name, then its seeds and summary (its descriptor's). */
export const workloadHeading = (workload: string, id: string) =>
  `<h3 id="${id}">${esc(workload)} <span class="seed">${esc(seedLabel(workload))}: ${esc(workloadSummary(workload))}</span></h3>`;
