/**
 * The file-extension filter: links whose path ends in an extension of the deny-list are never queued,
 * since they are files a page crawl would fetch and throw away (archives, images, video, audio,
 * executables, fonts). The extension is what follows the last `.` of the last path segment, lower-cased,
 * query ignored: `/a/b.tar.gz?x=1` has `gz`, `/download?file=a.zip` has none (a query says nothing
 * certain about the response). PDFs, office documents, scripts and style sheets are not on the default
 * list: the first are documents a crawl usually wants, the others are rarely links.
 */

/** The default deny-list, by kind (the README lists it too). */
export const DEFAULT_DENIED_EXTENSIONS: readonly string[] = Object.freeze([
  // archives and disk images
  ...["7z", "bz2", "cab", "dmg", "gz", "iso", "rar", "tar", "tbz2", "tgz", "xz", "zip", "zst"],
  // images
  ...["avif", "bmp", "gif", "heic", "ico", "jpeg", "jpg", "png", "svg", "tif", "tiff", "webp"],
  // video
  ...["3gp", "avi", "flv", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "ogv", "webm", "wmv"],
  // audio
  ...["aac", "flac", "m4a", "mid", "midi", "mp3", "oga", "ogg", "opus", "wav", "wma"],
  // executables and packages
  ...["apk", "bin", "class", "deb", "dll", "exe", "img", "jar", "msi", "pkg", "rpm", "so"],
  // fonts
  ...["eot", "otf", "ttf", "woff", "woff2"],
]);

const EXTENSION = /^[a-z0-9]{1,10}$/;

/** Canonical form of one entry (`.ZIP` → `zip`); throws when it is no extension. */
export function canonicalExtension(entry: string): string {
  const ext = entry.trim().toLowerCase().replace(/^\./, "");
  if (!EXTENSION.test(ext)) throw new Error(`"${entry}" is not a file extension (1 to 10 letters or digits)`);
  return ext;
}

/** The extension of a normalized URL's last path segment, lower-case; undefined when it has none. */
export function extensionOf(url: string): string | undefined {
  const start = url.indexOf("://");
  const pathStart = url.indexOf("/", start < 0 ? 0 : start + 3);
  if (pathStart < 0) return undefined;
  let end = url.length;
  for (let i = pathStart; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x3f || c === 0x23) {
      end = i;
      break;
    }
  }
  const slash = url.lastIndexOf("/", end - 1);
  const dot = url.lastIndexOf(".", end - 1);
  if (dot <= slash + 1 || dot === end - 1) return undefined; // no dot in the segment, a dot file, or a trailing dot
  const ext = url.slice(dot + 1, end).toLowerCase();
  return EXTENSION.test(ext) ? ext : undefined;
}
