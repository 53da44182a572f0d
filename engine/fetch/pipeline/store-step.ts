/**
 * The store step: turns an HTTP response into the exchange the WARC writer records (request and response,
 * body decoded, the removed Content-Encoding noted) and writes it.
 */
import type { FetchResponse } from "../http/index.ts";
import type { PageStore } from "../../../core/ports/index.ts";

export async function storeResponse(store: PageStore, response: FetchResponse): Promise<number> {
  await store.write({
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
  });
  return response.body.byteLength;
}
