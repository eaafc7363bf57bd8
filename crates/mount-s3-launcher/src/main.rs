//! `s3ab-mount-s3`: mounts an S3 bucket with Mountpoint for Amazon S3's file system
//! (the `mountpoint-s3-fs` crate, the library inside the official `mount-s3`).
//!
//! crates.io has the library but not the `mount-s3` command, so s3-access-bench builds this small
//! launcher to benchmark Mountpoint on hosts without the official package. It takes the subset of
//! `mount-s3`'s flags the benchmark needs, with the same names and defaults, and keeps upstream's
//! behaviour where the library leaves it to the command:
//!   * rename is refused with ENOSYS unless the bucket supports RenameObject (directory buckets).
//!     The library would send `PUT ?renameObject` anyway, which S3-compatible servers such as
//!     versitygw and MinIO answer as an empty PutObject: a 0-byte destination and the source kept.
//!   * with `--cache`, metadata is cached for 60 s unless `--metadata-ttl` says otherwise.
//!   * the bucket is checked with one ListObjectsV2 before mounting, so bad credentials or a missing
//!     bucket fail here, with the reason, instead of at the first `ls`.
//! It always runs in the foreground; SIGINT/SIGTERM unmount cleanly.

use std::ffi::OsStr;
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use async_trait::async_trait;
use clap::Parser;
use mountpoint_s3_client::S3CrtClient;
use mountpoint_s3_client::config::{AddressingStyle, EndpointConfig};
use mountpoint_s3_client::types::ETag;
use mountpoint_s3_client::user_agent::UserAgent;
use mountpoint_s3_fs::data_cache::{CacheLimit, DataCacheConfig, DiskDataCacheConfig, ManagedCacheDir};
use mountpoint_s3_fs::fs::{CacheConfig, OpenFlags, TimeToLive};
use mountpoint_s3_fs::fuse::config::{FuseOptions, FuseSessionConfig, MountPoint};
use mountpoint_s3_fs::logging::{LoggingConfig, init_logging, prepare_log_file_name};
use mountpoint_s3_fs::memory::{CandidateSize, PagedPool, WriteHandleLimiter};
use mountpoint_s3_fs::metablock::{
    AddDirEntry, InodeError, InodeKind, InodeNo, Lookup, Metablock, NewHandle, PendingUploadHook, ReadWriteMode,
    S3Location, WriteMode,
};
use mountpoint_s3_fs::s3::config::{ClientConfig, MemoryLimitSetting, PartConfig, Region, TargetThroughputSetting};
use mountpoint_s3_fs::s3::{Bucket, Prefix, S3Path, S3Personality};
use mountpoint_s3_fs::{MountpointConfig, Runtime, S3FilesystemConfig, Superblock, SuperblockConfig};
use time::OffsetDateTime;

const LIBRARY_VERSION: &str = env!("MOUNTPOINT_S3_FS_VERSION");

fn long_version() -> &'static str {
    Box::leak(format!("{} (mountpoint-s3-fs {LIBRARY_VERSION})", env!("CARGO_PKG_VERSION")).into_boxed_str())
}

#[derive(Parser, Debug)]
#[command(
    name = "s3ab-mount-s3",
    version = long_version(),
    about = "Mount an S3 bucket with Mountpoint for Amazon S3's file system (mountpoint-s3-fs), in the foreground.",
    long_about = "Mount an S3 bucket with Mountpoint for Amazon S3's file system (the mountpoint-s3-fs crate), \
                  taking the subset of mount-s3's flags that s3-access-bench uses. Runs in the foreground; \
                  SIGINT or SIGTERM unmounts. Credentials come from the standard AWS chain \
                  (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance role)."
)]
struct Args {
    /// Name of the bucket to mount
    bucket: String,
    /// Directory to mount the bucket at (must exist and be empty)
    directory: PathBuf,

    /// Prefix inside the bucket to mount, ending in '/'
    #[arg(long, default_value = "")]
    prefix: String,
    /// AWS region of the bucket (the signing region for --endpoint-url)
    #[arg(long, default_value = "us-east-1")]
    region: String,
    /// S3 endpoint URL [default: AWS's endpoint for the region]
    #[arg(long)]
    endpoint_url: Option<String>,
    /// Force path-style addressing (needed by servers on an IP address)
    #[arg(long)]
    force_path_style: bool,

    /// Mount read-only
    #[arg(long)]
    read_only: bool,
    /// Allow delete operations on the file system
    #[arg(long)]
    allow_delete: bool,
    /// Allow overwriting existing files (opened with O_TRUNC)
    #[arg(long)]
    allow_overwrite: bool,

