/**
 * Versions of the message encodings on the bus (crawl.urls, crawl.fetch, crawl.results), so nodes of two
 * releases can share streams during a rolling upgrade. Every message carries the header `Crawl-Encoding`
 * with the major version of its encoding: major N is the protobuf package `crawler.fetch.vN`
 * (proto/crawler/fetch). Within a major, changes are only those `buf breaking` allows (new fields, new
 * messages), which a node of the previous release reads by skipping what it does not know; an
 * incompatible change is a new major.
 *
 * A node reads the majors from `oldest` to `newest`. A message of a newer major is refused rather than
 * misread (terminated, logged and counted by the bus adapter); so is one older than `oldest`, or with a
 * header that is not a version. A message with no header was written before versions existed, by a
 * release that wrote major 1. The rule for a new major: release k reads it and still writes the old one;
 * release k+1 writes it; the old major stops being read only once no node of release k-1 can run.
 */

/** The header that names a message's encoding major version. */
export const BUS_ENCODING_HEADER = "Crawl-Encoding";

/** The majors this release reads, and (`newest`) the one it writes. */
export interface ReadableEncodings {
  oldest: number;
  newest: number;
}

export const BUS_ENCODINGS: ReadableEncodings = { oldest: 1, newest: 1 };

/** The major of a message without the header (written by the releases before versions). */
export const UNLABELLED_ENCODING = 1;

export type EncodingVerdict = { ok: true; major: number } | { ok: false; reason: string };

/** Whether a message whose header says `header` ("" or undefined: none) can be read by this node. */
export function readBusEncoding(header: string | undefined, readable: ReadableEncodings = BUS_ENCODINGS): EncodingVerdict {
  const value = header?.trim() ?? "";
  if (value === "") return verdictFor(UNLABELLED_ENCODING, readable);
  if (!/^\d{1,6}$/.test(value)) return { ok: false, reason: `${BUS_ENCODING_HEADER} "${value.slice(0, 40)}" is not an encoding version` };
  return verdictFor(Number(value), readable);
}

function verdictFor(major: number, { oldest, newest }: ReadableEncodings): EncodingVerdict {
  const range = oldest === newest ? `${newest}` : `${oldest} to ${newest}`;
  if (major > newest) {
    return { ok: false, reason: `encoding version ${major} is newer than this node reads (${range}): upgrade this node` };
  }
  if (major < oldest) {
    return {
      ok: false,
      reason: `encoding version ${major} is older than this node reads (${range}): its sender is too old to share this cluster`,
    };
  }
  return { ok: true, major };
}
