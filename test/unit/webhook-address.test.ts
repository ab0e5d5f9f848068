// Which receivers a webhook may use (SSRF): URL rules and the address ranges refused by ipaddr.js,
// with and without WEBHOOK_ALLOW_PRIVATE.
import { describe, expect, test } from "bun:test";
import { checkAddress, ipLiteralOf, parseWebhookUrl } from "../../domain/webhooks/address";

describe("checkAddress", () => {
  const refused: [string, string][] = [
    ["127.0.0.1", "loopback"],
    ["10.0.0.1", "private"],
    ["192.168.1.5", "private"],
    ["172.16.0.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"], // IPv4-mapped IPv6 is judged as its IPv4 address
    ["::ffff:10.1.2.3", "private"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["fe80::1", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["64:ff9b::7f00:1", "rfc6052"], // NAT64 form of 127.0.0.1
    ["2002:7f00:1::", "6to4"],
    ["255.255.255.255", "broadcast"],
  ];
  for (const [ip, range] of refused) {
    test(`${ip} is refused (${range})`, () => {
      expect(checkAddress(ip, false)).toEqual({ ok: false, range });
    });
  }

  test("public unicast addresses are allowed", () => {
    expect(checkAddress("93.184.216.34", false)).toEqual({ ok: true, address: "93.184.216.34", family: 4 });
    expect(checkAddress("2606:4700::1111", false)).toEqual({ ok: true, address: "2606:4700::1111", family: 6 });
    expect(checkAddress("::ffff:8.8.8.8", false)).toEqual({ ok: true, address: "8.8.8.8", family: 4 });
  });

  test("WEBHOOK_ALLOW_PRIVATE allows loopback and private ranges, never unspecified, multicast or broadcast", () => {
    expect(checkAddress("127.0.0.1", true).ok).toBe(true);
    expect(checkAddress("10.0.0.1", true).ok).toBe(true);
    expect(checkAddress("::1", true)).toEqual({ ok: true, address: "::1", family: 6 });
    expect(checkAddress("0.0.0.0", true).ok).toBe(false);
    expect(checkAddress("224.0.0.1", true).ok).toBe(false);
    expect(checkAddress("255.255.255.255", true).ok).toBe(false);
  });
});

describe("parseWebhookUrl", () => {
  test("http(s) with a host and without credentials", () => {
    expect(parseWebhookUrl("https://example.com/hook?x=1").ok).toBe(true);
    expect(parseWebhookUrl("http://example.com:8080/").ok).toBe(true);
    expect(parseWebhookUrl("ftp://example.com/")).toEqual({ ok: false, message: "must use http or https" });
    expect(parseWebhookUrl("https://user:pw@example.com/")).toEqual({ ok: false, message: "must not carry credentials (user:password@)" });
    expect(parseWebhookUrl("https://user@example.com/").ok).toBe(false);
    expect(parseWebhookUrl("example.com/hook").ok).toBe(false);
    expect(parseWebhookUrl(`https://example.com/${"a".repeat(2048)}`).ok).toBe(false);
  });

  test("IP literals in any spelling are normalised before the range check", () => {
    const host = (u: string) => {
      const p = parseWebhookUrl(u);
      return p.ok ? ipLiteralOf(p.url.hostname) : null;
    };
    expect(host("http://2130706433/")).toBe("127.0.0.1");
    expect(host("http://0x7f.1/")).toBe("127.0.0.1");
    expect(host("http://[::1]:8080/x")).toBe("::1");
    expect(host("http://[::ffff:127.0.0.1]/")).toBe("::ffff:7f00:1");
    expect(checkAddress(host("http://[::ffff:127.0.0.1]/")!, false).ok).toBe(false);
    expect(host("https://example.com/")).toBeNull();
  });
});
