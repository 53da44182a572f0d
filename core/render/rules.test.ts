import { describe, expect, test } from "bun:test";
import { NO_RENDER_MEMORY, rememberRender, renderAsk } from "./host-memory.ts";
import { parseRenderRule, RenderRules } from "./rules.ts";

describe("render rules", () => {
  test("render rules - a URL rule wins over a host rule, a longer host over a shorter, else --render", () => {
    const rules = new RenderRules("auto", ["always:example.com", "never:static.example.com", "never:https://example.com/files/*"]);
    expect(rules.modeFor("https://www.example.com/app", "www.example.com")).toBe("always");
    expect(rules.modeFor("https://static.example.com/x", "static.example.com")).toBe("never");
    expect(rules.modeFor("https://example.com/files/a.html", "example.com")).toBe("never");
    expect(rules.modeFor("https://other.test/", "other.test")).toBe("auto");
    expect(rules.modeFor("http://example.com:8080/", "example.com:8080")).toBe("always");
  });

  test("render rules - a bad rule names itself", () => {
    expect(() => parseRenderRule("sometimes:example.com")).toThrow(/not a render rule/);
    expect(() => parseRenderRule("always:re:(")).toThrow(/regular expression/);
    expect(() => parseRenderRule("always:exa mple")).toThrow(/not a host name/);
  });

  test("render rules - never everywhere means no browser is needed", () => {
    expect(new RenderRules("never", []).mayRender).toBe(false);
    expect(new RenderRules("never", ["always:app.test"]).mayRender).toBe(true);
  });
});

describe("render host memory", () => {
  test("render host memory - a host where rendering found more links is rendered always, one where it never did stops", () => {
    let helps = NO_RENDER_MEMORY;
    expect(renderAsk("auto", helps)).toBe("auto");
    helps = rememberRender(helps, 3);
    expect(renderAsk("auto", helps)).toBe("always");
    let useless = NO_RENDER_MEMORY;
    for (let i = 0; i < 3; i++) useless = rememberRender(useless, 0);
    expect(renderAsk("auto", useless)).toBe("auto");
    useless = rememberRender(useless, 0);
    expect(renderAsk("auto", useless)).toBeUndefined();
    expect(renderAsk("always", useless)).toBe("always");
    expect(renderAsk("never", helps)).toBeUndefined();
  });

  test("render host memory - stays one byte however many renders", () => {
    let m = NO_RENDER_MEMORY;
    for (let i = 0; i < 10_000; i++) m = rememberRender(m, i % 3);
    expect(m).toBeGreaterThanOrEqual(0);
    expect(m).toBeLessThan(256);
    expect(renderAsk("auto", m)).toBe("always");
  });
});