    /// Cache object content in this directory (a fresh subdirectory is made and removed on exit)
    #[arg(long, value_name = "DIRECTORY")]
    cache: Option<PathBuf>,
    /// Most the disk cache may hold, in MiB [default: keep 5% of the file system free]
    #[arg(long, value_name = "MiB")]
    max_cache_size: Option<u64>,
    /// How long cached metadata stays valid: seconds, 'indefinite' or 'minimal'
    /// [default: 60 with --cache, else minimal]
    #[arg(long, value_name = "SECONDS")]
    metadata_ttl: Option<TimeToLive>,

    /// Part size for multipart GET and PUT, in bytes
    #[arg(long, default_value_t = 8 * 1024 * 1024)]
    part_size: usize,
    /// Maximum number of FUSE daemon threads
    #[arg(long, default_value_t = 16)]
    max_threads: usize,
    /// Target network throughput, in Gbit/s
    #[arg(long, value_name = "GBPS")]
    maximum_throughput_gbps: Option<f64>,
    /// Memory target, in MiB [default: 95% of this machine's memory, as mount-s3]
    #[arg(long, value_name = "MiB")]
    memory_target: Option<u64>,

    /// Write Mountpoint's log to a file in this directory [default: standard output]
    #[arg(long, value_name = "DIRECTORY")]
    log_directory: Option<PathBuf>,
    /// Log filter (tracing syntax), overridden by MOUNTPOINT_LOG
    #[arg(long, default_value = "warn,awscrt=off")]
    log_filter: String,
    /// Accepted for mount-s3 compatibility; this launcher always runs in the foreground
    #[arg(short, long)]
    foreground: bool,
}

/// Upstream's rule for rename: only where the bucket has a RenameObject API. Elsewhere the
/// request never leaves this process and the caller sees ENOSYS, as with upstream mount-s3.
struct RenameGate<M> {
    inner: M,
    rename_supported: bool,
}

#[async_trait]
impl<M: Metablock> Metablock for RenameGate<M> {
    async fn lookup(&self, parent_ino: InodeNo, name: &OsStr) -> Result<Lookup, InodeError> {
        self.inner.lookup(parent_ino, name).await
    }
    async fn getattr(&self, ino: InodeNo, force_revalidate_if_remote: bool) -> Result<Lookup, InodeError> {
        self.inner.getattr(ino, force_revalidate_if_remote).await
    }
    async fn setattr(
        &self,
        ino: InodeNo,
        atime: Option<OffsetDateTime>,
        mtime: Option<OffsetDateTime>,
    ) -> Result<Lookup, InodeError> {
        self.inner.setattr(ino, atime, mtime).await
    }
    async fn create(&self, dir: InodeNo, name: &OsStr, kind: InodeKind) -> Result<Lookup, InodeError> {
        self.inner.create(dir, name, kind).await
    }
    async fn forget(&self, ino: InodeNo, n: u64) {
        self.inner.forget(ino, n).await
    }
    async fn open_handle(
        &self,
        ino: InodeNo,
        fh: u64,
        write_mode: &WriteMode,
        flags: OpenFlags,
        write_handle_limiter: Option<&WriteHandleLimiter>,
    ) -> Result<NewHandle, InodeError> {
        self.inner.open_handle(ino, fh, write_mode, flags, write_handle_limiter).await
    }
    async fn inc_file_size(&self, ino: InodeNo, len: usize) -> Result<usize, InodeError> {
        self.inner.inc_file_size(ino, len).await
    }
    async fn finish_writing(&self, ino: InodeNo, etag: Option<ETag>, fh: u64) -> Result<Lookup, InodeError> {
        self.inner.finish_writing(ino, etag, fh).await
    }
    async fn finish_reading(&self, ino: InodeNo, fh: u64) -> Result<(), InodeError> {
        self.inner.finish_reading(ino, fh).await
    }
    async fn flush_reader(&self, ino: InodeNo, fh: u64) -> Result<(), InodeError> {
        self.inner.flush_reader(ino, fh).await
    }
    async fn flush_writer(
        &self,
        ino: InodeNo,
        fh: u64,
        pending_upload_hook: PendingUploadHook,
    ) -> Result<Option<PendingUploadHook>, InodeError> {
        self.inner.flush_writer(ino, fh, pending_upload_hook).await
    }
    async fn release_writer(
        &self,
        ino: InodeNo,
        fh: u64,
        pending_upload_hook: PendingUploadHook,
        location: &S3Location,
    ) -> Result<(), InodeError> {
        self.inner.release_writer(ino, fh, pending_upload_hook, location).await
    }
    async fn try_reactivate_handle(&self, ino: InodeNo, fh: u64, mode: ReadWriteMode) -> Result<bool, InodeError> {
        self.inner.try_reactivate_handle(ino, fh, mode).await
    }
    async fn new_readdir_handle(&self, dir_ino: InodeNo) -> Result<u64, InodeError> {
        self.inner.new_readdir_handle(dir_ino).await
    }
    async fn readdir<'a>(
        &self,
        parent: InodeNo,
        fh: u64,
        offset: i64,
        is_readdirplus: bool,
        add: AddDirEntry<'a>,
    ) -> Result<(), InodeError> {
        self.inner.readdir(parent, fh, offset, is_readdirplus, add).await
    }
    async fn releasedir(&self, fh: u64) -> Result<(), InodeError> {
        self.inner.releasedir(fh).await
    }
    async fn rename(
        &self,
        src_parent_ino: InodeNo,
        src_name: &OsStr,
        dst_parent_ino: InodeNo,
        dst_name: &OsStr,
        allow_overwrite: bool,
    ) -> Result<(), InodeError> {
        if !self.rename_supported {
            return Err(InodeError::RenameNotSupported());
        }
        self.inner
            .rename(src_parent_ino, src_name, dst_parent_ino, dst_name, allow_overwrite)
            .await
    }
    async fn rmdir(&self, parent_ino: InodeNo, name: &OsStr) -> Result<(), InodeError> {
        self.inner.rmdir(parent_ino, name).await
    }
    async fn unlink(&self, parent_ino: InodeNo, name: &OsStr) -> Result<(), InodeError> {
        self.inner.unlink(parent_ino, name).await
    }
}

