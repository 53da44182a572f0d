/**
 * Subresources fetched for earlier renders (a site's scripts and styles, the same on every page), so the
 * next render of the host takes them from memory instead of asking the host again. Bounded by bytes: an
 * entry over `maxEntryBytes` is not kept, and the least recently used go once the total passes
 * `maxBytes` (default 32 MiB per fetch path: about 300 bundles of 100 KB). Only complete 2xx answers are
 * kept. Cost: the bodies plus ~200 bytes per entry.
 */

export interface CachedResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export class SubresourceCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;
  hits = 0;

  constructor(
    private readonly maxBytes = 32 * 1024 * 1024,
    private readonly maxEntryBytes = 2 * 1024 * 1024,
  ) {}

  get(url: string): CachedResponse | undefined {
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    this.entries.delete(url);
    this.entries.set(url, entry);
    this.hits++;
    return entry;
  }

  put(url: string, response: CachedResponse): void {
    if (response.status < 200 || response.status > 299 || response.body.byteLength > this.maxEntryBytes) return;
    const old = this.entries.get(url);
    if (old) {
      this.bytes -= old.body.byteLength;
      this.entries.delete(url);
    }
    this.entries.set(url, response);
    this.bytes += response.body.byteLength;
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= entry.body.byteLength;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }
}
