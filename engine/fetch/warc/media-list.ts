/**
 * The media list: one JSON line per media URL a stored page names (`{"page","date","url","kind","via","warc"}`),
 * so the images, video and audio of a crawl can be found, counted or fetched later without reading the WARC
 * files. It sits beside the CDXJ index and lives the same way: one shared `media.jsonl` in the WARC
 * directory (`crawl` without upload: OUT/warc/media.jsonl; a fetch node: its --warc-dir), or with upload one
 * `x.media.jsonl` per WARC file, rolled, moved and uploaded with it. Lines are appended whole after the
 * records they describe are written (CdxjLog's tail repair applies: a crash leaves no torn line).
 */
import type { CapturedExchange } from "./types.ts";

/** The shared media list of a WARC directory (no upload). */
export const MEDIA_LIST_FILE = "media.jsonl";

/** The media list of one WARC file (upload mode): `x.warc.gz` -> `x.media.jsonl`. */
export function mediaListOf(warcName: string): string {
  return warcName.replace(/\.warc\.gz$/, "") + ".media.jsonl";
}

/** The lines for the media of one stored exchange; "" when it names none. */
export function mediaLines(ex: CapturedExchange, warcFile: string): string {
  if (!ex.media || ex.media.length === 0) return "";
  const date = new Date(ex.fetchedAt).toISOString();
  let out = "";
  for (const m of ex.media) out += `${JSON.stringify({ page: ex.url, date, url: m.url, kind: m.kind, via: m.via, warc: warcFile })}\n`;
  return out;
}
