import type { Knob } from '../core/knobs';
import type { MethodDescriptor } from '../core/method';

/** The CRT's settings a matrix may tune, by name as the variants pass them to crates/s3-crt-client. */
const KNOBS: Record<string, Knob> = {
  part_size: { kind: 'size', min: '5MiB', max: '5GiB', default: '8MiB', summary: 'part size of its parallel ranged GETs and multipart PUTs', source: 'aws-c-s3 README (part_size; Mountpoint\'s 8 MiB default); S3\'s part limits, 5 MiB to 5 GiB' },
  target_throughput_gbps: {
    kind: 'number-or', keywords: ['auto'], min: 0.1, max: 3200, unit: 'Gbit/s', default: 'auto',
    summary: 'target throughput the CRT sizes its connections for (auto: the instance\'s bandwidth, else 10)',
    source: 'Mountpoint\'s doc/CONFIGURATION.md (--maximum-throughput-gbps); aws-c-s3 README (throughput_target_gbps)',
    bound: 'the client refuses more than 3200 Gbit/s; 0.1 Gbit/s the least a grid may set',
  },
};

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
    // The CRT as AWS ships it, through mountpoint-s3-client as Mountpoint configures it:
    // - part_size 8 MiB: Mountpoint's default part size (its --read-part-size / --write-part-size).
    // - target_throughput_gbps auto: as Mountpoint's --maximum-throughput-gbps default ("the
    //   available network bandwidth when running on an EC2 instance or 10 Gbps elsewhere",
    //   Mountpoint's doc/CONFIGURATION.md): the instance type's bandwidth from
    //   assets/instance-network.json (its "up to" figure, the one Mountpoint's own table holds),
    //   10 Gbps off EC2 or for a type the file does not list.
    // - memory_limit default: none given, so aws-c-s3 sets its own from the target throughput
    //   (aws-c-s3 README, "Memory Limit": "When nothing is set, the client sets a default memory
    //   limit based on the target throughput").
    // - event_loop_threads 0: the CRT's default event-loop group, one thread per CPU.
    // - socket_read_size default: aws-c-io's 16 KiB channel messages, untouched.
    // - write_size part: each part the CRT delivers written at its offset in one pwrite.
    // - malloc system: glibc's own malloc settings, no tunables.
    // - checksum CRC32C: Mountpoint's default upload checksum (its --upload-checksums crc32c).
    default: {
      part_size: '8MiB', target_throughput_gbps: 'auto', memory_limit: 'default', event_loop_threads: 0, checksum: 'CRC32C',
      write_size: 'part', malloc: 'system', socket_read_size: 'default',
    },
    // Tuned for a 2-core VM that hands its free memory back to its host, where the first touch of
    // such a page faults on the host (docs/performance.md: bench:transfer). None was measured on
    // EC2, where that host fault does not happen; each knob and why:
    // - write_size 32 KiB: the kernel backs large writes with large page-cache folios, which are
    //   host-faulted on first touch; small pwrites fault them in a little at a time.
    // - memory_limit 256 MiB: the CRT's read-ahead bounded at its 25 connections' 8 MiB parts;
    //   the default lets it buffer far ahead of the file, into fresh (host-faulted) memory.
    // - malloc retain: freed buffers stay in the process (GLIBC_RETAIN), so the next request
    //   reuses memory already faulted in instead of fresh pages.
    // - event_loop_threads 3/cpu: more threads than cores keep the client's share of two cores
    //   it shares with the server and other work.
    // - socket_read_size 256 KiB: fewer epoll wake-ups per GiB than 16 KiB reads.
    // - target_throughput_gbps 10: fixed, the 10 Gbps default off EC2, whatever the host.
    tuned: {
      part_size: '8MiB', target_throughput_gbps: 10, memory_limit: '256MiB', event_loop_threads: '3/cpu', checksum: 'CRC32C',
      write_size: '32KiB', malloc: 'retain', socket_read_size: '256KiB',
    },
  },
  knobs: KNOBS,
} as const satisfies MethodDescriptor;
