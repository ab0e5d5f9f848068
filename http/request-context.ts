// Per-request facts shared by every plugin: the request id and the client address.
// Kept in a WeakMap by Request so even parse errors and 404s can report the id.
import type { Server } from "bun";
import * as ipaddr from "ipaddr.js";
import { config } from "../config";

interface RequestFacts {
  id: string;
  startedAt: number;
  ip: string | null;
}

const facts = new WeakMap<Request, RequestFacts>();
const REQUEST_ID_RE = /^[\w.:-]{1,128}$/;

export function beginRequest(request: Request, server: Server<unknown> | null | undefined): RequestFacts {
  const incoming = request.headers.get("x-request-id");
  // The address is looked up when first asked for (a getpeername system call per request otherwise:
  // most requests never need it) and kept: the socket's peer is the same for the request's life.
  let ip: string | null | undefined;
  const f: RequestFacts = {
    id: incoming && REQUEST_ID_RE.test(incoming) ? incoming : `req_${Bun.randomUUIDv7().replace(/-/g, "")}`,
    startedAt: performance.now(),
    get ip() {
      if (ip === undefined) ip = clientAddress(request, server);
      return ip;
    },
  };
  facts.set(request, f);
  return f;
}

export function requestFacts(request: Request): RequestFacts {
  return facts.get(request) ?? beginRequest(request, null);
}

function normalize(ip: string): string {
  if (!ip.includes(":")) return ip; // plain IPv4 is already canonical: skip the parser on the hot path
  try {
    const parsed = ipaddr.parse(ip);
    if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      return (parsed as ipaddr.IPv6).toIPv4Address().toString();
    }
    return parsed.toString();
  } catch {
    return ip;
  }
}

function isTrustedProxy(ip: string): boolean {
  if (config.trustProxy.length === 0) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return false;
  }
  return config.trustProxy.some((entry) => {
    try {
      if (entry.includes("/")) {
        const [range, bits] = ipaddr.parseCIDR(entry);
        return addr.kind() === range.kind() && addr.match([range, bits] as any);
      }
      return ipaddr.parse(entry).toString() === addr.toString();
    } catch {
      return false;
    }
  });
}

/**
 * The caller's address: the socket peer, unless that peer is a proxy named in TRUST_PROXY,
 * in which case X-Forwarded-For is walked from the right past trusted proxies.
 * Tests that run through app.handle() have no socket; they may pass X-Test-Client-Ip only
 * where config.trustTestClientIpHeader allows it (NODE_ENV=test).
 */
export function clientAddress(request: Request, server: Server<unknown> | null | undefined): string | null {
  let peer: string | null = null;
  try {
    peer = server?.requestIP(request)?.address ?? null;
  } catch {
    peer = null;
  }
  if (peer === null && config.trustTestClientIpHeader) peer = request.headers.get("x-test-client-ip");
  if (peer === null) return null;
  peer = normalize(peer);
  if (!isTrustedProxy(peer)) return peer;
  const xff = request.headers.get("x-forwarded-for");
  if (!xff) return peer;
  const hops = xff.split(",").map((s) => normalize(s.trim())).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrustedProxy(hops[i]!)) return hops[i]!;
  }
  return hops[0] ?? peer;
}
