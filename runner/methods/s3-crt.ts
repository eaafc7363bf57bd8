import type { MethodDescriptor } from '../core/method';

/**
 * The S3 API through the AWS Common Runtime (aws-c-s3: the client inside Mountpoint, boto3's CRT
 * transfer and the Java CRT transfer manager), from PyPI's awscrt. One long-lived client process
 * per session (runner/methods/kit/s3-crt-client.py); the CRT splits large GETs and PUTs into parallel
 * parts itself and reads and writes the files in native code.
 */
export const s3CrtDescriptor = {
  name: 's3-crt',
  kind: 'object',
  userAgent: /^CRTS3NativeClient\//, // aws-c-s3's own User-Agent (Mountpoint's client adds its name before it)
  summary: 'AWS Common Runtime S3 client (aws-c-s3 via awscrt): its own parallel ranged GETs and multipart upload',
  offers: ['objects-in-bucket'],
  variants: {
    // The CRT's own defaults with 8 MiB parts, except (docs/performance.md: bench:transfer): a GET's
    // parts written by one writer thread in 32 KiB pwrites (the kernel backs large writes with large
    // page-cache folios, which on a VM that returns free memory to its host are host-faulted on
    // first touch; two writers only queue on the file's lock), the CRT's read-ahead bounded at
    // 256 MiB (its 25 connections' 8 MiB parts; the 2 GiB default lets it buffer far ahead of the
    // file), freed buffers kept in the process, three event-loop threads per CPU, sockets read
    // 256 KiB at a time instead of 16 KiB.
    default: {
      part_size: '8MiB', target_throughput_gbps: 10, max_connections: 0, memory_limit: '256MiB', event_loop_threads: '3/cpu', checksum: 'CRC32',
      write_size: '32KiB', writers: 1, malloc: 'retain', socket_read_size: '256KiB',
    },
  },
} as const satisfies MethodDescriptor;
