import { arriveAndWait, FileMarkers } from '../../runner/core/barrier';

/**
 * One client of the barrier test (test/runner/fleet-barrier.test.ts), a process of its own:
 * `node barrier-client.js DIR CLIENTS CLIENT TIMEOUT_MS`. Prints {start, wokeAt} or {error}.
 */
async function main(): Promise<void> {
  const [dir, clients, client, timeoutMs] = process.argv.slice(2);
  try {
    const start = await arriveAndWait(new FileMarkers(dir), {
      clients: Number(clients), client: Number(client), round: 'step1-cold', leadMs: 300, pollMs: 20, timeoutMs: Number(timeoutMs),
    });
    process.stdout.write(`${JSON.stringify({ start, wokeAt: Date.now() })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ error: (err as { problem?: string }).problem ?? String(err) })}\n`);
  }
}

void main();
