import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
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
 * Loopback has no fixed capacity, and the runner's own client is not the fastest possible one
 * (Mountpoint's CRT client reads faster): a figure counts as served from a cache only above this
 * multiple of the best raw rate measured.
 */
export const LOOPBACK_HEADROOM = 1.2;

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

/**
 * The most the endpoint can deliver to this host: an object is read with 1, 4 and 8 parallel
 * ranged GETs, three times each, the data discarded; the best rate × LOOPBACK_HEADROOM is the limit.
 * Takes well under a second against the embedded server.
 */
export async function measureLinkLimit(client: S3Client, bucket: string, key: string, size = 64 * MIB, signal?: AbortSignal): Promise<LinkLimit> {
  // The run's signal ends the measurement at once (an endpoint that stopped answering).
  const abortable = signal ? { abortSignal: signal } : {};
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: patternStream('link-limit', size), ContentLength: size }), abortable);
  let best = 0;
  let bestStreams = 1;
  try {
    for (const streams of [1, 4, 8, 1, 4, 8, 1, 4, 8]) {
      const part = Math.ceil(size / streams);
      const t0 = process.hrtime.bigint();
      let received = 0;
      await Promise.all(Array.from({ length: streams }, async (_, i) => {
        const range = `bytes=${i * part}-${Math.min(size, (i + 1) * part) - 1}`;
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }), abortable);
        for await (const chunk of res.Body as AsyncIterable<Buffer>) received += chunk.length;
      }));
      const rate = received / MIB / (Number(process.hrtime.bigint() - t0) / 1e9);
      if (received === size && rate > best) {
        best = rate;
        bestStreams = streams;
      }
    }
  } finally {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => {});
  }
  const limit = Math.round(best * LOOPBACK_HEADROOM);
  return {
    mibPerSecond: limit,
    baselineMibPerSecond: null,
    source: `measured: ${LOOPBACK_HEADROOM} × ${Math.round(best)} MiB/s, the endpoint's best raw GET rate (${bestStreams} ranged GETs of a ${formatSize(size)} object, data discarded)`,
  };
}

/** The link limit of this run: S3AB_LINK_LIMIT_MIBS, else the EC2 instance type's baseline and burst bandwidth, else measured. */
export async function linkLimitFor(client: S3Client, bucket: string, key: string, instanceType: string, signal?: AbortSignal): Promise<LinkLimit> {
  const override = Number(process.env.S3AB_LINK_LIMIT_MIBS);
  if (override > 0) return { mibPerSecond: override, baselineMibPerSecond: null, source: 'S3AB_LINK_LIMIT_MIBS' };
  if (instanceType !== 'local' && instanceType !== 'ec2-unknown') return instanceLinkLimit(instanceType);
  return measureLinkLimit(client, bucket, key, undefined, signal);
}
