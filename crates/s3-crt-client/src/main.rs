//! The `s3-crt` method's client: the S3 API through the AWS Common Runtime's S3 client (aws-c-s3),
//! called from Rust through `mountpoint-s3-client` (the binding Mountpoint itself uses).
//!
//! One long-lived process per session, driven by runner/methods/s3-crt.impl.ts over a line
//! protocol: one JSON object per line on stdin, one per line on stdout.
//!
//! ```text
//! request   {"id": 1, "op": "put", "key": "a/b", "path": "/local/file", "size": 123}
//!           {"id": 2, "op": "get", "key": "a/b", "path": "/local/out"}
//!           {"id": 3, "op": "list", "key": "prefix/"}                       (every page)
//!           {"id": 4, "op": "head", "key": "a/b"}
//!           {"id": 5, "op": "delete", "key": "a/b"}
//! response  {"id": 1, "ok": true, "latency_ns": 123456, "bytes": 123}
//!           {"id": 3, "ok": true, "latency_ns": ..., "bytes": 0, "entries": [["rel/key", 42], ...]}
//!           {"id": 4, "ok": false, "latency_ns": 0, "bytes": 0, "error": "NotFound: ... (HTTP 404, HeadObject)"}
//! ```
//!
//! Before any request the process prints `{"ready": true, "version": ..., "config": {...}}`.
//! `latency_ns` is measured around the request only (a GET: from the request to the file written
//! and closed; a PUT: from opening the file to the upload completed; a list: every page, parsed),
//! so process start, this protocol and the JSON do not count. Requests run concurrently, one
//! thread each, on one shared client.
//!
//! Why Rust and not PyPI's awscrt (the Python client this one replaced): awscrt's binding copies
//! every part the CRT delivers into a Python bytes object and the file is written from Python, so
//! a GET cost 0.42 user CPU-s per GiB against s5cmd's 0.09 and sat at 0.80–0.94× s5cmd
//! (docs/performance.md). Here the CRT's part buffers are written to the file
//! as they are (mountpoint-s3-client hands them over without a copy), in `--write-size` pwrites at
//! each part's offset.
//!
//! Credentials: the CRT's default chain (environment, profile, IMDS...), never argv.

use std::fs::File;
use std::io::{BufRead, Read, Write};
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::Parser;
use futures::StreamExt;
use futures::executor::block_on;
use mountpoint_s3_client::config::{AddressingStyle, EndpointConfig, S3ClientConfig, Uri};
use mountpoint_s3_client::error::ObjectClientError;
use mountpoint_s3_client::error_metadata::ProvideErrorMetadata;
use mountpoint_s3_client::checksums::{crc32, crc32c, sha256};
use mountpoint_s3_client::types::{ChecksumAlgorithm, GetObjectParams, HeadObjectParams, PutObjectParams, PutObjectSingleParams, PutObjectTrailingChecksums, UploadChecksum};
use mountpoint_s3_client::user_agent::UserAgent;
use mountpoint_s3_client::{ObjectClient, PutObjectRequest, S3CrtClient};
use serde_json::{Value, json};

const VERSION: &str = concat!(
    "s3ab-s3-crt ", env!("CARGO_PKG_VERSION"),
    " (mountpoint-s3-client ", env!("MOUNTPOINT_S3_CLIENT_VERSION"),
    ", mountpoint-s3-crt-sys ", env!("MOUNTPOINT_S3_CRT_SYS_VERSION"), ": aws-c-s3)"
);

#[derive(Parser, Debug)]
#[command(about = "The s3-crt method's client (aws-c-s3): JSON requests on stdin, replies on stdout")]
struct Args {
    /// Print the version as JSON and exit (the runner's probe)
    #[arg(long)]
    version: bool,
    /// Endpoint URL (http://127.0.0.1:PORT); empty: AWS's regional endpoint
    #[arg(long, default_value = "")]
    endpoint: String,
    #[arg(long, default_value = "us-east-1")]
    region: String,
    #[arg(long, default_value = "")]
    bucket: String,
    /// Path-style addressing (http://host/bucket/key)
    #[arg(long)]
    path_style: bool,
    /// Bytes per part (multipart upload, ranged GET)
    #[arg(long, default_value_t = 8 * 1024 * 1024)]
    part_size: usize,
    /// The CRT's throughput target: sets its connection count
    #[arg(long, default_value_t = 10.0)]
    target_gbps: f64,
    /// Bytes the CRT may buffer (0: its default)
    #[arg(long, default_value_t = 0)]
    memory_limit: u64,
    /// Network event-loop threads (0: the CRT's default, one per CPU)
    #[arg(long, default_value_t = 0)]
    event_loop_threads: u16,
    /// Bytes per pwrite of a GET's body into its file
    #[arg(long, default_value_t = 32 * 1024)]
    write_size: usize,
    /// Bytes per socket read and channel message (aws-c-io's g_aws_channel_max_fragment_size; 0: the CRT's 16 KiB)
    #[arg(long, default_value_t = 0)]
    socket_read_size: usize,
    /// Upload checksum (per-part trailers, composite object checksum)
    #[arg(long, default_value = "CRC32C", value_parser = ["CRC32C", "CRC32", "SHA256", "none"])]
    checksum: String,
}

