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
    // The CRT's own defaults with 8 MiB parts, except: a GET's parts written by two writer threads
    // in 64 KiB pwrites (off the CRT's delivery thread), the CRT's freed buffers kept in the
    // process, three event-loop threads per CPU, sockets read 256 KiB at a time instead of 16 KiB
    // (docs/performance.md: bench:transfer).
    default: {
      part_size: '8MiB', target_throughput_gbps: 10, max_connections: 0, memory_limit: '0', event_loop_threads: '3/cpu', checksum: 'CRC32',
      write_size: '64KiB', writers: 2, malloc: 'retain', socket_read_size: '256KiB',
    },
  },
} as const satisfies MethodDescriptor;
