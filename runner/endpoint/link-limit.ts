import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { patternStream } from '../core/data';
import { formatSize } from '../core/units';
import instanceNetwork from '../../assets/instance-network.json';

export interface LinkLimit {
  mibPerSecond: number | null;
  source: string | null;
}

const MIB = 1024 * 1024;
/**
 * Loopback has no fixed capacity, and the runner's own client is not the fastest possible one
 * (Mountpoint's CRT client reads faster): a figure counts as served from a cache only above this
 * multiple of the best raw rate measured.
 */
export const LOOPBACK_HEADROOM = 1.2;

/** An EC2 instance type's network bandwidth from assets/instance-network.json, in MiB/s. */
export function instanceLinkLimit(instanceType: string): LinkLimit {
  const gbps = (instanceNetwork as Record<string, number | string>)[instanceType];
  if (typeof gbps !== 'number') {
    return { mibPerSecond: null, source: `instance type ${instanceType} is not in assets/instance-network.json: no plausibility check` };
  }
  return { mibPerSecond: Math.round((gbps * 1e9) / 8 / MIB), source: `instance type ${instanceType}: ${gbps} Gbit/s (assets/instance-network.json)` };
}

/**
 * The most the endpoint can deliver to this host: an object is read with 1, 4 and 8 parallel
 * ranged GETs, three times each, the data discarded; the best rate × LOOPBACK_HEADROOM is the limit.
 * Takes well under a second against the embedded server.
 */
export async function measureLinkLimit(client: S3Client, bucket: string, key: string, size = 64 * MIB): Promise<LinkLimit> {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: patternStream('link-limit', size), ContentLength: size }));
  let best = 0;
  let bestStreams = 1;
  try {
    for (const streams of [1, 4, 8, 1, 4, 8, 1, 4, 8]) {
      const part = Math.ceil(size / streams);
      const t0 = process.hrtime.bigint();
      let received = 0;
      await Promise.all(Array.from({ length: streams }, async (_, i) => {
        const range = `bytes=${i * part}-${Math.min(size, (i + 1) * part) - 1}`;
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
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
    source: `measured: ${LOOPBACK_HEADROOM} × ${Math.round(best)} MiB/s, the endpoint's best raw GET rate (${bestStreams} ranged GETs of a ${formatSize(size)} object, data discarded)`,
  };
}

/** The link limit of this run: S3AB_LINK_LIMIT_MIBS, else the EC2 instance type's bandwidth, else measured. */
export async function linkLimitFor(client: S3Client, bucket: string, key: string, instanceType: string): Promise<LinkLimit> {
  const override = Number(process.env.S3AB_LINK_LIMIT_MIBS);
  if (override > 0) return { mibPerSecond: override, source: 'S3AB_LINK_LIMIT_MIBS' };
  if (instanceType !== 'local' && instanceType !== 'ec2-unknown') return instanceLinkLimit(instanceType);
  return measureLinkLimit(client, bucket, key);
}
