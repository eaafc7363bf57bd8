import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/** A TCP relay to a server that can be frozen: it then accepts connections and moves no byte, like a hung endpoint. */
export function freezableRelay(port: number): Promise<{ url: string; freeze(): void; close(): void }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    sockets.add(inbound);
    inbound.on('close', () => sockets.delete(inbound));
    inbound.on('error', () => {});
    if (frozen) return;
    const outbound = connect(port, '127.0.0.1');
    sockets.add(outbound);
    outbound.on('error', () => inbound.destroy());
    outbound.on('close', () => sockets.delete(outbound));
    inbound.on('data', (b) => { if (!frozen) outbound.write(b); });
    outbound.on('data', (b) => { if (!frozen) inbound.write(b); });
    inbound.on('end', () => { if (!frozen) outbound.end(); });
    outbound.on('end', () => { if (!frozen) inbound.end(); });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => { frozen = true; },
    close: () => { for (const s of sockets) s.destroy(); server.close(); },
  })));
}
