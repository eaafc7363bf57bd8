import { nfsClientState } from '../../runner/core/mounts-table';

/** Issue 13, defect 1: a fresh Amazon Linux 2023 runner has not loaded nfs yet; its NFS client is still there. */
describe('the kernel\'s NFS client', () => {
  const none = { filesystems: 'nodev\tsysfs\nnodev\ttmpfs\n\text4\nnodev\tfuse\n', modulesDep: null, modulesBuiltin: null };
  test('loaded: nfs4 in /proc/filesystems', () => {
    expect(nfsClientState({ ...none, filesystems: `${none.filesystems}nodev\tnfs\nnodev\tnfs4\n` })).toBe('loaded');
  });
  test('not loaded yet but a module (AL2023 before the first NFS mount): loadable, so s3files is available', () => {
    const dep = 'kernel/fs/nfs/nfsv4.ko.xz: kernel/fs/nfs/nfs.ko.xz kernel/net/sunrpc/sunrpc.ko.xz\nkernel/fs/nfs/nfs.ko.xz: kernel/fs/lockd/lockd.ko.xz\n';
    expect(nfsClientState({ ...none, modulesDep: dep })).toBe('loadable');
  });
  test('built into the kernel: loadable', () => {
    expect(nfsClientState({ ...none, modulesBuiltin: 'kernel/fs/ext4/ext4.ko\nkernel/fs/nfs/nfs.ko\n' })).toBe('loadable');
  });
  test('no client at all (the kernel of this sandbox): none', () => {
    expect(nfsClientState(none)).toBe('none');
    expect(nfsClientState({ filesystems: null, modulesDep: 'kernel/fs/nfsd/nfsd.ko.xz: kernel/net/sunrpc/sunrpc.ko.xz\n', modulesBuiltin: null })).toBe('none');
  });
});
