/**
 * The store step: turns an HTTP response into the exchange the WARC writer records (request and response,
 * body decoded, the removed Content-Encoding noted) and writes it. `extra` makes it a revisit record (the
 * payload duplicates stored content) and lists the page's media. Returns the payload bytes stored: 0 for a
 * revisit, which stores none.
 */
import type { MediaRef, Revisit } from "../../../core/model/index.ts";
import type { FetchResponse } from "../http/index.ts";
import type { PageStore } from "../../../core/ports/index.ts";

export interface StoreExtras {
  revisit?: Revisit;
  media?: readonly MediaRef[];
}

/** What storing did: the payload bytes stored and, from a store that says it, the response record's id. */
export interface Stored {
  bytes: number;
  recordId?: string;
}

export async function storeResponse(store: PageStore, response: FetchResponse, extra: StoreExtras = {}): Promise<number> {
  return (await storeResponseRecord(store, response, extra)).bytes;
}

export async function storeResponseRecord(store: PageStore, response: FetchResponse, extra: StoreExtras = {}): Promise<Stored> {
  const placed = await store.write({
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
  });
  const recordId = (placed as { recordId?: unknown } | undefined)?.recordId;
  return { bytes: extra.revisit ? 0 : response.body.byteLength, ...(typeof recordId === "string" ? { recordId } : {}) };
}
