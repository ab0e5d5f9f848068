// Unit tests of domain/templates/render.ts: static analysis of variables, rendering rules of DESIGN.md 6
// (missing -> "" plus warning, HTML escaped in html_body only, syntax error -> valid: false).
import { describe, expect, test } from "bun:test";
import {
  EMAIL_SUBJECT_WARNING,
  extractVariables,
  renderCacheSize,
  renderTemplate,
  validateTemplate,
} from "../../domain/templates/render";

describe("extractVariables (static analysis, not regex)", () => {
  test("nested paths like user.name are included as 'user.name', deduplicated, in order of appearance", () => {
    const vars = extractVariables("{{ greeting }} {{ user.name }}, {{ user.address.city | upcase }} {{ greeting }} {{ user.name }}");
    expect(vars).toEqual(["greeting", "user.name", "user.address.city"]);
  });

  test("loop and assign locals are not template variables; the iterated collection is", () => {
    const vars = extractVariables("{% assign n = 1 %}{{ n }}{% for item in order.items %}{{ item.title }} {{ forloop.index }}{% endfor %}");
    expect(vars).toEqual(["order.items"]);
  });

  test("variables inside tags (if, filters arguments) are found", () => {
    expect(extractVariables("{% if vip %}{{ code | append: suffix }}{% endif %}")).toEqual(["vip", "code", "suffix"]);
  });

  test("variants are analysed after the content", () => {
    expect(extractVariables("Hi {{ name }}", { subject: "Order {{ order.id }} for {{ name }}", html_body: "<b>{{ link }}</b>" })).toEqual([
      "name",
      "order.id",
      "link",
    ]);
  });

  test("a part that does not parse contributes nothing and does not throw", () => {
    expect(extractVariables("{{ broken ", { subject: "{{ ok }}" })).toEqual(["ok"]);
  });

  test("text without placeholders has no variables", () => {
    expect(extractVariables("plain text")).toEqual([]);
  });
});

