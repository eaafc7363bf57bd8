import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn, spawnSync } from 'node:child_process';
import { which } from '../core/paths';
import type { StoreTarget } from '../core/target';
import { patternStream } from '../core/data';
import { formatSize } from '../core/units';
import instanceNetwork from '../../assets/instance-network.json';

export interface LinkLimit {
  /** Most the link can carry: figures above it came from a cache (on EC2: the burst bandwidth). */
  mibPerSecond: number | null;
  /** What the link sustains (on EC2: the baseline bandwidth); null where none is known apart from mibPerSecond. */
  baselineMibPerSecond: number | null;
  source: string | null;
}

const MIB = 1024 * 1024;
/**
 * Loopback has no fixed capacity, and no probe is the fastest possible reader (a native client may
 * pull a little more): the estimate is this multiple of the best raw rate measured.
 */
const LOOPBACK_HEADROOM = 1.2;

/** An instance type's entry in assets/instance-network.json (Gbit/s). */
export interface InstanceBandwidth {
  baselineGbps: number;
  burstGbps: number;
}

/** Gbit/s (AWS's unit) in MiB/s (the results' unit). */
export const gbpsToMibPerSecond = (gbps: number): number => Math.round((gbps * 1e9) / 8 / MIB);

/** An instance type's baseline and burst bandwidth from assets/instance-network.json; null when it is not there. */
export function instanceBandwidth(instanceType: string): InstanceBandwidth | null {
  if (instanceType.startsWith('$') || instanceType.startsWith('_')) return null;
  const entry = (instanceNetwork as Record<string, unknown>)[instanceType] as Partial<InstanceBandwidth> | undefined;
  return typeof entry?.baselineGbps === 'number' && typeof entry.burstGbps === 'number' ? { baselineGbps: entry.baselineGbps, burstGbps: entry.burstGbps } : null;
}

/**
 * An EC2 instance type's link limit: the burst bandwidth is the most it can carry (above it: a
 * cache), the baseline what it sustains once its network I/O credits are spent.
 */
export function instanceLinkLimit(instanceType: string): LinkLimit {
  const bw = instanceBandwidth(instanceType);
  if (!bw) {
    return { mibPerSecond: null, baselineMibPerSecond: null, source: `instance type ${instanceType} is not in assets/instance-network.json: no plausibility check` };
  }
  const what = bw.baselineGbps === bw.burstGbps ? `${bw.burstGbps} Gbit/s sustained` : `${bw.baselineGbps} Gbit/s baseline, ${bw.burstGbps} Gbit/s burst while network I/O credits last`;
  return {
    mibPerSecond: gbpsToMibPerSecond(bw.burstGbps),
    baselineMibPerSecond: gbpsToMibPerSecond(bw.baselineGbps),
    source: `instance type ${instanceType}: ${what} (assets/instance-network.json)`,
  };
}

/** A reader of the path to the store: reads `streams` ranges of one object at once, the data discarded. */
export interface PathProbe {
  /** What reads (named in the run facts). */
  name: string;
  /** The whole read: bytes received and seconds from its first request to its last byte. */
  read(key: string, size: number, streams: number): Promise<{ bytes: number; seconds: number }>;
}

const rangeOf = (i: number, streams: number, size: number) => {
  const part = Math.ceil(size / streams);
  return { from: i * part, to: Math.min(size, (i + 1) * part) - 1 };
};

