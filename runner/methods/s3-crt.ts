import type { MethodDescriptor } from '../core/method';

/**
 * The S3 API through the AWS Common Runtime (aws-c-s3: the client inside Mountpoint, boto3's CRT
 * transfer and the Java CRT transfer manager), called from a small Rust client
 * (crates/s3-crt-client, through mountpoint-s3-client, the binding Mountpoint uses), one long-lived
 * process per session. The CRT splits large GETs and PUTs into parallel parts itself; the client
 * writes each part's buffer into the file as the CRT delivers it, without a copy.
 */
export const s3CrtDescriptor = {
  name: 's3-crt',
  kind: 'object',
  userAgent: /^s3ab-s3-crt\//, // the client's name, before mountpoint-s3-client's and aws-c-s3's own
  summary: 'AWS Common Runtime S3 client (aws-c-s3, from Rust): its own parallel ranged GETs and multipart upload',
  offers: ['objects-in-bucket'],
  variants: {
    // The CRT's own defaults with 8 MiB parts, except (docs/performance.md: bench:transfer): a GET's
    // parts written in 32 KiB pwrites (the kernel backs large writes with large page-cache folios,
    // which on a VM that returns free memory to its host are host-faulted on first touch), the
    // CRT's read-ahead bounded at 256 MiB (its 25 connections' 8 MiB parts; the 2 GiB default lets
    // it buffer far ahead of the file), freed buffers kept in the process, three event-loop threads
    // per CPU, sockets read 256 KiB at a time instead of 16 KiB, and CRC32C upload checksums (the
    // one x86 and Arm compute in hardware; Mountpoint's choice too).
    default: {
      part_size: '8MiB', target_throughput_gbps: 10, memory_limit: '256MiB', event_loop_threads: '3/cpu', checksum: 'CRC32C',
      write_size: '32KiB', malloc: 'retain', socket_read_size: '256KiB',
    },
  },
} as const satisfies MethodDescriptor;
