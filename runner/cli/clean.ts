import type { Command } from 'commander';
import { UserError } from '../core/errors';
import { isRunId, RUN_ID_EXAMPLE, runDataPrefix, runVolumePrefix } from '../core/vocabulary';
import { explain } from '../endpoint/preflight';
import { ReferenceStore } from '../endpoint/reference';
import { makeS3Client } from '../endpoint/s3-client';
import { targetFor } from '../endpoint/target';
import { out } from './args';

/** `s3ab clean --run ID`: removes what a run left in a bucket (an endpoint that went away before the run could). */
export function registerClean(program: Command): void {
  program
    .command('clean')
    .description('remove the objects a run left in a bucket (under s3ab/RUNID/), e.g. after its endpoint went away mid-run')
    .requiredOption('--run <id>', 'the run id (its manifest and the message that named the leftovers give it)')
    .requiredOption('--bucket <name>', 'the bucket the run used')
    .option('--endpoint <url>', 'the S3-compatible endpoint (default: AWS S3 in --region)')
    .option('--region <region>', 'region (default: AWS_REGION or us-east-1)')
    .action(async (o: { run: string; bucket: string; endpoint?: string; region?: string }) => {
      if (!isRunId(o.run)) throw new UserError(`--run "${o.run}" is not a run id`, `use the form ${RUN_ID_EXAMPLE}`);
      const target = targetFor({ endpoint: o.endpoint, bucket: o.bucket, region: o.region });
      const client = makeS3Client(target, { maxSockets: 8 });
      try {
        // The run's objects, and its volumes' (clients that keep data under a name: JuiceFS).
        for (const prefix of [runDataPrefix(o.run), runVolumePrefix(o.run)]) {
          const deleted = await new ReferenceStore(client, target.bucket).deletePrefix(prefix).catch((err) => {
            throw explain(err, target, target.endpointUrl ?? `AWS S3 (${target.region})`);
          });
          out(`removed ${deleted} object${deleted === 1 ? '' : 's'} under ${prefix} in bucket ${target.bucket}`);
        }
      } finally {
        client.destroy();
      }
    });
}
