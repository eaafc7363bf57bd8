import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * The Powertools for AWS Lambda (TypeScript) logger and metrics shared by every handler. Service
 * name and namespace come from POWERTOOLS_SERVICE_NAME / POWERTOOLS_METRICS_NAMESPACE, set by the
 * house Lambda construct (lib/bench-function.ts).
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 's3ab' });
export const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 's3-access-bench', serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 's3ab' });

/** An error whose `name` the state machine matches in Retry/Catch. */
export class NamedError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}
