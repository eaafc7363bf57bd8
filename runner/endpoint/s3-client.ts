import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { StoreTarget } from '../core/target';

export interface ClientTuning {
  /** Most sockets kept open to the endpoint (the keep-alive pool). */
  maxSockets: number;
  /** 'WHEN_SUPPORTED' (the SDK default: CRC checksums on every upload) or 'WHEN_REQUIRED'. */
  checksums?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
}

/** An S3 client for the target with a keep-alive connection pool. */
export function makeS3Client(target: StoreTarget, tuning: ClientTuning): S3Client {
  const agentOptions = { keepAlive: true, maxSockets: tuning.maxSockets, keepAliveMsecs: 10_000 };
  return new S3Client({
    region: target.region,
    endpoint: target.endpointUrl,
    forcePathStyle: target.forcePathStyle,
    credentials: target.credentials,
    maxAttempts: 3,
    requestChecksumCalculation: tuning.checksums ?? 'WHEN_SUPPORTED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new HttpsAgent(agentOptions),
      connectionTimeout: 5_000,
      requestTimeout: 120_000,
    }),
  });
}
