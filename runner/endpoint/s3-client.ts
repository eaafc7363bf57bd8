import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { StoreTarget } from '../core/target';

/**
 * Every wait on the endpoint is bounded (a server that accepts connections and stops answering
 * must fail the call, not hang the run): connecting, a socket with no byte in either direction,
 * and a whole request with its response. The idle bound catches a frozen server quickly; the
 * request bound is generous enough for a single-stream GET of GiBs on a slow link.
 */
const CLIENT_BOUNDS_MS = { connect: 5_000, idle: 30_000, request: 15 * 60_000 } as const;
/** The preflight's bounds: a check of a few tiny requests fails fast. */
export const PREFLIGHT_BOUNDS_MS = { connect: 5_000, idle: 6_000, request: 12_000 } as const;

export interface ClientTuning {
  /** Most sockets kept open to the endpoint (the keep-alive pool). */
  maxSockets: number;
  /** @default CLIENT_BOUNDS_MS */
  bounds?: { connect: number; idle: number; request: number };
  /** @default 3 */
  maxAttempts?: number;
  /** 'WHEN_SUPPORTED' (the SDK default: CRC checksums on every upload) or 'WHEN_REQUIRED'. */
  checksums?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
  /** Appended to the User-Agent (the runner's own client is told apart in the server's log by it). @default none */
  userAgent?: string;
}

/** An S3 client for the target with a keep-alive connection pool. */
export function makeS3Client(target: StoreTarget, tuning: ClientTuning): S3Client {
  const agentOptions = { keepAlive: true, maxSockets: tuning.maxSockets, keepAliveMsecs: 10_000 };
  return new S3Client({
    region: target.region,
    endpoint: target.endpointUrl,
    forcePathStyle: target.forcePathStyle,
    credentials: target.credentials,
    maxAttempts: tuning.maxAttempts ?? 3,
    ...(tuning.userAgent ? { customUserAgent: tuning.userAgent } : {}),
    requestChecksumCalculation: tuning.checksums ?? 'WHEN_SUPPORTED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new HttpsAgent(agentOptions),
      connectionTimeout: (tuning.bounds ?? CLIENT_BOUNDS_MS).connect,
      socketTimeout: (tuning.bounds ?? CLIENT_BOUNDS_MS).idle,
      requestTimeout: (tuning.bounds ?? CLIENT_BOUNDS_MS).request,
      // Without it the SDK only warns when a request exceeds requestTimeout (TOOLCHAIN.md).
      throwOnRequestTimeout: true,
    }),
  });
}