describe("renderTemplate", () => {
  test("renders content as body and every variant", () => {
    const r = renderTemplate(
      { content: "Hi {{ user.name }}", channel: "email", variants: { subject: "Welcome {{ user.name }}", html_body: "<p>Hi {{ user.name }}</p>" } },
      { user: { name: "Ana" } },
    );
    expect(r.rendered).toEqual({ body: "Hi Ana", subject: "Welcome Ana", html_body: "<p>Hi Ana</p>" });
    expect(r.valid).toBe(true);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  test("HTML is escaped in html_body only, not in body or subject", () => {
    const r = renderTemplate(
      { content: "Hi {{ name }}", channel: "email", variants: { subject: "For {{ name }}", html_body: "<p>{{ name }}</p>" } },
      { name: `<script>alert("x")</script> & co` },
    );
    expect(r.rendered.body).toBe(`Hi <script>alert("x")</script> & co`);
    expect(r.rendered.subject).toBe(`For <script>alert("x")</script> & co`);
    expect(r.rendered.html_body).toBe("<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; co</p>");
  });

  test("the template's own markup in html_body is kept; `| raw` opts out of escaping", () => {
    const r = renderTemplate({ content: "x", channel: "email", variants: { html_body: "<a href='{{ url }}'>{{ html | raw }}</a>" } }, { url: "a&b", html: "<i>ok</i>" });
    expect(r.rendered.html_body).toBe("<a href='a&amp;b'><i>ok</i></a>");
  });

  test("missing variables render as empty string with a warning `Missing variable: x` (DESIGN.md 6)", () => {
    const r = renderTemplate({ content: "Hi {{ name }}! Code {{ order.code }}.", channel: "sms" }, { order: {} });
    expect(r.rendered.body).toBe("Hi ! Code .");
    expect(r.warnings).toEqual(["Missing variable: name", "Missing variable: order.code"]);
    expect(r.valid).toBe(true);
  });

  test("collection helpers (size/first/last) of a present array are not reported missing", () => {
    const r = renderTemplate({ content: "{{ items.size }} {{ items.first }}", channel: "sms" }, { items: [3, 4] });
    expect(r.rendered.body).toBe("2 3");
    expect(r.warnings).toEqual([]);
  });

  test("a syntax error gives errors and valid: false instead of throwing", () => {
    const r = renderTemplate({ content: "Hi {{ name ", channel: "sms" }, { name: "x" });
    expect(r.valid).toBe(false);
    expect(r.errors.length).toBe(1);
    expect(r.errors[0]).toStartWith("content: ");
    expect(r.rendered.body).toBe("");
  });

  test("an error in a variant names that variant; the other parts still render", () => {
    const r = renderTemplate({ content: "Hi {{ n }}", channel: "email", variants: { subject: "{% if %}" } }, { n: "A" });
    expect(r.valid).toBe(false);
    expect(r.errors[0]).toStartWith("subject: ");
    expect(r.rendered.body).toBe("Hi A");
  });

  test("unknown filters are errors (strictFilters), so typos do not silently pass", () => {
    expect(renderTemplate({ content: "{{ x | upcasee }}", channel: "sms" }, { x: "a" }).valid).toBe(false);
  });

  test("include/render cannot read files: the lookup fails as a template error", () => {
    const r = renderTemplate({ content: "{% include '/etc/passwd' %}", channel: "sms" }, {});
    expect(r.valid).toBe(false);
    expect(r.rendered.body).toBe("");
  });

  test("a runaway loop is stopped by the render limits instead of blocking the worker", () => {
    const started = performance.now();
    const r = renderTemplate({ content: "{% for i in (1..100000000) %}{{ i }}{% endfor %}", channel: "sms" }, {});
    expect(r.valid).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("prototype properties are not readable from templates", () => {
    const r = renderTemplate({ content: "[{{ x.constructor }}][{{ s.__proto__ }}]", channel: "sms" }, { x: {}, s: "a" });
    expect(r.rendered.body).toBe("[][]");
  });

  test("parsed templates are cached: rendering the same content again does not grow the cache", () => {
    const content = `cache probe ${crypto.randomUUID()} {{ a }}`;
    renderTemplate({ content, channel: "sms" }, { a: 1 });
    const size = renderCacheSize();
    const r = renderTemplate({ content, channel: "sms" }, { a: 2 });
    expect(renderCacheSize()).toBe(size);
    expect(r.rendered.body).toEndWith(" 2");
  });
});

describe("validateTemplate", () => {
  test("syntax error -> valid: false with the error", () => {
    const v = validateTemplate({ content: "{% if x %}no end", channel: "sms" });
    expect(v.valid).toBe(false);
    expect(v.errors.length).toBe(1);
  });

  test("SPEC: an email template without a `subject` variant yields a warning", () => {
    const v = validateTemplate({ content: "Hi", channel: "email" });
    expect(v.valid).toBe(true);
    expect(v.warnings).toContain(EMAIL_SUBJECT_WARNING);
    expect(validateTemplate({ content: "Hi", channel: "email", variants: { subject: "S" } }).warnings).toEqual([]);
  });

  test("other channels need no subject", () => {
    expect(validateTemplate({ content: "Hi", channel: "sms" }).warnings).toEqual([]);
  });

  test("variables used but not declared are warned about; declared parents cover nested paths", () => {
    const v = validateTemplate({ content: "{{ user.name }} {{ code }} {{ order.id }}", channel: "sms", variables: ["user", "order.id"] });
    expect(v.warnings).toEqual(["Variable used but not declared: code"]);
    expect(v.variables).toEqual(["user.name", "code", "order.id"]);
  });

  test("without a declared list there is no undeclared warning", () => {
    expect(validateTemplate({ content: "{{ a }}", channel: "sms" }).warnings).toEqual([]);
  });
});

describe("hostile templates", () => {
  test("a part with more than MAX_TAGS_PER_PART tags is invalid at once instead of blocking the event loop", async () => {
    const { MAX_TAGS_PER_PART } = await import("../../domain/templates/render");
    const ok = Array.from({ length: MAX_TAGS_PER_PART }, (_, i) => `{{v${i % 7}}}`).join(" ");
    expect(validateTemplate({ content: ok, channel: "sms" }).valid).toBe(true);
    const tooMany = ok + " {% if x %}y{% endif %}";
    const v = validateTemplate({ content: tooMany, channel: "sms" });
    expect(v.valid).toBe(false);
    expect(v.errors[0]).toContain("too many Liquid tags");
    expect(renderTemplate({ content: tooMany, channel: "sms" }, {}).valid).toBe(false);
  });
});
