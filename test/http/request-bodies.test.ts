// How request bodies are read (issue 14 items 7, 14, 15): JSON only on the API's own paths (415
// otherwise), invalid UTF-8 refused as invalid_json with nothing stored, and oversized bodies
// answered with the standard error body by a real server, whatever their framing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { startServer } from "../../http/server";
import { sql } from "../../store/db";
import { app, call, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";

let tenant: Awaited<ReturnType<typeof createTenant>>;
beforeAll(async () => {
  tenant = await createTenant();
});
afterAll(async () => {
  await deleteTenants([tenant.tenant.id]);
});

describe("a body without Content-Type: application/json on an API path -> 415 unsupported_media_type", () => {
  const json = JSON.stringify({ channel: "email", to: "a@example.com" });
  for (const [label, headers] of [
    ["form-encoded (curl -d)", { "content-type": "application/x-www-form-urlencoded" }],
    ["text/plain (fetch with a string body)", { "content-type": "text/plain;charset=UTF-8" }],
  ] as const) {
    test(label, async () => {
      const r = await call("POST", "/v1/notifications", { key: tenant.secretKey, rawBody: json, headers: { ...headers } });
      expect(r.status).toBe(415);
      expect(r.body.error.code).toBe("unsupported_media_type");
      expect(r.body.error.message).toContain("Content-Type: application/json");
      expect(r.body.error.message).toContain(headers["content-type"].split(";")[0]!);
    });
  }

  test("no Content-Type at all names that", async () => {
    const res = await app().handle(
      new Request("http://localhost/v1/subscribers", {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.secretKey}` },
        body: new Blob([JSON.stringify({ external_id: "u1" })]), // a Blob without a type sends no Content-Type
      }),
    );
    expect(res.status).toBe(415);
    const body: any = await res.json();
    expect(body.error.code).toBe("unsupported_media_type");
    expect(body.error.message).toContain("no Content-Type");
  });

  test("application/json with a charset, and +json types, are JSON", async () => {
    const r = await call("POST", "/v1/subscribers", {
      key: tenant.secretKey,
      rawBody: JSON.stringify({ external_id: "ct-charset" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(r.status).toBe(201);
  });

  test("an empty body needs no Content-Type", async () => {
    const res = await app().handle(
      new Request(`http://localhost/v1/api-keys/${tenant.sandboxKeyId}/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.secretKey}` },
      }),
    );
    expect([201, 404]).toContain(res.status); // the sandbox key lives in the other environment: 404, not 415
    expect(((await res.json()) as any).error?.code).not.toBe("unsupported_media_type");
  });

  test("a one-click unsubscribe with more fields than RFC 8058's is still read for its token", async () => {
    const r = await call("POST", "/unsubscribe/not-a-token", {
      rawBody: "List-Unsubscribe=One-Click&utm_source=mailbox",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(r.body.error.code).toBe("invalid_token"); // not validation_failed: the extra field is no reason to refuse
  });

  test("paths third parties post to still take forms (RFC 8058 one-click)", async () => {
    const r = await call("POST", "/unsubscribe/not-a-token", {
      rawBody: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(r.body.error.code).toBe("invalid_token"); // the token is checked, the form was accepted
  });
});

describe("invalid UTF-8 inside a JSON body -> 400 invalid_json, nothing stored", () => {
  /** POSTs a subscriber whose name is `bad` (raw bytes) inside otherwise valid JSON. */
  async function withNameBytes(externalId: string, bad: number[]) {
    const enc = new TextEncoder();
    const body = new Uint8Array([...enc.encode(`{"external_id":"${externalId}","name":"caf`), ...bad, ...enc.encode('"}')]);
    const res = await app().handle(
      new Request("http://localhost/v1/subscribers", {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.secretKey}`, "content-type": "application/json" },
        body,
      }),
    );
    const rows = await sql`select 1 from subscribers where tenant_id = ${tenant.tenant.id} and external_id = ${externalId}`;
    return { status: res.status, code: ((await res.json()) as any).error?.code, stored: rows.length };
  }

  test("a lone 0xFF byte in a string value", async () => {
    expect(await withNameBytes("utf8-bad", [0xff])).toEqual({ status: 400, code: "invalid_json", stored: 0 });
  });

  test("a truncated multi-byte sequence", async () => {
    expect(await withNameBytes("utf8-cut", [0xe2, 0x82])).toEqual({ status: 400, code: "invalid_json", stored: 0 });
  });

  test("valid multi-byte text is kept exactly", async () => {
    const r = await call("POST", "/v1/subscribers", { key: tenant.secretKey, body: { external_id: "utf8-ok", name: "Zoë 日本 🚀" } });
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe("Zoë 日本 🚀");
  });
});

/** One raw HTTP/1.1 exchange: what the server answers before closing (status line, headers, body). */
function rawExchange(port: number, write: (s: net.Socket) => void): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1");
    let data = "";
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no complete answer; got ${JSON.stringify(data.slice(0, 300))}`));
    }, 15_000);
    const finish = () => {
      // ignore interim 100 Continue answers
      const text = data.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return false;
      const head = text.slice(0, end);
      const len = /content-length:\s*(\d+)/i.exec(head);
      const body = text.slice(end + 4);
      if (len && Buffer.byteLength(body) < Number(len[1])) return false;
      clearTimeout(timer);
      s.destroy();
      resolve({ status: Number(head.split(" ")[1]), headers: head, body });
      return true;
    };
    s.on("data", (c) => {
      data += c.toString();
      finish();
    });
    s.on("error", () => {}); // the server may close while we still write: the answer is what counts
    s.on("close", () => {
      if (!finish()) {
        clearTimeout(timer);
        reject(new Error(`closed without an answer; got ${JSON.stringify(data.slice(0, 300))}`));
      }
    });
    s.on("connect", () => write(s));
  });
}

describe("bodies over the limit from a real server get the standard 413 body", () => {
  let server: ReturnType<typeof startServer>;
  beforeAll(() => {
    server = startServer(0, "127.0.0.1");
  });
  afterAll(async () => {
    await server.stop();
  });

  const head = (extra: string) =>
    `POST /v1/subscribers HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${tenant.secretKey}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  test("a 6 MB chunked body", async () => {
    const r = await rawExchange(server.port, (s) => {
      s.write(head("Transfer-Encoding: chunked\r\n"));
      const chunk = "x".repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 6_000_000) {
          sent += chunk.length;
          if (!s.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) return void s.once("drain", pump);
        }
        s.write("0\r\n\r\n");
      };
      pump();
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.code).toBe("payload_too_large");
  });

  for (const framing of ["chunked", "Content-Length"] as const)
  test(`a client still writing a 2 MiB ${framing} body reads the 413: the rest is drained, not reset`, async () => {
    const got = await new Promise<{ data: string; errors: string[]; written: number }>((resolve) => {
      const s = net.connect(server.port, "127.0.0.1");
      let data = "";
      const errors: string[] = [];
      let written = 0;
      const timer = setTimeout(() => s.destroy(), 15_000);
      s.on("data", (c) => {
        data += c.toString();
        // the whole answer is in: stop there, as a client would
        const end = data.indexOf("\r\n\r\n");
        const len = /content-length:\s*(\d+)/i.exec(data.slice(0, end));
        if (end > 0 && len && Buffer.byteLength(data.slice(end + 4)) >= Number(len[1])) s.end();
      });
      s.on("error", (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
      s.on("close", () => {
        clearTimeout(timer);
        resolve({ data, errors, written });
      });
      s.on("connect", async () => {
        const write = (text: string) =>
          new Promise<void>((done) => s.write(text, (err) => (err ? errors.push((err as NodeJS.ErrnoException).code ?? err.message) : (written += text.length), done())));
        const chunked = framing === "chunked";
        const chunk = "y".repeat(64 * 1024);
        await write(head(chunked ? "Transfer-Encoding: chunked\r\n" : `Content-Length: ${32 * chunk.length}\r\n`));
        // 2 MiB, paced like a client on a slower link: the server has refused the body long before the end
        for (let i = 0; i < 32 && errors.length === 0; i++) {
          await write(chunked ? `${chunk.length.toString(16)}\r\n${chunk}\r\n` : chunk);
          if (i % 4 === 3) await Bun.sleep(20);
        }
        if (errors.length === 0 && chunked) await write("0\r\n\r\n");
      });
    });
    expect(got.errors).toEqual([]);
    expect(got.written).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(got.data).toStartWith("HTTP/1.1 413");
    expect(JSON.parse(got.data.slice(got.data.indexOf("\r\n\r\n") + 4)).error.code).toBe("payload_too_large");
  });

  test("a 6 MB body with Content-Length", async () => {
    const r = await rawExchange(server.port, (s) => {
      s.write(head("Content-Length: 6000000\r\n"));
      s.write("x".repeat(6_000_000));
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.code).toBe("payload_too_large");
  });

  test("a body just under the limit is read (422 for its content, not 413)", async () => {
    const body = JSON.stringify({ external_id: "big", custom_properties: { blob: "y".repeat(900_000) } });
    const res = await fetch(`${server.url}/v1/subscribers`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.secretKey}`, "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(422); // custom_properties is capped at 64 KiB
    expect(((await res.json()) as any).error.code).toBe("validation_failed");
  });
});
