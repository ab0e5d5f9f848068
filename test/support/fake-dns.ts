// A local DNS server (dns2) for the sending-domain tests: UDP and TCP on one random port of
// 127.0.0.1, answering TXT queries from records the test sets; unknown names are NXDOMAIN.
import dns2 from "dns2";

const { Packet } = dns2 as any;

export interface FakeDns {
  /** `127.0.0.1:<port>`, the DNS_SERVERS value that points the service here */
  readonly server: string;
  /** TXT records of a name, each a string or the character-strings of one record (split at 255 when longer) */
  setTxt(name: string, ...records: (string | string[])[]): void;
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

export async function startFakeDns(): Promise<FakeDns> {
  const txt = new Map<string, string[][]>();
  const failing = new Set<string>();
  const silent = new Set<string>();
  const queries: string[] = [];
  const handle = (request: any, send: (r: any) => void) => {
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
    if (!records) response.header.rcode = Packet.RCODE?.NXDOMAIN ?? 3;
    else if (q.type === Packet.TYPE.TXT) {
      for (const data of records) response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data });
    }
    send(response);
  };
  const server = (dns2 as any).createServer({ udp: true, tcp: true, handle });
  server.on("requestError", () => {});
  // one port for both: a DKIM answer is past 512 bytes, so a resolver may retry it over TCP
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    const probe = (dns2 as any).createServer({ udp: true, handle });
    await probe.listen({ udp: { port: 0, address: "127.0.0.1" } });
    port = probe.addresses().udp.port;
    await probe.close();
    try {
      await server.listen({ udp: { port, address: "127.0.0.1" }, tcp: { port, address: "127.0.0.1" } });
      break;
    } catch (err) {
      if (attempt >= 5) throw err;
    }
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
    servfail(name) {
      failing.add(name.toLowerCase());
    },
    silence(name) {
      silent.add(name.toLowerCase());
    },
    clear(name) {
      if (name === undefined) {
        txt.clear();
        failing.clear();
        silent.clear();
      } else {
        const key = name.toLowerCase();
        txt.delete(key);
        failing.delete(key);
        silent.delete(key);
      }
    },
    async stop() {
      await server.close();
    },
  };
}