unsafe extern "C" {
    /// aws-c-io's channel.h: the most a channel reads or writes in one message (16 KiB by default).
    /// Each connection's socket handler takes it when the connection is made, so it is set before
    /// the client exists. At 16 KiB a GET's body arrives in 16 KiB reads, each after an epoll
    /// wake-up (docs/performance.md: strace -c against s5cmd's 32 KiB reads).
    static mut g_aws_channel_max_fragment_size: usize;
}

struct Client {
    s3: S3CrtClient,
    args: Args,
    endpoint: String,
    out: Mutex<std::io::Stdout>,
}

/// A failed request: the text the runner shows.
type Failure = String;

impl Client {
    fn new(args: Args) -> Result<Self, Failure> {
        if args.socket_read_size > 0 {
            // Safety: written once, before any channel (and so any reader) exists.
            unsafe { g_aws_channel_max_fragment_size = args.socket_read_size };
        }
        let style = if args.path_style { AddressingStyle::Path } else { AddressingStyle::Automatic };
        let mut endpoint = EndpointConfig::new(&args.region).addressing_style(style);
        let shown = if args.endpoint.is_empty() {
            format!("https://s3.{}.amazonaws.com", args.region)
        } else {
            if !(args.endpoint.starts_with("http://") || args.endpoint.starts_with("https://")) {
                return Err(format!("endpoint {:?} is not an http(s) URL", args.endpoint));
            }
            let uri = Uri::new_from_str(&Default::default(), &args.endpoint).map_err(|e| format!("bad endpoint {:?}: {e}", args.endpoint))?;
            endpoint = endpoint.endpoint(uri);
            args.endpoint.clone()
        };
        let mut config = S3ClientConfig::new()
            .endpoint_config(endpoint)
            .part_size(args.part_size)
            .throughput_target_gbps(args.target_gbps)
            .user_agent(UserAgent::new(Some(format!("s3ab-s3-crt/{}", env!("CARGO_PKG_VERSION")))));
        if args.memory_limit > 0 {
            config = config.memory_limit_in_bytes(args.memory_limit);
        }
        if args.event_loop_threads > 0 {
            config = config.event_loop_threads(args.event_loop_threads);
        }
        let s3 = S3CrtClient::new(config).map_err(|e| format!("client setup: {}", chain(&e)))?;
        Ok(Self { s3, args, endpoint: shown, out: Mutex::new(std::io::stdout()) })
    }

    fn config(&self) -> Value {
        let a = &self.args;
        let threads = if a.event_loop_threads > 0 { a.event_loop_threads as usize } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
        // Safety: read after the client set it (or left it), no writer remains.
        let socket_read_size = unsafe { g_aws_channel_max_fragment_size };
        json!({
            "endpoint": self.endpoint, "path_style": a.path_style, "region": a.region, "part_size": a.part_size,
            "target_gbps": a.target_gbps, "memory_limit": a.memory_limit, "event_loop_threads": threads,
            "checksum": a.checksum, "write_size": a.write_size, "socket_read_size": socket_read_size,
            "large_blocks": large_blocks(),
        })
    }

