/**
 * A small authoritative DNS server on 127.0.0.1 (UDP, port 0) for verification tests: it answers
 * TXT queries with the records a test sets (NXDOMAIN for names it has none for) and can remove them.
 * Point the service at it with VERIFICATION_DNS_SERVERS=127.0.0.1:<port>.
 *
 * @example
 *   const dns = await startDnsServer();
 *   dns.setTxt('shop.example', ['rampart-verification=abc']);
 *   // … VERIFICATION_DNS_SERVERS: dns.address …
 *   dns.removeTxt('shop.example');
 *   await dns.close();
 */
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as packet from 'dns-packet';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** Queries received so far, as `TYPE name`. */
  readonly queries: string[];
  setTxt(name: string, records: string[]): void;
  removeTxt(name: string): void;
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const txt = new Map<string, string[]>();
  const queries: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (question === undefined) {
      return;
    }
    const name = question.name.toLowerCase();
    queries.push(`${question.type} ${name}`);
    const records = question.type === 'TXT' ? (txt.get(name) ?? null) : null;
    const known = txt.has(name);
    const answer = packet.encode({
      id: query.id,
      type: 'response',
      // Authoritative answer; NXDOMAIN (rcode 3) for a name with no records at all.
      flags: packet.AUTHORITATIVE_ANSWER | (known ? 0 : 3),
      questions: [question],
      answers:
        records === null
          ? []
          : records.map((data) => ({ type: 'TXT' as const, name: question.name, ttl: 0, data })),
    });
    socket.send(answer, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    queries,
    setTxt(name, records) {
      txt.set(name.toLowerCase(), records);
    },
    removeTxt(name) {
      txt.delete(name.toLowerCase());
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
