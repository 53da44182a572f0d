/**
 * How WARC files are rolled, whether pages' text is kept beside them (WET), and how long a stopping process
 * keeps uploading, as one configuration table
 * (core/config) read by every process that writes WARC files (fetch nodes, `crawl`). Where files are
 * uploaded is adapters/s3's table.
 */
import { durationKind, oneOfKind, sizeKind, tableRows, type FieldSpecs } from "../../../core/config/index.ts";

export interface WarcRollSettings {
  warcRollSize: number;
  warcRollAge: number;
  warcUploadDrain: number;
  /** `wet`: a WET file of the pages' text beside each WARC file; `off`: none. */
  text: "off" | "wet";
}

const GIB = 1024 ** 3;

const SPECS: FieldSpecs<WarcRollSettings> = {
  warcRollSize: {
    flag: "--warc-roll-size",
    env: "CRAWL_WARC_ROLL_SIZE",
    default: GIB,
    ...sizeKind({ min: 1024, max: 100 * GIB }),
    description: "Finish a WARC file (and start the next) once it reaches this size",
  },
  warcRollAge: {
    flag: "--warc-roll-age",
    env: "CRAWL_WARC_ROLL_AGE",
    default: 3_600_000,
    ...durationKind({ min: 1_000, max: 7 * 24 * 3_600_000 }),
    description: "Finish a WARC file this long after it was started, even if it is small, so a quiet crawl still ships its pages",
  },
  warcUploadDrain: {
    flag: "--warc-upload-drain",
    env: "CRAWL_WARC_UPLOAD_DRAIN",
    default: 30_000,
    ...durationKind({ min: 0, max: 3_600_000 }),
    description: "On stop, how long to keep uploading finished files; what is left is uploaded by the next start",
  },
  text: {
    flag: "--text",
    env: "CRAWL_TEXT",
    default: "wet",
    ...oneOfKind(["off", "wet"] as const),
    description:
      "Keep each HTML page's title and visible text: `wet` writes it beside each WARC file x.warc.gz as x.warc.wet.gz (WARC conversion records), rolled and uploaded with it; `off` writes none",
  },
};

export const WARC_ROLL_SETTINGS = tableRows(SPECS);
