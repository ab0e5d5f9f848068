// A local DNS server (dns2) for the sending-domain and webhook tests: UDP and TCP on one random port
// of 127.0.0.1, answering TXT, A and AAAA queries from records the test sets; unknown names are NXDOMAIN.
import dns2 from "dns2";

const { Packet } = dns2 as any;

export interface FakeDns {
  /** `127.0.0.1:<port>`, the DNS_SERVERS value that points the service here */
  readonly server: string;
  /** TXT records of a name, each a string or the character-strings of one record (split at 255 when longer) */
  setTxt(name: string, ...records: (string | string[])[]): void;
  /** A and AAAA records of a name (webhook receivers; replaces earlier ones, TTL 0 like every answer) */
  setAddresses(name: string, answers: { A?: string[]; AAAA?: string[] }): void;
  /** answer SERVFAIL for this name (a broken zone) */
  servfail(name: string): void;
  /** never answer this name (our resolver times out) */
  silence(name: string): void;
  /** forget one name, or every name */
  clear(name?: string): void;
  /** names asked so far, lower-case */
  readonly queries: string[];
  stop(): Promise<void>;
}

/** Splits a long value into 255-byte character-strings, as DNS providers publish it. */
export function chunked(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < value.length; i += 255) out.push(value.slice(i, i + 255));
  return out.length ? out : [""];
}

/** Listens on 127.0.0.1:port (0: any); rejects instead of hanging when the port is taken. */
function bound(server: any, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    server.once("error", failed);
    server.once("listening", () => {
      server.off("error", failed);
      resolve();
    });
    server.listen(port, "127.0.0.1");
  });
}

export async function startFakeDns(): Promise<FakeDns> {
  const txt = new Map<string, string[][]>();
  const addresses = new Map<string, { A?: string[]; AAAA?: string[] }>();
  const failing = new Set<string>();
  const silent = new Set<string>();
  const queries: string[] = [];
  const handle = (request: any, answer: (r: any) => unknown) => {
    // the asker may be gone by the time the answer goes out (a process the test stopped, slow on a
    // loaded machine): UDP's send then fails ECONNREFUSED, an answer nobody waits for, not an error
    const send = (r: any) => void Promise.resolve(answer(r)).catch(() => {});
    const response = Packet.createResponseFromRequest(request);
    const [q] = request.questions;
    const name = String(q?.name ?? "").toLowerCase().replace(/\.$/, "");
    queries.push(name);
    if (silent.has(name)) return;
    if (failing.has(name)) {
      response.header.rcode = Packet.RCODE?.SERVFAIL ?? 2;
      return send(response);
    }
    const records = txt.get(name);
    const addr = addresses.get(name);
    // TTL 0: the resolver (c-ares caches answers for their TTL) must see each change at once
    if (!records && !addr) response.header.rcode = Packet.RCODE?.NXDOMAIN ?? 3;
    else if (q.type === Packet.TYPE.TXT) {
      for (const data of records ?? []) response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data });
    } else if (q.type === Packet.TYPE.A || q.type === Packet.TYPE.AAAA) {
      const list = (q.type === Packet.TYPE.A ? addr?.A : addr?.AAAA) ?? [];
      for (const address of list) response.answers.push({ name: q.name, type: q.type, class: Packet.CLASS.IN, ttl: 0, address });
    }
    send(response);
  };
  // one port for both: a DKIM answer is past 512 bytes, so a resolver may retry it over TCP
  let tcp: any;
  let udp: any;
  for (let attempt = 0; ; attempt++) {
    tcp = serving(new (dns2 as any).TCPServer());
    await bound(tcp, 0);
    udp = serving(new (dns2 as any).UDPServer());
    try {
      await bound(udp, tcp.address().port);
      break;
    } catch (err) {
      await new Promise((r) => tcp.close(r));
      if (attempt >= 5) throw err; // the UDP port was taken: try another
    }
  }
  const port: number = tcp.address().port;
  function serving(server: any) {
    server.on("request", handle);
    server.on("requestError", () => {});
    return server;
  }
  return {
    server: `127.0.0.1:${port}`,
    queries,
    setTxt(name, ...records) {
      const key = name.toLowerCase();
      failing.delete(key);
      silent.delete(key);
      txt.set(key, records.map((r) => (Array.isArray(r) ? r : chunked(r))));
    },
    setAddresses(name, answers) {
      const key = name.toLowerCase();
      failing.delete(key);
      silent.delete(key);
      addresses.set(key, answers);
    },
    servfail(name) {
      failing.add(name.toLowerCase());
    },
    silence(name) {
      silent.add(name.toLowerCase());
    },
    clear(name) {
      if (name === undefined) {
        txt.clear();
        addresses.clear();
        failing.clear();
        silent.clear();
      } else {
        const key = name.toLowerCase();
        txt.delete(key);
        addresses.delete(key);
        failing.delete(key);
        silent.delete(key);
      }
    },
    async stop() {
      await Promise.all([new Promise((r) => tcp.close(r)), new Promise((r) => udp.close(r))]);
    },
  };
}
