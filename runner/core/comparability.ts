import { createHash } from 'node:crypto';
import type { ResultRecord } from './record.generated';

/**
 * What a figure is comparable on, defined once: two records' figures compare only when their keys
 * are equal (and their operation, object size and I/O mode, which each record names itself). Every
 * query, comparison, verdict and history groups by the key, or by a subset that its heading names.
 */
export type Comparability = ResultRecord['comparability'];

/** The record fields the key is made of. */
export type ComparableFacts = Pick<ResultRecord,
  'method' | 'method_variant' | 'method_version' | 'method_options' | 'workload' | 'workload_params' | 'cache' | 'clients' | 'host' | 'endpoint'>;

const GIB = 1024 ** 3;

/** A 16-hex-digit hash of a value's canonical JSON (object keys sorted at every level). */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The class of host a figure belongs to: an EC2 instance type names its hardware; any other host is
 * its vCPUs and memory (the facts every record has), so two laptops of one size compare and a
 * 2-core VM never compares with a 48-core one.
 */
export function hostClass(host: Pick<ResultRecord['host'], 'instance_type' | 'vcpus' | 'memory_bytes'>): string {
  if (host.instance_type && host.instance_type !== 'local') return host.instance_type;
  return `local:${host.vcpus}vCPU:${Math.round(host.memory_bytes / GIB)}GiB`;
}

/**
 * The class of store a figure was measured against: the embedded server by its software and
 * version (its port changes every run), a named endpoint by its host and software, AWS by region.
 */
export function endpointClass(endpoint: ResultRecord['endpoint'], region: string | null): string {
  if (endpoint.kind === 'aws') return `aws:${region ?? 'unknown-region'}`;
  if (endpoint.kind === 'embedded') return `embedded:${endpoint.server ?? 'unknown-server'}`;
  return `custom:${hostOf(endpoint.url)} ${endpoint.server ?? 'unknown-server'}`;
}

function hostOf(url: string | null): string {
  if (!url) return 'unknown-host';
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The options that shape a figure: all but those naming the endpoint's own address (s3fs's `url`),
 * which the endpoint class keys already — the embedded server's port changes every run.
 */
export function comparableOptions(r: Pick<ComparableFacts, 'method_options' | 'endpoint'>): Record<string, string> {
  const url = r.endpoint.url;
  return Object.fromEntries(Object.entries(r.method_options).filter(([, v]) => !url || v.replace(/\/+$/, '') !== url.replace(/\/+$/, '')));
}

/** The comparability of a record's figures, from the fields that shape them. */
export function comparabilityOf(r: ComparableFacts): Comparability {
  const options_hash = stableHash(comparableOptions(r));
  const params_hash = stableHash(r.workload_params);
  const host_class = hostClass(r.host);
  const endpoint_class = endpointClass(r.endpoint, r.host.region);
  const base = { method: r.method, variant: r.method_variant, workload: r.workload, params_hash, cache: r.cache, clients: r.clients, host_class, endpoint_class };
  return {
    key: stableHash({ ...base, options_hash, version: r.method_version }),
    base_key: stableHash(base),
    options_hash,
    params_hash,
    host_class,
    endpoint_class,
  };
}

/** The fields of the key, as keyDifferences names them (a query's heading declares a subset with these names). */
export const KEY_FIELDS = [
  'method', 'method_variant', 'method_options', 'method_version', 'workload', 'workload_params', 'cache', 'clients', 'host_class', 'endpoint_class',
] as const;
export type KeyField = typeof KEY_FIELDS[number];

/** The fields of the key in which two comparabilities differ (empty when the keys are equal), in KEY_FIELDS' order. */
export function keyDifferences(a: ComparableFacts, b: ComparableFacts): KeyField[] {
  const ca = comparabilityOf(a);
  const cb = comparabilityOf(b);
  const diff: KeyField[] = [];
  const same = (x: unknown, y: unknown) => canonicalJson(x) === canonicalJson(y);
  if (a.method !== b.method) diff.push('method');
  if (a.method_variant !== b.method_variant) diff.push('method_variant');
  if (!same(comparableOptions(a), comparableOptions(b))) diff.push('method_options');
  if (a.method_version !== b.method_version) diff.push('method_version');
  if (a.workload !== b.workload) diff.push('workload');
  if (!same(a.workload_params, b.workload_params)) diff.push('workload_params');
  if (a.cache !== b.cache) diff.push('cache');
  if (a.clients !== b.clients) diff.push('clients');
  if (ca.host_class !== cb.host_class) diff.push('host_class');
  if (ca.endpoint_class !== cb.endpoint_class) diff.push('endpoint_class');
  return diff;
}
