import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/**
 * Service Quotas' GetServiceQuota, the one call of that service the capacity check makes. The
 * repository has no Service Quotas SDK client, so this is the call as the SDK would send it: the
 * AWS JSON 1.1 protocol (POST /, `X-Amz-Target: ServiceQuotasV20190624.GetServiceQuota`), SigV4
 * for the signing name `servicequotas`, credentials from the standard chain, and the endpoint
 * `https://servicequotas.REGION.amazonaws.com` unless AWS_ENDPOINT_URL_SERVICE_QUOTAS names another
 * (the SDKs' service-specific endpoint variable).
 */
export interface ServiceQuotasApi {
  getServiceQuota(input: { ServiceCode: string; QuotaCode: string }): Promise<{ Quota?: { Value?: number; QuotaName?: string } }>;
}

/** An AWS error as the SDKs name it (the JSON protocol's `__type`, without its namespace). */
export class ServiceQuotasError extends Error {
  constructor(name: string, message: string, readonly status: number) { super(message); this.name = name; }
}

/** SHA-256 (or its HMAC) as SigV4 wants it, from node:crypto. */
class Sha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) { this.hash = this.fresh(); }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as Uint8Array));
  }
  update(data: Uint8Array): void { this.hash.update(data); }
  async digest(): Promise<Uint8Array> { return new Uint8Array(this.hash.digest()); }
  reset(): void { this.hash = this.fresh(); }
}

export function serviceQuotasClient(o: { region: () => Promise<string>; credentials?: AwsCredentialIdentityProvider; timeoutMs?: number }): ServiceQuotasApi {
  const credentials = o.credentials ?? defaultProvider();
  return {
    async getServiceQuota(input) {
      const region = await o.region();
      const url = new URL(process.env.AWS_ENDPOINT_URL_SERVICE_QUOTAS ?? `https://servicequotas.${region}.amazonaws.com/`);
      const body = JSON.stringify(input);
      const signer = new SignatureV4({ service: 'servicequotas', region, credentials, sha256: Sha256 });
      const signed = await signer.sign({
        method: 'POST', protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path: url.pathname, query: {},
        headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'ServiceQuotasV20190624.GetServiceQuota' },
        body,
      });
      const res = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(o.timeoutMs ?? 5000) });
      const text = await res.text();
      const parsed = (text ? JSON.parse(text) : {}) as { __type?: string; message?: string; Message?: string; Quota?: { Value?: number; QuotaName?: string } };
      if (!res.ok) throw new ServiceQuotasError(String(parsed.__type ?? 'ServiceQuotasError').replace(/^.*#/, ''), parsed.message ?? parsed.Message ?? text, res.status);
      return parsed;
    },
  };
}
