import { nfsOptionText, zerofsConfig } from '../../runner/methods/zerofs.impl';
import { zerofsDescriptor } from '../../runner/methods/zerofs';

describe('ZeroFS 0.19.1 configuration, as the zerofs method writes it', () => {
  const base = { cacheDir: '/scratch/zerofs-disk-x/cache', diskSizeGb: 10, memorySizeGb: 1, bucket: 'data', volumeName: 's3ab-run-1', nfs: { host: '127.0.0.1', port: 40123 }, region: 'us-east-1' };

  test('a named endpoint: path-style (its default), http allowed, keys and password as variables only', () => {
    const text = zerofsConfig({ ...base, endpointUrl: 'http://127.0.0.1:7070', credentials: true });
    expect(text).toBe([
      '[cache]', 'dir = "/scratch/zerofs-disk-x/cache"', 'disk_size_gb = 10.0', 'memory_size_gb = 1.0', '',
      '[storage]', 'url = "s3://data/s3ab-run-1"', 'encryption_password = "${ZEROFS_PASSWORD}"', '',
      '[servers.nfs]', 'addresses = ["127.0.0.1:40123"]', '',
      '[aws]', 'default_region = "us-east-1"', 'access_key_id = "${AWS_ACCESS_KEY_ID}"', 'secret_access_key = "${AWS_SECRET_ACCESS_KEY}"',
      'endpoint = "http://127.0.0.1:7070"', 'allow_http = "true"', '',
    ].join('\n'));
  });

  test('on AWS: no endpoint and no keys (the instance role through the metadata service)', () => {
    const text = zerofsConfig({ ...base, credentials: false });
    expect(text).not.toMatch(/endpoint|allow_http|access_key_id|secret_access_key/);
    expect(text).toContain('[aws]\ndefault_region = "us-east-1"\n');
  });

  test('mount options: ZeroFS\'s documented Linux set with NFSv3 stated, flags bare, values as name=value', () => {
    const { cache_disk_size_gb: _disk, cache_memory_size_gb: _memory, ...nfs } = zerofsDescriptor.variants.default;
    expect(nfsOptionText({ ...nfs, port: 40123, mountport: 40123 })).toBe('vers=3,async,nolock,rsize=1048576,wsize=1048576,tcp,hard,port=40123,mountport=40123');
    expect(nfsOptionText({ async: false, hard: true })).toBe('hard');
  });
});
