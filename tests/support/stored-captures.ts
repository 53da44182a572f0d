/**
 * What the e2e tests check of the records a crawl stored, from outside the crawler: a capture's `warc`
 * location is read back byte-wise (one gzip member at that offset, a WARC 1.1 record, warc-bytes.ts) and must
 * be that URL's response (or revisit) record; and each WARC file's WET file holds exactly one conversion record
 * per HTML page stored with a 2xx response, naming that record, and none for anything else.
 */
import { existsSync, readFileSync } from "node:fs";
import { gzipMemberAt, gzipMembers, parseWarcRecord, type ParsedRecord } from "./warc-bytes.ts";

export interface CaptureLocation {
  file: string;
  offset: number;
  length: number;
}

/** The record a location names, checked to be one whole gzip member of exactly `length` bytes. */
export function recordAt(path: string, at: CaptureLocation): ParsedRecord {
  const bytes = new Uint8Array(readFileSync(path));
  const member = gzipMemberAt(bytes, at.offset);
  if (member.length !== at.length)
    throw new Error(`${path}@${at.offset}: the member is ${member.length} bytes, the location says ${at.length}`);
  return parseWarcRecord(member.data);
}

/** What is wrong with one capture of `url`, in words; undefined when its location holds that URL's response or revisit record. */
export function captureProblem(path: string, url: string, at: CaptureLocation): string | undefined {
  try {
    const r = recordAt(path, at);
    const type = r.get("WARC-Type");
    if (type !== "response" && type !== "revisit") return `${url}: ${at.file}@${at.offset} is a ${type} record`;
    if (r.get("WARC-Target-URI") !== url) return `${url}: ${at.file}@${at.offset} is the record of ${r.get("WARC-Target-URI")}`;
    return undefined;
  } catch (error) {
    return `${url}: ${(error as Error).message}`;
  }
}

export interface WetCheck {
  /** HTML pages stored with a 2xx response, by URL (each must have its one text record). */
  htmlPages: string[];
  /** URLs with a text record. */
  withText: string[];
  /** Everything wrong, in words; empty when the files are right. */
  problems: string[];
}

/** The WET file of a WARC file path. */
export function wetPathOf(warcPath: string): string {
  return warcPath.replace(/\.warc\.gz$/, ".warc.wet.gz");
}

/**
 * Checks each WARC file against its WET file: every gzip member of both whole and a WARC 1.1 record; one
 * conversion record (text/plain) for each 2xx text/html response, whose WARC-Refers-To is that response's
 * record id and whose WARC-Target-URI is its URL; no conversion record for any other record.
 */
export function checkWetFiles(warcPaths: readonly string[]): WetCheck {
  const out: WetCheck = { htmlPages: [], withText: [], problems: [] };
  for (const warcPath of warcPaths) {
    const wetPath = wetPathOf(warcPath);
    if (!existsSync(wetPath)) {
      out.problems.push(`${warcPath}: no WET file beside it`);
      continue;
    }
    // What each response or revisit record is: an HTML page answered 2xx (must have one text record), an
    // HTML revisit (a near duplicate: may have one, its text was parsed), or anything else (must have none).
    const stored = new Map<string, { url: string; kind: "page" | "html-revisit" | "other" }>();
    for (const m of gzipMembers(new Uint8Array(readFileSync(warcPath)))) {
      const r = parseWarcRecord(m.data);
      const type = r.get("WARC-Type");
      if (type !== "response" && type !== "revisit") continue;
      const head = new TextDecoder("latin1").decode(r.block.subarray(0, 4096));
      const status = Number(/^HTTP\/\S+ (\d{3})/.exec(head)?.[1]);
      const html = /\r\ncontent-type:\s*text\/html/i.test(head) && status >= 200 && status < 300;
      const kind = !html ? "other" : type === "response" ? "page" : "html-revisit";
      stored.set(r.get("WARC-Record-ID")!, { url: r.get("WARC-Target-URI")!, kind });
      if (kind === "page") out.htmlPages.push(r.get("WARC-Target-URI")!);
    }
    const named = new Set<string>();
    const members = gzipMembers(new Uint8Array(readFileSync(wetPath)));
    for (const [i, m] of members.entries()) {
      const r = parseWarcRecord(m.data);
      const type = r.get("WARC-Type");
      if (i === 0) {
        if (type !== "warcinfo") out.problems.push(`${wetPath}: starts with a ${type} record, not warcinfo`);
        continue;
      }
      const where = `${wetPath}@${m.offset}`;
      if (type !== "conversion") {
        out.problems.push(`${where}: a ${type} record`);
        continue;
      }
      const refersTo = r.get("WARC-Refers-To") ?? "";
      const target = stored.get(refersTo);
      if (!target) out.problems.push(`${where}: names ${refersTo}, no response or revisit record of ${warcPath}`);
      else if (target.kind === "other") out.problems.push(`${where}: text for ${target.url}, which is not an HTML page`);
      else if (target.url !== r.get("WARC-Target-URI"))
        out.problems.push(`${where}: URL ${r.get("WARC-Target-URI")} is not ${target.url}'s`);
      if (r.get("Content-Type") !== "text/plain") out.problems.push(`${where}: Content-Type ${r.get("Content-Type")}`);
      if (named.has(refersTo)) out.problems.push(`${wetPath}: two text records name ${refersTo}`);
      named.add(refersTo);
      out.withText.push(r.get("WARC-Target-URI")!);
    }
    for (const [id, s] of stored)
      if (s.kind === "page" && !named.has(id)) out.problems.push(`${warcPath}: HTML page ${s.url} has no text record`);
  }
  return out;
}
