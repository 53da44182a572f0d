/**
 * The records a rendered page adds to its capture (engine/render): the DOM as the browser left it, as a
 * WARC `conversion` record (WARC 1.1: "an alternative version of another record's content"), and, when
 * asked (`--render-screenshots`), a PNG of the window as a `resource` record. Both name the capture's
 * response record in `WARC-Refers-To` and carry the page's URL as their target, so a reader finds them
 * from the response and the response from them. They are not in the CDXJ index: replay goes to the
 * response, which is what the server sent. `docs/warc.md` describes them.
 */
import { clean, newRecordId, recordBytes, sha256 } from "./records.ts";

export interface RenderedCapture {
  /** The page URL (the response record's WARC-Target-URI). */
  url: string;
  /** The response record's WARC-Record-ID. */
  responseRecordId: string;
  /** When the DOM was taken, epoch milliseconds. */
  renderedAt: number;
  /** The serialized DOM (UTF-8 HTML). */
  dom: string;
  /** A PNG of the window, when screenshots are on. */
  screenshot?: Uint8Array;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** The conversion record and, with a screenshot, the resource record after it. */
export function renderedRecords(capture: RenderedCapture, warcinfoId: string): Uint8Array[] {
  const date = new Date(capture.renderedAt).toISOString();
  const target = clean(capture.url);
  const common = (type: string, contentType: string) => [
    `WARC-Type: ${type}`,
    `WARC-Record-ID: ${newRecordId()}`,
    `WARC-Date: ${date}`,
    `WARC-Target-URI: ${target}`,
    `WARC-Refers-To: ${capture.responseRecordId}`,
    `WARC-Warcinfo-ID: ${warcinfoId}`,
    `Content-Type: ${contentType}`,
  ];
  const dom = encoder.encode(capture.dom);
  const records = [recordBytes(common("conversion", "text/html; charset=utf-8"), sha256(dom), EMPTY, dom)];
  if (capture.screenshot) records.push(recordBytes(common("resource", "image/png"), sha256(capture.screenshot), EMPTY, capture.screenshot));
  return records;
}
