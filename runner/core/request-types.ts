import resultSchema from '../../assets/schema/result.schema.json';
import type { ResultRecord } from './record.generated';

export type RequestCounts = NonNullable<ResultRecord['requests']>;
export type RequestType = Exclude<keyof RequestCounts, 'get_bytes'>;

/** The request types, in the schema's order (assets/schema/result.schema.json, the single source). */
export const REQUEST_TYPES = Object.keys(resultSchema.properties.requests.properties).filter((k) => k !== 'get_bytes') as RequestType[];

/** S3 Standard's price tiers (assets/prices.json `s3StandardRequestsPer1000`). */
export type RequestTier = 'tier1' | 'tier2' | 'free';

/**
 * The price tier of each request type (assets/prices.json states the rule): tier 1 is PUT, COPY,
 * POST (multipart create and complete), LIST and a multipart part; DELETE and an aborted multipart
 * upload cost nothing; everything else (GET, HEAD, other) is tier 2.
 */
export const REQUEST_TIER: Readonly<Record<RequestType, RequestTier>> = {
  get: 'tier2', get_ranged: 'tier2', put: 'tier1', mpu_create: 'tier1', mpu_part: 'tier1', mpu_complete: 'tier1',
  mpu_abort: 'free', head: 'tier2', list: 'tier1', delete: 'free', copy: 'tier1', other: 'tier2',
};
