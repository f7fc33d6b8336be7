// results.ts - renders ph.run / ph.compile results as plain-text tables (no vscode import,
// so the node tests can exercise it directly).

/** One row of a result table: a kernel variant's configuration and its figures. */
export type Row = Record<string, unknown>;

// Columns shown first, in this order, when present; any other key follows.
const preferred = ['kernel', 'config', 'configuration', 'target', 'gpu', 'time_ms', 'timeMs', 'median_ms',
  'tflops', 'TFLOPs', 'gbps', 'GBps', 'percentOfPeak', 'maxError', 'max_error', 'error', 'check', 'ok', 'status'];

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(3) : v.toFixed(a < 1 ? 4 : 3);
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') {
    // A configuration such as {BR: 64, BC: 32} reads best as "BR=64 BC=32".
    if (!Array.isArray(v)) return Object.entries(v as Row).map(([k, x]) => `${k}=${cell(x)}`).join(' ');
    return v.map(cell).join(',');
  }
  return String(v);
}

/** The rows of a result: its `variants`/`results`/`rows` array, or the result itself. */
export function resultRows(result: unknown): Row[] {
  if (result === null || result === undefined) return [];
  if (Array.isArray(result)) return result.filter((r) => typeof r === 'object' && r !== null) as Row[];
  if (typeof result !== 'object') return [{ result }];
  const r = result as Row;
  for (const key of ['variants', 'results', 'rows', 'kernels']) {
    const v = r[key];
    if (Array.isArray(v) && v.length > 0 && typeof v[0] === 'object') {
      // Keys of the enclosing object (kernel, target) repeat on each row when rows lack them.
      const shared: Row = {};
      for (const [k, x] of Object.entries(r)) if (k !== key && (typeof x !== 'object' || x === null)) shared[k] = x;
      return (v as Row[]).map((row) => ({ ...shared, ...row }));
    }
  }
  return [r];
}

/** A fixed-width table with a header row, a rule, and one line per row. */
export function formatTable(rows: Row[]): string {
  if (rows.length === 0) return '(no result)\n';
  const keys: string[] = [];
  for (const k of preferred) if (rows.some((r) => k in r)) keys.push(k);
  for (const r of rows) for (const k of Object.keys(r)) if (!keys.includes(k) && !/^(summary|message)$/.test(k)) keys.push(k);
  const cells = rows.map((r) => keys.map((k) => cell(r[k])));
  const width = keys.map((k, i) => Math.max(k.length, ...cells.map((c) => c[i].length)));
  const line = (cs: string[]) => cs.map((c, i) => c.padEnd(width[i])).join(' | ').trimEnd();
  return [line(keys), width.map((w) => '-'.repeat(w)).join('-+-'), ...cells.map(line)].join('\n') + '\n';
}

/** A one-line summary for the status bar: the best (fastest) row's time and throughput. */
export function summaryLine(result: unknown): string {
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    const s = (result as Row).summary ?? (result as Row).message;
    if (typeof s === 'string' && s.length > 0) return s;
  }
  const rows = resultRows(result);
  if (rows.length === 0) return 'no result';
  const time = (r: Row) => Number(r.time_ms ?? r.timeMs ?? r.median_ms ?? Number.POSITIVE_INFINITY);
  const best = rows.reduce((a, b) => (time(b) < time(a) ? b : a));
  const parts: string[] = [];
  if (best.kernel) parts.push(String(best.kernel));
  if (Number.isFinite(time(best))) parts.push(`${cell(time(best))} ms`);
  const tf = best.tflops ?? best.TFLOPs, gb = best.gbps ?? best.GBps;
  if (tf !== undefined) parts.push(`${cell(tf)} TFLOP/s`);
  if (gb !== undefined) parts.push(`${cell(gb)} GB/s`);
  const err = best.error ?? best.maxError ?? best.max_error;
  if (typeof err === 'string') parts.push(err);
  else if (err !== undefined) parts.push(`err ${cell(err)}`);
  return parts.join(', ') || JSON.stringify(best);
}
