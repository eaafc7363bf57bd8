/** The text summary's plausibility marks after a figure, explained in its header (one place for both). */

/** Faster than the link to the store can carry: served from a cache. */
export const CACHE_MARK = '*';
/** At or near the runner's baseline bandwidth: the network, not the method, may have set it. */
export const NET_MARK = '~';

/** The mark of a row with served_from_cache / network_capped counts; '' for a plain figure. */
export const markOf = (r: { served_from_cache?: unknown; network_capped?: unknown }) =>
  (Number(r.served_from_cache) ? CACHE_MARK : Number(r.network_capped) ? NET_MARK : '');
