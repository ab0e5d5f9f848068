// Sending-domain rules without I/O: the domain name rule (tldts), TXT record reassembly, the SPF,
// DKIM and DMARC judgements, the domain that covers a From address, and the alert list cursor.
import { describe, expect, test } from "bun:test";
import { AppError } from "../../basics/errors";
import { wholeRecords } from "../../domain/dns/lookup";
import { judgeDkim, judgeDmarc, judgeSpf, tagsOf } from "../../domain/sending-domains/health";
import { coveringDomain, type SigningDomain } from "../../domain/sending-domains/mail-signing";
import { organizationalDomain, parseSendingDomain } from "../../domain/sending-domains/records";
import { decodeAlertCursor, encodeAlertCursor } from "../../store/sending-domains";

function refusal(input: string): string[] {
  try {
    parseSendingDomain(input);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("validation_failed");
    return (err as AppError).details!.domain!;
  }
  throw new Error(`${input} was accepted`);
}

describe("domain names", () => {
  test("normalised: case, surrounding space, one trailing dot, IDN to punycode", () => {
    expect(parseSendingDomain("Mail.Example.COM")).toBe("mail.example.com");
    expect(parseSendingDomain("  example.com.  ")).toBe("example.com");
    expect(parseSendingDomain("bücher.de")).toBe("xn--bcher-kva.de");
    expect(parseSendingDomain("myapp.github.io")).toBe("myapp.github.io");
  });

  test("IP addresses are refused, v4 and v6, bare or bracketed", () => {
    for (const ip of ["192.168.0.1", "10.0.0.1.", "::1", "[2001:db8::1]"]) expect(refusal(ip).join()).toMatch(/not an IP address/);
  });

  test("bare public suffixes are refused, ICANN and private ones", () => {
    for (const s of ["com", "co.uk", "github.io"]) expect(refusal(s).join()).toMatch(/public suffix|must be a domain name/);
    expect(refusal("co.uk")[0]).toMatch(/public suffix \(co\.uk\)/);
  });

  test("unknown top-level domains and malformed names are refused", () => {
    expect(refusal("foo.notatld")[0]).toMatch(/public top-level domain/);
    for (const bad of ["example.com..", ".example.com", "exa mple.com", "https://example.com", "a@example.com", "-x.example.com", "example.com:25", "*.example.com", ""]) {
      expect(refusal(bad).length).toBe(1);
    }
  });

  test("a name too long for its DKIM record name is refused", () => {
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(50)}.com`;
    expect(long.length).toBeGreaterThan(229);
    expect(refusal(long)[0]).toMatch(/at most 229 characters/);
  });

  test("the organizational domain of a subdomain", () => {
    expect(organizationalDomain("mail.example.co.uk")).toBe("example.co.uk");
    expect(organizationalDomain("example.com")).toBe("example.com");
  });
});

describe("TXT records from node:dns answers", () => {
  const long = "v=DKIM1; k=rsa; p=" + "A".repeat(237) + "B".repeat(100);
  const [a, b] = [long.slice(0, 255), long.slice(255)];

  test("records with their strings (Node) are joined per record", () => {
    expect(wholeRecords([[a, b], ["v=spf1 -all"]])).toEqual([long, "v=spf1 -all"]);
  });

  test("one string per record (Bun): a string after a full 255-byte one continues it", () => {
    expect(wholeRecords([[a], [b], ["v=spf1 -all"]])).toEqual([long, "v=spf1 -all"]);
    expect(wholeRecords([["short one"], ["another"]])).toEqual(["short one", "another"]);
  });

  test("joinAll (one record expected) joins every string", () => {
    expect(wholeRecords([["v=DKIM1; p=AB"], ["CD"]], { joinAll: true })).toEqual(["v=DKIM1; p=ABCD"]);
    expect(wholeRecords([], { joinAll: true })).toEqual([]);
  });
});

describe("health judgements", () => {
  const none = { records: [] };
  test("SPF: missing, one with the include, without it, two records, a broken zone", () => {
    expect(judgeSpf("ex.com", none, "spf.nms.test").status).toBe("missing");
    expect(judgeSpf("ex.com", { records: ["google-site-verification=x"] }, "spf.nms.test").status).toBe("missing");
    const pass = judgeSpf("ex.com", { records: ["v=spf1 include:SPF.nms.test ~all", "other"] }, "spf.nms.test");
    expect(pass).toEqual({ status: "pass", record: "v=spf1 include:SPF.nms.test ~all", message: "SPF record includes include:spf.nms.test" });
    expect(judgeSpf("ex.com", { records: ["v=spf1 include:other.test ~all"] }, "spf.nms.test").status).toBe("fail");
    expect(judgeSpf("ex.com", { records: ["v=spf1 -all"] }, "").status).toBe("pass");
    expect(judgeSpf("ex.com", { records: ["v=spf1 -all", "v=spf1 mx -all"] }, "").message).toMatch(/2 SPF records/);
    expect(judgeSpf("ex.com", { records: [], error: "SERVFAIL" }, "")).toEqual({ status: "fail", record: null, message: "SERVFAIL" });
  });

  test("DKIM: missing, equal key (whitespace inside p= ignored), another key, revoked, wrong k=", () => {
    expect(judgeDkim("s._domainkey.ex.com", none, "KEY").status).toBe("missing");
    expect(judgeDkim("n", { records: ["v=DKIM1; k=rsa; p=KE Y"] }, "KEY").status).toBe("pass");
    expect(judgeDkim("n", { records: ["v=DKIM1; k=rsa; p=OTHER"] }, "KEY").message).toMatch(/differs/);
    expect(judgeDkim("n", { records: ["v=DKIM1; p="] }, "KEY").message).toMatch(/no key/);
    expect(judgeDkim("n", { records: ["v=DKIM1; k=ed25519; p=KEY"] }, "KEY").status).toBe("fail");
  });

  test("DMARC: missing, a policy, no policy, inherited from the organizational domain", () => {
    expect(judgeDmarc("_dmarc.ex.com", none).status).toBe("missing");
    expect(judgeDmarc("_dmarc.ex.com", { records: ["v=DMARC1; p=quarantine; rua=mailto:d@ex.com"] }).message).toBe("DMARC policy p=quarantine");
    expect(judgeDmarc("_dmarc.ex.com", { records: ["v=DMARC1; rua=mailto:d@ex.com"] }).status).toBe("fail");
    expect(judgeDmarc("_dmarc.ex.com", { records: ["v=DMARC1; p=reject"] }, "_dmarc.ex.com").message).toMatch(/inherited/);
    expect(tagsOf("v=DMARC1;  P = none ;")).toEqual({ v: "DMARC1", p: "none" });
  });
});

describe("the domain that signs a From address", () => {
  const d = (domain: string): SigningDomain => ({ id: domain, domain, selector: "s", privateKey: "k", blockOnFailure: false, failing: [] });
  const domains = [d("example.com"), d("mail.example.com"), d("other.org")];
  test("the same name or the closest parent; never a sibling or a suffix match", () => {
    expect(coveringDomain("example.com", domains)?.domain).toBe("example.com");
    expect(coveringDomain("news.mail.example.com", domains)?.domain).toBe("mail.example.com");
    expect(coveringDomain("shop.example.com", domains)?.domain).toBe("example.com");
    expect(coveringDomain("badexample.com", domains)).toBeNull();
    expect(coveringDomain("example.net", domains)).toBeNull();
  });
});

describe("alert list cursor", () => {
  test("round trip, and a 422 for anything else", () => {
    const c = { open: true, id: "0190f5c2-7a1b-7c3d-8e4f-000000000001" };
    expect(decodeAlertCursor(encodeAlertCursor(c))).toEqual(c);
    expect(decodeAlertCursor(undefined)).toBeNull();
    for (const bad of ["x", Buffer.from("[2,\"a\"]").toString("base64url")]) expect(() => decodeAlertCursor(bad)).toThrow(AppError);
  });
});
