/**
 * The unit tier's guard (jest.config.js, project `unit`): a unit test is pure policy, so any
 * network connection or child process it starts is refused, and the test fails even where the
 * code under test catches the refusal. A test that needs either belongs in the integration tier.
 */
import { Socket } from 'node:net';

// The module object itself (an `import * as` would be a copy): the code under test calls through it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess: Record<string, unknown> = require('node:child_process');

const reached: string[] = [];

function refuse(what: string): never {
  const message = `a unit test may not ${what}: move the test to the integration tier (test/ outside test/unit)`;
  reached.push(message);
  throw new Error(message);
}

Socket.prototype.connect = function connect(this: Socket, ...args: unknown[]): Socket {
  const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { host?: string; port?: number; path?: string } | number | string;
  const where = typeof first === 'object' && first !== null ? first.path ?? `${first.host ?? 'localhost'}:${first.port}` : String(first);
  return refuse(`open a network connection (to ${where})`);
} as typeof Socket.prototype.connect;

const spawners = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of spawners) {
  Object.defineProperty(childProcess, name, {
    configurable: true, writable: true,
    value: (command: unknown) => refuse(`start a child process (${name} ${String(command)})`),
  });
}

afterEach(() => {
  if (!reached.length) return;
  const all = reached.splice(0);
  throw new Error(all.join('\n'));
});
