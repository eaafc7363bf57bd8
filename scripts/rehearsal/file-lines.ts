import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * A text file's lines, read as a stream: a log of any size, where reading it as one string stops
 * at Node's string limit (512 MB). The stream decodes UTF-8, so a character split between two
 * chunks comes out whole; `highWaterMark` is the chunk size (tests make it small).
 */
export async function* fileLines(path: string, opts: { highWaterMark?: number } = {}): AsyncGenerator<string> {
  const input = createReadStream(path, { encoding: 'utf8', ...(opts.highWaterMark ? { highWaterMark: opts.highWaterMark } : {}) });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
    input.destroy();
  }
}
