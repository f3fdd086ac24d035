/**
 * A TCP proxy that a test puts between the service and PostgreSQL to stage network faults on the
 * path only this test's processes use (the machine's PostgreSQL is shared with other test files):
 *
 * - `cut()`: every open connection is reset at once (what a server restart or a dropped route
 *   looks like to the client); new connections are accepted as before.
 * - `freeze()`: open connections stay up but no byte moves either way, and new connections are
 *   accepted but never forwarded (a partition: the client hears nothing, not even a reset).
 *   `thaw()` lets everything through again, what was held included.
 * - `refuse()`: open connections are reset and new ones are closed as soon as they arrive (the
 *   server is down); `accept()` ends that.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on, on 127.0.0.1. */
  readonly port: number;
  /** Connections open now (pairs of client and upstream sockets). */
  connections(): number;
  /** Connections that arrived since the proxy started, refused ones included. */
  arrived(): number;
  cut(): void;
  freeze(): void;
  thaw(): void;
  refuse(): void;
  accept(): void;
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | null;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let frozen = false;
  let refusing = false;
  let arrived = 0;

  function forward(pair: Pair): void {
    const upstream = tcpConnect(target.port, target.host);
    pair.upstream = upstream;
    upstream.setNoDelay(true);
    upstream.on('error', () => destroy(pair));
    upstream.on('close', () => destroy(pair));
    if (!frozen) {
      resume(pair);
    }
  }

  function pause(pair: Pair): void {
    pair.client.unpipe();
    pair.upstream?.unpipe();
    pair.client.pause();
    pair.upstream?.pause();
  }

  function resume(pair: Pair): void {
    if (pair.upstream !== null) {
      pair.client.pipe(pair.upstream);
      pair.upstream.pipe(pair.client);
    }
  }

  function destroy(pair: Pair): void {
    if (!pairs.delete(pair)) {
      return;
    }
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
  }

  const server: Server = createServer((client) => {
    arrived += 1;
    client.setNoDelay(true);
    client.on('error', () => {});
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: null };
    pairs.add(pair);
    client.on('close', () => destroy(pair));
    if (frozen) {
      // Accepted but not forwarded until thawed: the client's connect succeeds, then silence.
      client.pause();
      return;
    }
    forward(pair);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('tcp proxy: no port');
  }

  return {
    port: address.port,
    connections: () => pairs.size,
    arrived: () => arrived,
    cut() {
      for (const pair of [...pairs]) {
        destroy(pair);
      }
    },
    freeze() {
      frozen = true;
      for (const pair of pairs) {
        pause(pair);
      }
    },
    thaw() {
      frozen = false;
      for (const pair of [...pairs]) {
        if (pair.upstream === null) {
          forward(pair);
        } else {
          resume(pair);
        }
      }
    },
    refuse() {
      refusing = true;
      for (const pair of [...pairs]) {
        destroy(pair);
      }
    },
    accept() {
      refusing = false;
    },
    async close() {
      refusing = true;
      for (const pair of [...pairs]) {
        destroy(pair);
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
