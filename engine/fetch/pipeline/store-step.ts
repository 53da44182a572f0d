/**
 * The store step: turns an HTTP response into the exchange the WARC writer records (request and response,
 * body decoded, the removed Content-Encoding noted) and writes it. `extra` makes it a revisit record (the
 * payload duplicates stored content), lists the page's media and gives its text (a WET record when text is
 * kept). The result learns the payload bytes stored (0 for a revisit, which stores none) and where the
 * records lie (`warc`, `text`); the caller learns the response record's id (a rendered DOM's conversion
 * record refers to it).
 */
import type { FetchResult, MediaRef, PageText, Revisit } from "../../../core/model/index.ts";
import type { FetchResponse } from "../http/index.ts";
import type { PageStore, StoredRecords } from "../../../core/ports/index.ts";

export interface StoreExtras {
  revisit?: Revisit;
  media?: readonly MediaRef[];
  text?: PageText;
}

/**
 * Stores `response` and notes on `result` what was stored and where (its bytes are set, not added).
 * Resolves with the response (or revisit) record's WARC-Record-ID, from a store that says it.
 */
export async function storeResponse(
  store: PageStore,
  response: FetchResponse,
  result: FetchResult,
  extra: StoreExtras = {},
): Promise<string | undefined> {
  const stored = await storeExchange(store, response, extra);
  result.bytes = extra.revisit ? 0 : response.body.byteLength;
  noteStored(result, stored);
  return stored ? stored.recordId : undefined;
}

/** Writes the exchange; resolves with where its records lie (nothing from a store that keeps no locations). */
export async function storeExchange(store: PageStore, response: FetchResponse, extra: StoreExtras = {}): Promise<StoredRecords | void> {
  return store.write({
    url: response.url,
    fetchedAt: response.endedAt,
    remoteAddress: response.remoteAddress,
    httpVersion: response.httpVersion,
    requestHeaders: response.requestHeaders,
    status: response.status,
    responseHeaders: response.headers,
    body: response.body,
    truncated: response.truncated,
    contentEncodingRemoved: response.unsupportedEncoding ? undefined : response.contentEncoding,
    ...(extra.revisit ? { revisit: extra.revisit } : {}),
    ...(extra.media && extra.media.length > 0 ? { media: extra.media } : {}),
    ...(extra.text ? { text: extra.text } : {}),
  });
}

/** The locations a store returned, on the result (replacing any of an earlier hop). */
export function noteStored(result: FetchResult, stored: StoredRecords | void): void {
  if (!stored) return;
  result.warc = { file: stored.warc.file, offset: stored.warc.offset, length: stored.warc.length };
  if (stored.text) result.text = { file: stored.text.file, offset: stored.text.offset, length: stored.text.length };
  else delete result.text;
}