/** The runner's own client (the AWS SDK for JavaScript), the fallback where no native reader is found. */
export function sdkProbe(client: S3Client, bucket: string, signal?: AbortSignal): PathProbe {
  const abortable = signal ? { abortSignal: signal } : {};
  return {
    name: 'the runner\'s AWS SDK for JavaScript client',
    async read(key, size, streams) {
      const t0 = process.hrtime.bigint();
      let bytes = 0;
      await Promise.all(Array.from({ length: streams }, async (_, i) => {
        const r = rangeOf(i, streams, size);
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${r.from}-${r.to}` }), abortable);
        for await (const chunk of res.Body as AsyncIterable<Buffer>) bytes += chunk.length;
      }));
      return { bytes, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
    },
  };
}

/** A quoted value in curl's config syntax. */
const curlQuoted = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * curl (libcurl, native code, not a contestant) with SigV4, reading the ranges in parallel into
 * /dev/null. Its options go through stdin, so the credentials never appear in a process list.
 * Null where curl is missing or the target has no endpoint URL and explicit credentials (AWS's
 * credential chain is the SDK's, not curl's).
 */
export function curlProbe(target: StoreTarget, signal?: AbortSignal): PathProbe | null {
  if (!target.endpointUrl || !target.credentials || !which('curl').length) return null;
  const version = /^curl (\S+)/.exec(spawnSync('curl', ['--version'], { encoding: 'utf8' }).stdout ?? '')?.[1];
  if (!version) return null;
  const { accessKeyId, secretAccessKey } = target.credentials;
  const base = target.endpointUrl.replace(/\/+$/, '');
  return {
    name: `curl ${version}`,
    async read(key, size, streams) {
      const url = target.forcePathStyle ? `${base}/${target.bucket}/${key}` : `${base.replace('://', `://${target.bucket}.`)}/${key}`;
      const config = ['parallel', `parallel-max = ${streams}`, 'no-progress-meter'];
      for (let i = 0; i < streams; i++) {
        const r = rangeOf(i, streams, size);
        if (i) config.push('next');
        config.push(`url = ${curlQuoted(url)}`, `range = ${r.from}-${r.to}`, 'output = "/dev/null"', `user = ${curlQuoted(`${accessKeyId}:${secretAccessKey}`)}`,
          `aws-sigv4 = ${curlQuoted(`aws:amz:${target.region}:s3`)}`, 'header = "x-amz-content-sha256: UNSIGNED-PAYLOAD"',
          'write-out = "%{http_code} %{size_download} %{time_total}\\n"');
      }
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn('curl', ['--config', '-'], { stdio: ['pipe', 'pipe', 'pipe'], signal });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
        child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`curl exited with ${code}: ${stderr.trim().split('\n').pop() ?? ''}`))));
        child.stdin.end(`${config.join('\n')}\n`);
      });
      // The transfers start together: the read lasts as long as its slowest range (process start excluded).
      const rows = out.trim().split('\n').map((l) => l.split(' '));
      const bad = rows.find((f) => f[0] !== '206');
      if (bad || rows.length !== streams) throw new Error(`curl: ${bad ? `HTTP ${bad[0]}` : `${rows.length} of ${streams} ranges`} reading the probe object`);
      return { bytes: rows.reduce((a, f) => a + Number(f[1]), 0), seconds: Math.max(...rows.map((f) => Number(f[2]))) };
    },
  };
}

/**
 * The most the path to the endpoint can deliver to this host: an object is read with 1, 4 and 8
 * parallel ranged GETs, three times each, the data discarded, by every probe available (the
 * fastest native reader first: curl; the runner's JavaScript client besides); the best rate ×
 * LOOPBACK_HEADROOM is the estimate, and the probe that read it is named in its source. A figure
 * above it whose every byte the server's log shows it sent is flagged link-estimate-low: a fact
 * about this estimate, not the method. Takes well under a second against the embedded server.
 */
export async function measureLinkLimit(client: S3Client, bucket: string, key: string, size = 64 * MIB, signal?: AbortSignal, probes: PathProbe[] = [sdkProbe(client, bucket, signal)]): Promise<LinkLimit> {
  // The run's signal ends the measurement at once (an endpoint that stopped answering).
  const abortable = signal ? { abortSignal: signal } : {};
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: patternStream('link-limit', size), ContentLength: size }), abortable);
  const results: { probe: string; best: number; streams: number; problem: string | null }[] = [];
  try {
    for (const probe of probes) {
      const r = { probe: probe.name, best: 0, streams: 1, problem: null as string | null };
      try {
        for (const streams of [1, 4, 8, 1, 4, 8, 1, 4, 8]) {
          const { bytes, seconds } = await probe.read(key, size, streams);
          const rate = bytes / MIB / seconds;
          if (bytes === size && seconds > 0 && rate > r.best) {
            r.best = rate;
            r.streams = streams;
          }
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        r.problem = err instanceof Error ? err.message : String(err);
      }
      results.push(r);
    }
  } finally {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => {});
  }
  const read = results.filter((r) => r.best > 0).sort((a, b) => b.best - a.best);
  if (!read.length) throw new Error(`no probe read the path: ${results.map((r) => `${r.probe}: ${r.problem ?? 'no complete read'}`).join('; ')}`);
  const best = read[0];
  const others = results.filter((r) => r !== best).map((r) => `${r.probe}: ${r.best > 0 ? `${Math.round(r.best)} MiB/s` : `not read (${r.problem ?? 'no complete read'})`}`);
  return {
    mibPerSecond: Math.round(best.best * LOOPBACK_HEADROOM),
    baselineMibPerSecond: null,
    source: `measured: ${LOOPBACK_HEADROOM} × ${Math.round(best.best)} MiB/s, the path's best raw GET rate, read by ${best.probe} (${best.streams > 1 ? `${best.streams} ranged GETs in parallel` : 'one ranged GET'} of a ${formatSize(size)} object, data discarded)${others.length ? `; ${others.join('; ')}` : ''}`,
  };
}

/** The link limit of this run: S3AB_LINK_LIMIT_MIBS, else the EC2 instance type's baseline and burst bandwidth, else measured by every path probe available. */
export async function linkLimitFor(client: S3Client, target: StoreTarget, key: string, instanceType: string, signal?: AbortSignal): Promise<LinkLimit> {
  const override = Number(process.env.S3AB_LINK_LIMIT_MIBS);
  if (override > 0) return { mibPerSecond: override, baselineMibPerSecond: null, source: 'S3AB_LINK_LIMIT_MIBS' };
  if (instanceType !== 'local' && instanceType !== 'ec2-unknown') return instanceLinkLimit(instanceType);
  const probes = [curlProbe(target, signal), sdkProbe(client, target.bucket, signal)].filter((p): p is PathProbe => !!p);
  return measureLinkLimit(client, target.bucket, key, undefined, signal, probes);
}
