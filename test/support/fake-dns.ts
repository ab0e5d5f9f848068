// A local DNS server (dns2) the test controls: names map to A/AAAA answers with TTL 0, so a test
// can change an answer between two lookups (DNS rebinding). Unknown names answer NXDOMAIN.
import dns2 from "dns2";

const { Packet } = dns2 as any;

export interface FakeDns {
  /** "127.0.0.1:<port>", for config.dnsServers */
  server: string;
  set(name: string, answers: { A?: string[]; AAAA?: string[] }): void;
  close(): Promise<void>;
}

export async function startFakeDns(): Promise<FakeDns> {
  const table = new Map<string, { A?: string[]; AAAA?: string[] }>();
  const server = (dns2 as any).createServer({
    udp: true,
    handle(request: any, send: (r: any) => void) {
      const response = Packet.createResponseFromRequest(request);
      const q = request.questions[0];
      const entry = table.get(String(q.name).toLowerCase());
      if (!entry) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (q.type === Packet.TYPE.A) for (const address of entry.A ?? []) response.answers.push({ name: q.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 0, address });
      else if (q.type === Packet.TYPE.AAAA) for (const address of entry.AAAA ?? []) response.answers.push({ name: q.name, type: Packet.TYPE.AAAA, class: Packet.CLASS.IN, ttl: 0, address });
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = server.addresses().udp.port;
  return {
    server: `127.0.0.1:${port}`,
    set: (name, answers) => table.set(name.toLowerCase(), answers),
    close: () => server.close(),
  };
}