    fn reply(&self, value: Value) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    }

    fn serve(&self, req: Value) {
        let id = req.get("id").cloned().unwrap_or(Value::Null);
        let op = req.get("op").and_then(Value::as_str).unwrap_or("").to_string();
        let reply = match self.handle(&op, &req) {
            Ok(mut ok) => {
                ok["id"] = id;
                ok["ok"] = json!(true);
                ok
            }
            Err(error) => json!({ "id": id, "ok": false, "latency_ns": 0, "bytes": 0, "error": error }),
        };
        self.reply(reply);
    }

    fn handle(&self, op: &str, req: &Value) -> Result<Value, Failure> {
        let key = req.get("key").and_then(Value::as_str).unwrap_or("");
        let path = || req.get("path").and_then(Value::as_str).ok_or_else(|| format!("request {op} has no path"));
        let bucket = self.args.bucket.as_str();
        match op {
            "put" => self.put(key, path()?),
            "get" => self.get(key, path()?),
            "head" => {
                let t0 = Instant::now();
                let head = block_on(self.s3.head_object(bucket, key, &HeadObjectParams::new())).map_err(|e| self.failure(&e, "HeadObject"))?;
                Ok(json!({ "latency_ns": nanos(t0), "bytes": head.size }))
            }
            "delete" => {
                let t0 = Instant::now();
                block_on(self.s3.delete_object(bucket, key)).map_err(|e| self.failure(&e, "DeleteObject"))?;
                Ok(json!({ "latency_ns": nanos(t0), "bytes": 0 }))
            }
            "list" => {
                // A listing's latency covers its pages and their parsing (an SDK parses inside its call too).
                let t0 = Instant::now();
                let (mut entries, mut token) = (Vec::new(), None::<String>);
                loop {
                    let page = block_on(self.s3.list_objects(bucket, token.as_deref(), "", 1000, key)).map_err(|e| self.failure(&e, "ListObjectsV2"))?;
                    for o in page.objects {
                        let rel = o.key.strip_prefix(key).unwrap_or(&o.key).to_string();
                        entries.push(json!([rel, o.size]));
                    }
                    token = page.next_continuation_token;
                    if token.is_none() {
                        break;
                    }
                }
                Ok(json!({ "latency_ns": nanos(t0), "bytes": 0, "entries": entries }))
            }
            _ => Err(format!("unknown op {op:?}")),
        }
    }

    /// A PUT from `path`. Up to one part (the multipart threshold, as boto3's and the AWS CLI's
    /// CRT transfers have it): one PutObject of the file's bytes with their checksum. Above: read in
    /// part-size pieces into the CRT's multipart upload, each part with a trailing checksum.
    fn put(&self, key: &str, path: &str) -> Result<Value, Failure> {
        let t0 = Instant::now();
        let mut file = File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
        let size = file.metadata().map_err(|e| format!("cannot stat {path}: {e}"))?.len();
        if size <= self.args.part_size as u64 {
            let mut body = Vec::with_capacity(size as usize);
            file.read_to_end(&mut body).map_err(|e| format!("cannot read {path}: {e}"))?;
            let checksum = match self.args.checksum.as_str() {
                "CRC32C" => Some(UploadChecksum::Crc32c(crc32c::checksum(&body))),
                "CRC32" => Some(UploadChecksum::Crc32(crc32::checksum(&body))),
                "SHA256" => Some(UploadChecksum::Sha256(sha256::checksum(&body).map_err(|e| format!("SHA-256 of {path}: {e}"))?)),
                _ => None,
            };
            let sent = body.len() as u64;
            let params = PutObjectSingleParams::new().checksum(checksum);
            block_on(self.s3.put_object_single(&self.args.bucket, key, &params, body)).map_err(|e| self.failure(&e, "PutObject"))?;
            return Ok(json!({ "latency_ns": nanos(t0), "bytes": sent }));
        }
        let checksums = match self.args.checksum.as_str() {
            "CRC32C" => PutObjectTrailingChecksums::Composite(ChecksumAlgorithm::Crc32c),
            "CRC32" => PutObjectTrailingChecksums::Composite(ChecksumAlgorithm::Crc32),
            "SHA256" => PutObjectTrailingChecksums::Composite(ChecksumAlgorithm::Sha256),
            _ => PutObjectTrailingChecksums::Disabled,
        };
        let params = PutObjectParams::new().trailing_checksums(checksums);
        block_on(async {
            let mut upload = self.s3.put_object(&self.args.bucket, key, &params).await.map_err(|e| self.failure(&e, "PutObject"))?;
            let mut buffer = vec![0u8; self.args.part_size];
            let mut sent = 0u64;
            loop {
                let n = read_full(&mut file, &mut buffer).map_err(|e| format!("cannot read {path}: {e}"))?;
                if n == 0 {
                    break;
                }
                upload.write(&buffer[..n]).await.map_err(|e| self.failure(&e, "PutObject"))?;
                sent += n as u64;
            }
            upload.complete().await.map_err(|e| self.failure(&e, "PutObject"))?;
            Ok(json!({ "latency_ns": nanos(t0), "bytes": sent }))
        })
    }

    /// A GET into `path`: the CRT's parallel ranged GETs; each part, as the CRT delivers it (in
    /// order, its buffer handed over without a copy), written at its offset in `--write-size`
    /// pwrites while the CRT goes on receiving the next ones. The latency includes closing the file.
    fn get(&self, key: &str, path: &str) -> Result<Value, Failure> {
        let t0 = Instant::now();
        let file = File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?;
        let piece = self.args.write_size.max(4096);
        let size = block_on(async {
            let mut parts = self.s3.get_object(&self.args.bucket, key, &GetObjectParams::new()).await.map_err(|e| self.failure(&e, "GetObject"))?;
            let mut received = 0u64;
            while let Some(part) = parts.next().await {
                let part = part.map_err(|e| self.failure(&e, "GetObject"))?;
                for (i, chunk) in part.data.chunks(piece).enumerate() {
                    file.write_all_at(chunk, part.offset + (i * piece) as u64).map_err(|e| format!("cannot write {path}: {e}"))?;
                }
                received += part.data.len() as u64;
            }
            Ok::<u64, Failure>(received)
        })?;
        drop(file);
        Ok(json!({ "latency_ns": nanos(t0), "bytes": size }))
    }

    /// The runner's text for a failed request: `Code: message (HTTP status, Operation)` for an
    /// answer from the server, else the client's error chain and where it tried. The service
    /// errors of these operations are all "not found" kinds (no such key or bucket); a HEAD's
    /// carries no status of its own, having no body.
    fn failure<S, C>(&self, err: &ObjectClientError<S, C>, operation: &str) -> Failure
    where
        S: std::error::Error + Send + Sync + 'static,
        C: std::error::Error + Send + Sync + 'static,
        ObjectClientError<S, C>: ProvideErrorMetadata,
    {
        let mut meta = err.meta();
        if let ObjectClientError::ServiceError(service) = err {
            meta.http_code = meta.http_code.or(Some(404));
            meta.error_message = meta.error_message.or_else(|| Some(service.to_string()));
        }
        match meta.http_code {
            Some(status) if status >= 300 => {
                let (fallback_code, fallback_message) = match status {
                    403 => ("Forbidden", "access denied: wrong credentials, or no permission for this key"),
                    404 => ("NotFound", "no such key (or bucket)"),
                    301 => ("PermanentRedirect", "the bucket is in another region"),
                    _ => ("", ""),
                };
                let code = meta.error_code.clone().unwrap_or_else(|| if fallback_code.is_empty() { format!("HTTP{status}") } else { fallback_code.to_string() });
                let message = meta.error_message.clone().unwrap_or_else(|| if fallback_message.is_empty() { chain(err) } else { fallback_message.to_string() });
                format!("{code}: {message} (HTTP {status}, {operation})")
            }
            _ => format!("{} ({operation}) — endpoint {}", chain(err), self.endpoint),
        }
    }
}

