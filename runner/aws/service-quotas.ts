import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';

/**
 * Service Quotas' GetServiceQuota, the one call of that service the capacity check makes, as an
 * interface a test or the rehearsal can answer. The SDK's client reads the standard credential
 * chain and honours AWS_ENDPOINT_URL_SERVICE_QUOTAS (the rehearsal's stand-in).
 */
export interface ServiceQuotasApi {
  getServiceQuota(input: { ServiceCode: string; QuotaCode: string }): Promise<{ Quota?: { Value?: number; QuotaName?: string } }>;
}

/** The SDK's Service Quotas client in the region `region` resolves to, every request ended within `timeoutMs`. */
export function serviceQuotasClient(o: { region: () => Promise<string>; timeoutMs?: number }): ServiceQuotasApi {
  const client = new ServiceQuotasClient({
    region: o.region, maxAttempts: 2,
    requestHandler: { connectionTimeout: 1000, requestTimeout: o.timeoutMs ?? 5000, throwOnRequestTimeout: true },
  });
  return { getServiceQuota: (input) => client.send(new GetServiceQuotaCommand(input)) };
}
