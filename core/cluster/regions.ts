/**
 * Region rules: which region crawls a host. A rule maps a host suffix (a TLD like `.de`, or a domain like
 * `example.co.uk`) to a region; the longest matching suffix wins, and hosts no rule matches go to the
 * default region. Written as `--region-rules "eu=.de,.fr;apac=.jp"` with `--default-region us`.
 */
import { checkToken } from "./names.ts";

export interface RegionRules {
  defaultRegion: string;
  /** Suffix (lower case, leading dot optional) to region. */
  rules: ReadonlyArray<{ suffix: string; region: string }>;
}

export function parseRegionRules(text: string | undefined, defaultRegion: string): RegionRules {
  checkToken("region", defaultRegion);
  const rules: Array<{ suffix: string; region: string }> = [];
  for (const group of (text ?? "")
    .split(";")
    .map((g) => g.trim())
    .filter(Boolean)) {
    const eq = group.indexOf("=");
    if (eq <= 0) throw new Error(`region rule "${group}" must look like region=.suffix,.suffix`);
    const region = checkToken("region", group.slice(0, eq).trim());
    for (const raw of group
      .slice(eq + 1)
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean)) {
      if (!/^\.?[a-z0-9.-]+$/.test(raw)) throw new Error(`region rule suffix "${raw}" is not a host suffix`);
      rules.push({ suffix: raw.startsWith(".") ? raw : `.${raw}`, region });
    }
  }
  rules.sort((a, b) => b.suffix.length - a.suffix.length);
  return { defaultRegion, rules };
}

/** The region of a host key (`example.de`, `example.de:8080`). */
export function regionOf(hostKey: string, rules: RegionRules): string {
  const colon = hostKey.lastIndexOf(":");
  const host = colon > 0 && !hostKey.endsWith("]") ? hostKey.slice(0, colon) : hostKey;
  const dotted = `.${host}`;
  for (const r of rules.rules) if (dotted.endsWith(r.suffix)) return r.region;
  return rules.defaultRegion;
}

/** Every region the rules name, the default first. */
export function regionsOf(rules: RegionRules): string[] {
  return [...new Set([rules.defaultRegion, ...rules.rules.map((r) => r.region)])];
}