/// An error and its sources, as one line.
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

fn nanos(t0: Instant) -> u64 {
    t0.elapsed().as_nanos() as u64
}

/// Fills `buf` from `file` (fewer bytes only at its end).
fn read_full(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Where glibc's malloc puts a 64 MiB block: 'heap' when the runner's GLIBC_TUNABLES took effect
/// (mmap_max=0: freed blocks stay in the process for the next request), 'mmap' with glibc's
/// defaults, 'unknown' without glibc's mallinfo2.
fn large_blocks() -> &'static str {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Safety: plain libc calls; the block is never touched, so no page becomes resident.
        unsafe {
            let before = libc::mallinfo2().hblks;
            // black_box: an unused malloc/free pair is otherwise optimized away.
            let block = std::hint::black_box(libc::malloc(64 * 1024 * 1024));
            let mapped = libc::mallinfo2().hblks > before;
            libc::free(block);
            if mapped { "mmap" } else { "heap" }
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        "unknown"
    }
}

fn main() {
    let args = Args::parse();
    if args.version {
        println!("{}", json!({ "version": VERSION }));
        return;
    }
    let client = match Client::new(args) {
        Ok(c) => Arc::new(c),
        Err(error) => {
            println!("{}", json!({ "ready": false, "error": error }));
            std::process::exit(2);
        }
    };
    client.reply(json!({ "ready": true, "version": VERSION, "config": client.config() }));
    let mut threads = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(req) => {
                let c = Arc::clone(&client);
                threads.retain(|t: &std::thread::JoinHandle<()>| !t.is_finished());
                threads.push(std::thread::spawn(move || c.serve(req)));
            }
            Err(e) => client.reply(json!({ "id": null, "ok": false, "error": format!("bad request line: {e}") })),
        }
    }
    // stdin closed: finish what is in flight, then exit.
    for t in threads {
        let _ = t.join();
    }
}
