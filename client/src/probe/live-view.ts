// The probe page's small live view: last latency and running counts per
// (method, target), so a user can see at a glance that probing works.
import { METHOD_LABELS, methodOrder, type Method } from "../../../shared/methods.js";
import { formatCount, formatMs } from "../../../shared/format.js";
import type { Sample } from "../../../shared/protocol.js";

interface Row {
  last: HTMLTableCellElement;
  ok: HTMLTableCellElement;
  failed: HTMLTableCellElement;
  skipped: HTMLTableCellElement;
  okCount: number;
  failedCount: number;
  skippedCount: number;
}

export class LiveView {
  private readonly rows = new Map<string, Row>();

  constructor(private readonly tbody: HTMLTableSectionElement) {}

  record(s: Sample): void {
    const row = this.row(s.method, s.target);
    if (s.outcome === "ok") {
      row.okCount++;
      row.last.textContent = formatMs(s.ms);
      row.last.className = "num";
      row.ok.textContent = formatCount(row.okCount);
    } else {
      row.last.textContent = s.reason ? `${s.outcome} (${s.reason})` : s.outcome;
      row.last.className = "num bad";
      // A skipped tick (frozen page, sleeping machine) is a gap, not a failure of the path.
      if (s.outcome === "skipped") row.skipped.textContent = formatCount(++row.skippedCount);
      else row.failed.textContent = formatCount(++row.failedCount);
    }
  }

  private row(method: Method, target: string): Row {
    const key = `${method} ${target}`;
    const existing = this.rows.get(key);
    if (existing !== undefined) return existing;
    const tr = document.createElement("tr");
    tr.dataset.method = method;
    tr.dataset.target = target;
    const cell = (text: string, cls = "") => {
      const td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      tr.appendChild(td);
      return td;
    };
    cell(METHOD_LABELS[method]);
    cell(target);
    const row: Row = {
      last: cell("–", "num"),
      ok: cell("0", "num"),
      failed: cell("0", "num"),
      skipped: cell("0", "num"),
      okCount: 0,
      failedCount: 0,
      skippedCount: 0,
    };
    this.rows.set(key, row);
    // Keep the seed's order: per target, probes then baselines.
    const order = (m: string, t: string) => `${t}\u0000${String(methodOrder(m)).padStart(2, "0")}`;
    const mine = order(method, target);
    const after = [...this.tbody.rows].find((r) => order(r.dataset.method ?? "", r.dataset.target ?? "") > mine);
    this.tbody.insertBefore(tr, after ?? null);
    return row;
  }
}
