import { comparabilityOf, endpointClass, hostClass, keyDifferences, stableHash, type ComparableFacts } from '../../runner/core/comparability';
import { recordErrors, toRecord, upgradeRecord, type StepFacts } from '../../runner/results/record';
import type { Measurement } from '../../runner/core/batch';

const facts: StepFacts = {
  run_id: '20261128T020000Z-abcdef',
  host: {
    hostname: 'h', instance_type: 'local', vcpus: 2, memory_bytes: 24 * 1024 ** 3, kernel: '6.1', os: 'Debian 12', region: null, availability_zone: null,
    link_limit_mib_s: null, link_baseline_mib_s: null, link_limit_source: 'none', runner_id: null,
  },
  endpoint: { kind: 'embedded', url: 'http://127.0.0.1:41234', server: 'versitygw v1.8.0+s3ab3' },
  method: 's3fs', method_variant: 'default', method_version: '1.90', method_options: { parallel_count: '5', stat_cache: 'on' },
  workload: 'small-reads', workload_params: { files: '10', size: '8KiB' },
  step: 1, cache: 'cold', repetition: 1, clients: 1, fleet: null,
};

/** Each field of the key, changed alone. */
const oneFieldChanged: [string, Partial<ComparableFacts>][] = [
  ['method', { method: 'mountpoint' }],
  ['method_variant', { method_variant: 'tuned' }],
  ['method_options', { method_options: { parallel_count: '10', stat_cache: 'on' } }],
  ['method_version', { method_version: '1.95' }],
  ['workload', { workload: 'large-read' }],
  ['workload_params', { workload_params: { files: '20', size: '8KiB' } }],
  ['cache', { cache: 'warm' }],
  ['clients', { clients: 3 }],
  ['host_class', { host: { ...facts.host, vcpus: 48 } }],
  ['endpoint_class', { endpoint: { ...facts.endpoint, server: 'MinIO RELEASE.2026' } }],
];

describe('the comparability key', () => {
  test('records that differ in exactly one field of the key never share it', () => {
    const keys = new Set([comparabilityOf(facts).key]);
    for (const [field, change] of oneFieldChanged) {
      const other = { ...facts, ...change };
      expect({ field, differences: keyDifferences(facts, other) }).toEqual({ field, differences: [field] });
      keys.add(comparabilityOf(other).key);
    }
    expect(keys.size).toBe(oneFieldChanged.length + 1);
  });

  test('the base key ignores the client version and its options only', () => {
    const base = comparabilityOf(facts).base_key;
    for (const [field, change] of oneFieldChanged) {
      const same = field === 'method_version' || field === 'method_options';
      expect({ field, sameBase: comparabilityOf({ ...facts, ...change }).base_key === base }).toEqual({ field, sameBase: same });
    }
  });

  test('an option that names the endpoint\'s address (s3fs\'s url) is the endpoint, keyed by its class: a new port is the same key', () => {
    const withUrl = { ...facts, method_options: { ...facts.method_options, url: 'http://127.0.0.1:41234' } };
    const nextRun = { ...withUrl, endpoint: { ...facts.endpoint, url: 'http://127.0.0.1:50000' }, method_options: { ...withUrl.method_options, url: 'http://127.0.0.1:50000' } };
    expect(comparabilityOf(nextRun)).toEqual(comparabilityOf(withUrl));
    expect(keyDifferences(withUrl, nextRun)).toEqual([]);
    // Any other option still counts.
    expect(keyDifferences(withUrl, { ...nextRun, method_options: { ...nextRun.method_options, stat_cache: 'off' } })).toEqual(['method_options']);
  });

  test('what does not shape a figure does not change the key: the embedded port, hostname, key order', () => {
    const other = {
      ...facts,
      endpoint: { ...facts.endpoint, url: 'http://127.0.0.1:50000' },
      host: { ...facts.host, hostname: 'other' },
      method_options: { stat_cache: 'on', parallel_count: '5' },
    };
    expect(comparabilityOf(other)).toEqual(comparabilityOf(facts));
  });

  test('host and endpoint classes', () => {
    expect(hostClass({ instance_type: 'c8gn.large', vcpus: 2, memory_bytes: 4 * 1024 ** 3 })).toBe('c8gn.large');
    expect(hostClass({ instance_type: 'local', vcpus: 2, memory_bytes: 24 * 1024 ** 3 })).toBe('local:2vCPU:24GiB');
    expect(endpointClass({ kind: 'aws', url: null, server: null }, 'eu-west-1')).toBe('aws:eu-west-1');
    expect(endpointClass({ kind: 'custom', url: 'http://10.0.0.5:9000', server: 'MinIO' }, null)).toBe('custom:10.0.0.5:9000 MinIO');
    expect(stableHash({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe(stableHash({ a: [2, { c: 4, d: 3 }], b: 1 }));
  });
});

describe('records carry their comparability', () => {
  const m: Measurement = {
    operation: 'read', objectSizeBytes: 8192, status: 'ok', supported: true, verified: true, ops: 10, ok: 10, failed: 0, bytes: 81920,
    durationMs: 10, movesPayload: true, latency: null, errorSample: null, params: { io: 'buffered' },
  } as Measurement;

  test('toRecord writes the key of the record\'s own fields, measurement parameters included', () => {
    const r = toRecord(facts, m);
    expect(recordErrors(r)).toEqual([]);
    expect(r.comparability).toEqual(comparabilityOf({ ...facts, workload_params: { ...facts.workload_params, io: 'buffered' } }));
    expect(r.comparability.key).not.toBe(comparabilityOf(facts).key);
  });

  test('a record written before the key gets it derived from its fields on reading', () => {
    const { comparability, object_size_label, ...old } = toRecord(facts, m);
    const legacy = { ...old, schema_version: '1.6.0' };
    expect(recordErrors(legacy)).not.toEqual([]);
    const upgraded = upgradeRecord(legacy);
    expect(recordErrors(upgraded)).toEqual([]);
    expect(upgraded.comparability).toEqual(comparability);
    expect(upgraded.object_size_label).toBe(object_size_label);
  });

  test('the size label is recorded as the matrix spelled it, and derived on reading a record written before it', () => {
    const spelled = { ...facts, workload_params: { ...facts.workload_params, size: '8 KiB', sizes: '16 MB,64MiB' } };
    expect(toRecord(spelled, m).object_size_label).toBe('8 KiB');
    expect(toRecord(spelled, { ...m, objectSizeBytes: 16e6 }).object_size_label).toBe('16 MB');
    expect(toRecord(spelled, { ...m, objectSizeBytes: 64 * 1024 ** 2 }).object_size_label).toBe('64MiB');
    expect(toRecord(spelled, { ...m, objectSizeBytes: 3000 }).object_size_label).toBe('3 KB');
    expect(toRecord(spelled, { ...m, objectSizeBytes: null }).object_size_label).toBeNull();
    const { object_size_label, ...old } = toRecord(spelled, { ...m, objectSizeBytes: 16e6 });
    const legacy = { ...old, schema_version: '1.7.0' };
    expect(recordErrors(legacy)).not.toEqual([]);
    const upgraded = upgradeRecord(legacy);
    expect(recordErrors(upgraded)).toEqual([]);
    expect(upgraded).toEqual({ ...old, object_size_label });
  });
});
