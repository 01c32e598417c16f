// A DNS server for tests (dns2, UDP on 127.0.0.1): answers A and AAAA from a map the test
// changes at will, so webhook targets can resolve to chosen addresses and change their answer
// (re-validation, rebinding). Unknown names are NXDOMAIN; a known name without an address of
// the asked family answers NOERROR with no record.
import dns2 from 'dns2';
import { isIP } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, as WEBHOOK_DNS_SERVERS and createResolver's `servers` take it. */
  address: string;
  /** The addresses (IPv4 and IPv6 mixed) `name` resolves to from now on; ttl in seconds (default 60). */
  set(name: string, addresses: string[], ttl?: number): void;
  /** Names asked, in order (lower case, without the trailing dot). */
  queries: { name: string; type: 'A' | 'AAAA' | 'other' }[];
  close(): Promise<void>;
}

const NXDOMAIN = 3;
const normalise = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * @param file a JSON file `{ "<name>": { "addresses": [...], "ttl": 1 } }` read at every query, so
 * that tests in other processes (jest workers) change answers of the server their global setup
 * started (setDnsAnswer below); without it, `set` changes them in this process.
 */
export async function startDnsServer(file?: string): Promise<TestDnsServer> {
  const records = new Map<string, { addresses: string[]; ttl: number }>();
  const lookup = (name: string) => {
    if (!file) return records.get(name);
    try {
      const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { addresses: string[]; ttl: number }>;
      return all[name];
    } catch {
      return undefined;
    }
  };
  const queries: TestDnsServer['queries'] = [];
  const { Packet } = dns2;

  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (!question) return void send(response);
      const name = normalise(question.name);
      const type = question.type === Packet.TYPE.A ? 'A' : question.type === Packet.TYPE.AAAA ? 'AAAA' : 'other';
      queries.push({ name, type });
      const entry = lookup(name);
      if (!entry) response.header.rcode = NXDOMAIN;
      else if (type !== 'other') {
        for (const address of entry.addresses.filter((a) => isIP(a) === (type === 'A' ? 4 : 6))) {
          response.answers.push({ name: question.name, type: question.type, class: Packet.CLASS.IN, ttl: entry.ttl, address } as dns2.Packet.Resource);
        }
      }
      send(response).catch(() => undefined);
    },
  });
  server.on('requestError', () => undefined);
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });

  return {
    address: `127.0.0.1:${addresses.udp!.port}`,
    set: (name, list, ttl = 60) => {
      records.set(normalise(name), { addresses: [...list], ttl });
    },
    queries,
    close: () => server.close(),
  };
}

/** Sets an answer of a file-backed server (startDnsServer(file)); other names keep theirs. */
export function setDnsAnswer(file: string, name: string, addresses: string[], ttl = 1): void {
  let all: Record<string, { addresses: string[]; ttl: number }> = {};
  try {
    all = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // No answers yet.
  }
  all[normalise(name)] = { addresses, ttl };
  writeFileSync(file, JSON.stringify(all));
}
