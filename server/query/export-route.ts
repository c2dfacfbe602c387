// GET /api/samples.csv and GET /api/samples.ndjson: every sample the
// /api/stats filters select, one line per sample (the CSV after its column
// line), what the file holds in the response headers, streamed
// page by page: a page is written only when the socket has drained the last
// one (backpressure), and a client that hangs up stops the reading.
import express, { type Response, type Router } from "express";
import { statsQuerySchema } from "../../shared/contract/index.js";
import { parseFilterQuery } from "../api/filter-query.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { SampleFilter } from "../store/sample-filter.js";
import type { Store } from "../store/store.js";
import { CSV_HEADER, csvLine, exportHeaders, ndjsonLine } from "./sample-export.js";
import type { RawSampleRow } from "../store/page-reader.js";

interface Format {
  contentType: string;
  extension: string;
  /** What precedes the samples: the CSV's column line; nothing for NDJSON, whose lines are records only. */
  header: string;
  line(r: RawSampleRow): string;
}

const FORMATS: Record<"csv" | "ndjson", Format> = {
  csv: { contentType: "text/csv; charset=utf-8", extension: "csv", header: CSV_HEADER, line: csvLine },
  ndjson: { contentType: "application/x-ndjson; charset=utf-8", extension: "ndjson", header: "", line: ndjsonLine },
};

/** Resolves true once `res` can take more, false if the client went away first. */
function drained(res: Response): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (more: boolean) => () => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(more);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

async function stream(
  store: Pick<Store, "openPageReader">,
  filter: SampleFilter,
  format: Format,
  res: Response,
  clients: ClientDirectory,
): Promise<void> {
  const reader = store.openPageReader();
  try {
    // The first page is read before the header goes out: a database that is
    // away (PostgreSQL restarting) is then a 503 the client can retry, not a cut stream.
    const pages = reader.pages(filter)[Symbol.asyncIterator]();
    let next = await pages.next();
    res.status(200).set({
      "Content-Type": format.contentType,
      "Cache-Control": "no-store",
      "Content-Disposition": `inline; filename="tailprobe-samples-${filter.fromMs}-${filter.toMs}.${format.extension}"`,
      ...exportHeaders(filter.fromMs, filter.toMs),
    });
    if (format.header !== "") res.write(format.header);
    for (; next.done !== true; next = await pages.next()) {
      const page = next.value;
      // Asked now, not remembered from the last write: the socket may have drained while the page was read.
      if (res.writableNeedDrain && !(await drained(res))) return;
      if (res.destroyed) return;
      let chunk = "";
      // The public id in the client column: the export is as public as /api/clients.
      for (const r of page) {
        const row: RawSampleRow = [...r];
        row[1] = clients.publicId(r[1]);
        chunk += format.line(row);
      }
      res.write(chunk);
    }
    res.end();
  } finally {
    reader.close();
  }
}

export function exportRouter(
  store: Pick<Store, "openPageReader">,
  nowMs: () => number,
  clients: ClientDirectory,
): Router {
  const router = express.Router();
  for (const [name, format] of Object.entries(FORMATS)) {
    router.get(`/api/samples.${name}`, (req, res, next) => {
      const p = parseFilterQuery(statsQuerySchema, req, res, nowMs(), clients);
      if (p === null) return;
      stream(store, p.filter, format, res, clients).catch((err: unknown) => {
        // Once the header is out, an error can only cut the stream short: the client sees it end without a clean finish.
        if (res.headersSent) res.destroy(err instanceof Error ? err : new Error(String(err)));
        else next(err);
      });
    });
  }
  return router;
}
