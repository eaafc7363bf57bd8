import { execFile, spawn } from 'node:child_process';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileDigest } from '../core/data';
import { which } from '../core/paths';
import { awsCliDescriptor } from './aws-cli';
import type { Availability, Fetched, ListedObject, MethodDefinition, OpenContext, Options, StorageSession } from '../core/method';

const execFileAsync = promisify(execFile);

/** Finds an AWS CLI v2 (seed 000 used v2; v1 behaves differently). $S3AB_AWS_CLI, when set, is the only candidate. */
async function findCli(): Promise<{ path: string; version: string } | { error: string }> {
  const candidates = process.env.S3AB_AWS_CLI
    ? [process.env.S3AB_AWS_CLI]
    : [...which('aws'), '/usr/bin/aws', '/usr/local/bin/aws'].filter((p, i, all) => all.indexOf(p) === i);
  const v1: string[] = [];
  for (const path of candidates) {
    try {
      const { stdout, stderr } = await execFileAsync(path, ['--version'], { timeout: 20_000 });
      const version = /aws-cli\/(\S+)/.exec(stdout + stderr)?.[1];
      if (!version) continue;
      if (version.startsWith('2.')) return { path, version: `aws-cli ${version}` };
      v1.push(`${path} is aws-cli ${version}`);
    } catch {
      // not executable or broken: try the next one
    }
  }
  return {
    error: v1.length
      ? `only AWS CLI v1 found (${v1.join('; ')}); install v2: \`apt-get install awscli\` on Debian 12, or set S3AB_AWS_CLI`
      : process.env.S3AB_AWS_CLI
        ? `S3AB_AWS_CLI=${process.env.S3AB_AWS_CLI} is not an AWS CLI v2: point it at one, or unset it`
        : 'AWS CLI v2 is not installed: `apt-get install awscli` (Debian 12) or `npm run setup`, or set S3AB_AWS_CLI=/path/to/aws',
  };
}

let found: ReturnType<typeof findCli> | null = null;

/** The aws-cli method's client: one `aws` process per operation. */
export const awsCli: MethodDefinition = {
  ...awsCliDescriptor,
  async probe(): Promise<Availability> {
    const cli = await (found ??= findCli());
    return 'error' in cli ? { available: false, reason: cli.error } : { available: true, version: cli.version };
  },
  async open(ctx: OpenContext): Promise<StorageSession> {
    const cli = await (found ??= findCli());
    if ('error' in cli) throw new Error(cli.error);
    const env: NodeJS.ProcessEnv = { ...process.env, AWS_PAGER: '', AWS_CLI_AUTO_PROMPT: 'off', AWS_DEFAULT_REGION: ctx.target.region };
    const options: Options = { ...ctx.options, process_per_operation: true };
    if (ctx.target.credentials) {
      // The embedded server: its own credentials and a private config with the option set.
      const config = join(ctx.scratchDir, 'aws-config');
      await writeFile(config, [
        '[default]',
        `region = ${ctx.target.region}`,
        's3 =',
        `  max_concurrent_requests = ${ctx.options.max_concurrent_requests}`,
        `  multipart_threshold = ${ctx.options.multipart_threshold}`,
        `  multipart_chunksize = ${ctx.options.multipart_chunksize}`,
        ...(ctx.target.forcePathStyle ? ['  addressing_style = path'] : []),
        '',
      ].join('\n'));
      Object.assign(env, {
        AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: '/dev/null', AWS_EC2_METADATA_DISABLED: 'true',
        AWS_ACCESS_KEY_ID: ctx.target.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: ctx.target.credentials.secretAccessKey,
      });
      delete env.AWS_PROFILE;
      delete env.AWS_SESSION_TOKEN;
    } else {
      // A named endpoint uses the standard credential chain and the user's CLI configuration.
      options.config = 'user AWS CLI configuration';
    }
    return new AwsCliSession(cli.path, cli.version, options, env, ctx);
  },
};

class AwsCliSession implements StorageSession {
  private seq = 0;
  constructor(
    private readonly bin: string,
    readonly version: string,
    readonly options: Options,
    private readonly env: NodeJS.ProcessEnv,
    private readonly ctx: OpenContext,
  ) {}

  private url(key: string): string {
    return `s3://${this.ctx.target.bucket}/${key}`;
  }

  /** Runs one CLI process; rejects with the CLI's own error line when it exits non-zero. */
  private run(args: string[]): Promise<string> {
    const full = [...(this.ctx.target.endpointUrl ? ['--endpoint-url', this.ctx.target.endpointUrl] : []), ...args];
    return new Promise((resolve, reject) => {
      if (this.ctx.signal.aborted) return reject(this.ctx.signal.reason);
      const child = spawn(this.bin, full, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let err = '';
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => { err = (err + c.toString()).slice(-2000); });
      const onAbort = () => child.kill('SIGTERM');
      this.ctx.signal.addEventListener('abort', onAbort, { once: true });
      child.once('error', (e) => { this.ctx.signal.removeEventListener('abort', onAbort); reject(e); });
      child.once('close', (code) => {
        this.ctx.signal.removeEventListener('abort', onAbort);
        if (code === 0) return resolve(Buffer.concat(out).toString());
        const line = err.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? `exit code ${code}`;
        reject(new Error(`aws ${args.slice(0, 2).join(' ')} failed: ${line}`));
      });
    });
  }

  async put(key: string, file: { path: string; size: number }): Promise<void> {
    await this.run(['s3', 'cp', file.path, this.url(key), '--no-progress', '--only-show-errors']);
  }

  async get(key: string): Promise<Fetched> {
    const path = join(this.ctx.scratchDir, `download-${this.seq++}`);
    await this.run(['s3', 'cp', this.url(key), path, '--no-progress', '--only-show-errors']);
    const { size } = await stat(path);
    return {
      bytes: size,
      digest: () => fileDigest(path),
      discard: () => rm(path, { force: true }),
    };
  }

  async list(prefix: string): Promise<ListedObject[]> {
    let text: string;
    try {
      text = await this.run(['s3', 'ls', this.url(prefix), '--recursive']);
    } catch (err) {
      // `aws s3 ls` exits 1 when nothing matches.
      if (/exit code 1$/.test((err as Error).message)) return [];
      throw err;
    }
    const out: ListedObject[] = [];
    for (const line of text.split('\n')) {
      const m = /^\S+\s+\S+\s+(\d+)\s(.+)$/.exec(line);
      if (m && m[2].startsWith(prefix)) out.push({ key: m[2].slice(prefix.length), size: Number(m[1]) });
    }
    return out;
  }

  async head(key: string): Promise<{ size: number }> {
    const text = await this.run(['s3api', 'head-object', '--bucket', this.ctx.target.bucket, '--key', key, '--output', 'json']);
    return { size: Number(JSON.parse(text).ContentLength) };
  }

  async delete(key: string): Promise<void> {
    await this.run(['s3', 'rm', this.url(key), '--only-show-errors']);
  }

  async close(): Promise<void> {}
}