/// 95% of physical memory, mount-s3's default memory target.
fn default_memory_target() -> usize {
    // SAFETY: sysconf has no preconditions; it returns -1 on error, handled below.
    let (pages, page_size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    if pages <= 0 || page_size <= 0 {
        return mountpoint_s3_fs::memory::MINIMUM_MEM_LIMIT;
    }
    let total = pages as u128 * page_size as u128;
    ((total * 95 / 100) as usize).max(mountpoint_s3_fs::memory::MINIMUM_MEM_LIMIT)
}

/// The flags' own limits, checked before anything is set up.
fn check_args(args: &Args) -> Result<()> {
    if !args.directory.is_dir() {
        bail!("mount point {} is not a directory", args.directory.display());
    }
    if args.max_threads == 0 {
        bail!("--max-threads must be at least 1");
    }
    if args.part_size < 5 * 1024 * 1024 && !args.read_only {
        bail!("--part-size must be at least 5 MiB (the S3 multipart minimum)");
    }
    Ok(())
}

fn addressing_style(args: &Args) -> AddressingStyle {
    if args.force_path_style { AddressingStyle::Path } else { AddressingStyle::Automatic }
}

/// The personality decides rename support, exactly as upstream infers it.
fn personality(args: &Args, bucket: &Bucket) -> Result<S3Personality> {
    let mut endpoint = EndpointConfig::new(&args.region).addressing_style(addressing_style(args));
    if let Some(url) = &args.endpoint_url {
        let uri = mountpoint_s3_client::config::Uri::new_from_str(&Default::default(), url)
            .map_err(|e| anyhow!("bad --endpoint-url {url:?}: {e}"))?;
        endpoint = endpoint.endpoint(uri);
    }
    Ok(S3Personality::infer_from_bucket(bucket.as_str(), &endpoint))
}

/// The S3 client's settings: mount-s3's defaults for memory and throughput unless the flags set them.
fn client_config(args: &Args) -> Result<(ClientConfig, MemoryLimitSetting)> {
    let memory_target = match args.memory_target {
        Some(mib) => MemoryLimitSetting::User((mib as usize) * 1024 * 1024),
        None => MemoryLimitSetting::Default(default_memory_target()),
    };
    let throughput_target = match args.maximum_throughput_gbps {
        Some(gbps) => TargetThroughputSetting::User { gbps },
        None => TargetThroughputSetting::Default,
    };
    let part_config = PartConfig::with_part_size(args.part_size).validate(memory_target)?;
    let config = ClientConfig {
        region: Region::new_user_specified(args.region.clone()),
        endpoint_url: args.endpoint_url.clone(),
        addressing_style: addressing_style(args),
        dual_stack: false,
        transfer_acceleration: false,
        auth_config: Default::default(),
        requester_pays: false,
        expected_bucket_owner: None,
        throughput_target,
        bind: None,
        part_config,
        user_agent: UserAgent::new(Some(format!("s3ab-mount-s3/{}", env!("CARGO_PKG_VERSION")))),
        tls_config: None,
    };
    Ok((config, memory_target))
}

/// The S3 client and the memory pool it shares with the file system; the client checks the bucket with one
/// ListObjectsV2, so bad credentials or a missing bucket fail here.
fn connect(args: &Args, s3_path: &S3Path) -> Result<(S3CrtClient, PagedPool)> {
    let (client_config, memory_target) = client_config(args)?;
    let pool = PagedPool::config()
        .with_candidate_sizes([CandidateSize::new(client_config.part_config.read_size_bytes)])
        .with_memory_limit(memory_target.bytes())
        .build();
    let client = client_config
        .create_client(pool.clone(), Some(s3_path))
        .with_context(|| format!("cannot use bucket {:?}", args.bucket))?;
    Ok((client, pool))
}

/// What the file system allows, and how long it trusts metadata: 60 s with `--cache`, as mount-s3.
fn filesystem_config(args: &Args, personality: S3Personality) -> S3FilesystemConfig {
    let metadata_ttl = args.metadata_ttl.unwrap_or(if args.cache.is_some() {
        TimeToLive::Duration(std::time::Duration::from_secs(60))
    } else {
        TimeToLive::Minimal
    });
    S3FilesystemConfig {
        cache_config: CacheConfig::new(metadata_ttl),
        allow_delete: args.allow_delete,
        allow_overwrite: args.allow_overwrite,
        allow_rename: personality.supports_rename_object(),
        s3_personality: personality,
        read_only: args.read_only,
        ..Default::default()
    }
}

/// The disk data cache under `--cache`, in a fresh subdirectory that the returned guard removes when dropped.
fn data_cache(args: &Args) -> Result<(DataCacheConfig, Option<ManagedCacheDir>)> {
    let mut config = DataCacheConfig::default();
    let Some(parent) = &args.cache else {
        return Ok((config, None));
    };
    let managed = ManagedCacheDir::new_from_parent_with_cache_key(parent, None, true)
        .with_context(|| format!("cannot use cache directory {}", parent.display()))?;
    config.disk_cache_config = Some(DiskDataCacheConfig {
        cache_directory: managed.as_path_buf(),
        block_size: 1024 * 1024,
        limit: match args.max_cache_size {
            Some(0) => bail!("--max-cache-size must be above 0"),
            Some(mib) => CacheLimit::TotalSize { max_size: (mib as usize) * 1024 * 1024 },
            None => CacheLimit::default(),
        },
    });
    Ok((config, Some(managed)))
}

fn run(args: Args) -> Result<()> {
    check_args(&args)?;
    let _logging = init_logging(LoggingConfig {
        log_to_stdout: args.log_directory.is_none(),
        log_file: args.log_directory.as_deref().map(prepare_log_file_name),
        default_filter: args.log_filter.clone(),
    })
    .context("failed to set up logging")?;

    let bucket = Bucket::new(args.bucket.clone()).map_err(|e| anyhow!("bad bucket name {:?}: {e}", args.bucket))?;
    let prefix = Prefix::new(&args.prefix).map_err(|e| anyhow!("bad --prefix {:?}: {e}", args.prefix))?;
    let personality = personality(&args, &bucket)?;
    let s3_path = S3Path::new(bucket, prefix);

    let (client, pool) = connect(&args, &s3_path)?;
    let runtime = Runtime::new(client.event_loop_group());
    let fs_config = filesystem_config(&args, personality);
    let (data_cache_config, managed_cache_dir) = data_cache(&args)?;

    let superblock = Superblock::new(
        client.clone(),
        s3_path,
        SuperblockConfig { cache_config: fs_config.cache_config.clone(), s3_personality: personality },
    );
    let metablock = RenameGate { inner: superblock, rename_supported: personality.supports_rename_object() };
    let fuse_config = FuseSessionConfig::new(
        MountPoint::new(&args.directory)?,
        FuseOptions { read_only: args.read_only, ..Default::default() },
        args.max_threads,
    )?;
    let mut session = MountpointConfig::new(fuse_config, fs_config, data_cache_config)?
        .create_fuse_session(metablock, client, runtime, pool)
        .context("failed to mount")?;
    if let Some(managed) = managed_cache_dir {
        session.run_on_close(Box::new(move || drop(managed)));
    }
    eprintln!(
        "s3ab-mount-s3: bucket {} mounted at {} (rename {})",
        args.bucket,
        args.directory.display(),
        if personality.supports_rename_object() { "via RenameObject" } else { "refused: ENOSYS" }
    );
    session.join().context("file system session ended with an error")?;
    Ok(())
}

fn main() {
    let args = Args::parse();
    if let Err(err) = run(args) {
        eprintln!("s3ab-mount-s3: error: {err:#}");
        std::process::exit(1);
    }
}
