// results.ts - renders ph.run / ph.compile results as plain-text tables (no vscode import,
// so the node tests can exercise it directly).

/** One row of a result table: a kernel variant's configuration and its figures. */
export type Row = Record<string, unknown>;

// Columns shown first, in this order, when present; any other key follows.
const preferred = ['kernel', 'ptxas', 'config', 'configuration', 'target', 'gpu', 'device', 'sizes', 'grid', 'time_ms', 'timeMs',
  'median_ms', 'tflops', 'TFLOPs', 'gbps', 'GBps', 'percentOfPeak', 'check', 'max_abs_err', 'maxError', 'max_error',
  'error', 'ok', 'status'];

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

// Keys that are plumbing, not figures: left out of the table.
// `outputDir`, the default sizes and the note go in the header above the table instead.
const hidden = new Set(['result', 'stdout', 'stderr', 'summary', 'message', 'offer', 'exitCode', 'outputs',
  'scalars', 'seed', 'analyze_ms', 'log', 'outputDir', 'defaultSizes', 'note', 'requestedTarget', 'figuresDetail', 'compile_ms', 'threads']);

function scalarsOf(r: Row): Row {
  const out: Row = {};
  for (const [k, x] of Object.entries(r)) if (!hidden.has(k) && (typeof x !== 'object' || x === null || k === 'sizes' || k === 'grid' || k === 'config')) out[k] = x;
  return out;
}

// `check: {passed, outputs: [{max_abs_err}]}` (ph run --json) reads as two columns.
function flattenCheck(row: Row): Row {
  const c = row.check as Row | undefined;
  if (c && typeof c === 'object' && !Array.isArray(c)) {
    const outs = Array.isArray(c.outputs) ? (c.outputs as Row[]) : [];
    const errs = outs.map((o) => Number(o.max_abs_err ?? o.maxError)).filter((x) => Number.isFinite(x));
    row = { ...row, check: c.passed === undefined ? c : c.passed ? 'passed' : 'FAILED' };
    if (errs.length > 0) row.max_abs_err = Math.max(...errs);
  }
  return row;
}

/** The rows of a result: one per variant (`variants`/`results`/`rows`), else one. The
 * server wraps `ph run --json` output in `result` beside `ok`, `kernel`, `target`. */
export function resultRows(result: unknown): Row[] {
  if (result === null || result === undefined) return [];
  if (Array.isArray(result)) return result.filter((r) => typeof r === 'object' && r !== null).map((r) => flattenCheck(scalarsOf(r as Row)));
  if (typeof result !== 'object') return [{ result }];
  const outer = result as Row;
  const inner = outer.result && typeof outer.result === 'object' && !Array.isArray(outer.result) ? (outer.result as Row) : undefined;
  const base = { ...scalarsOf(outer), ...(inner ? scalarsOf(inner) : {}) };
  const holder = inner ?? outer;
  // ph.compile: `figures` maps each kernel to its ptxas figures and occupancy.
  const figs = outer.figures;
  if (figs && typeof figs === 'object' && !Array.isArray(figs) && Object.keys(figs as Row).length > 0) {
    delete base.kernel;
    return Object.entries(figs as Row).map(([kernel, ptxas]) => ({ kernel, ptxas, ...base }));
  }
  for (const key of ['variants', 'results', 'rows', 'kernels', 'configs']) {
    const v = holder[key];
    if (Array.isArray(v) && v.length > 0 && typeof v[0] === 'object') {
      delete base[key];
      return (v as Row[]).map((row) => flattenCheck({ ...base, ...scalarsOf(row), ...(row.check ? { check: row.check } : {}) }));
    }
  }
  if (Array.isArray(outer.result)) return resultRows(outer.result).map((r) => ({ ...base, ...r }));
  return [flattenCheck({ ...base, ...(holder.check ? { check: holder.check } : {}) })];
}

/** A fixed-width table with a header row, a rule, and one line per row. */
export function formatTable(rows: Row[]): string {
  if (rows.length === 0) return '(no result)\n';
  const keys: string[] = [];
  for (const k of preferred) if (rows.some((r) => k in r)) keys.push(k);
  for (const r of rows) for (const k of Object.keys(r)) if (!keys.includes(k) && !hidden.has(k)) keys.push(k);
  const cells = rows.map((r) => keys.map((k) => cell(r[k])));
  const width = keys.map((k, i) => Math.max(k.length, ...cells.map((c) => c[i].length)));
  const line = (cs: string[]) => cs.map((c, i) => c.padEnd(width[i])).join(' | ').trimEnd();
  return [line(keys), width.map((w) => '-'.repeat(w)).join('-+-'), ...cells.map(line)].join('\n') + '\n';
}

/** A one-line summary for the status bar: the fastest row's kernel, target, time, throughput
 * and check; the server's own summary only when the rows say nothing. */
export function summaryLine(result: unknown): string {
  const rows = resultRows(result);
  const time = (r: Row) => Number(r.time_ms ?? r.timeMs ?? r.median_ms ?? Number.POSITIVE_INFINITY);
  const parts: string[] = [];
  if (rows.length > 0) {
    const best = rows.reduce((a, b) => (time(b) < time(a) ? b : a));
    if (best.kernel) parts.push(String(best.kernel) + (best.target ? ` on ${best.target}` : '') + ':');
    if (Number.isFinite(time(best))) parts.push(`${cell(time(best))} ms`);
    const tf = best.tflops ?? best.TFLOPs, gb = best.gbps ?? best.GBps;
    if (tf !== undefined) parts.push(`${cell(tf)} TFLOP/s`);
    if (gb !== undefined) parts.push(`${cell(gb)} GB/s`);
    if (typeof best.check === 'string') parts.push(`check ${best.check}`);
    const err = best.error ?? best.max_abs_err ?? best.maxError ?? best.max_error;
    if (typeof err === 'string') parts.push(err);
    else if (err !== undefined && typeof best.check !== 'string') parts.push(`err ${cell(err)}`);
  }
  // A kernel name alone says nothing: then the server's summary or message is better.
  if (parts.length <= 1 && result && typeof result === 'object' && !Array.isArray(result)) {
    const s = (result as Row).summary ?? (result as Row).message;
    if (typeof s === 'string' && s.length > 0) return s;
  }
  return parts.join(' ').replace(/:$/, '') || (rows.length ? JSON.stringify(rows[0]) : 'no result');
}

/** The results header: what ran, where, with which sizes (and which were the server's defaults). */
export function resultHeader(title: string, result: unknown, ms: number, relative: (p: string) => string = (p) => p): string {
  const r = (result ?? {}) as Record<string, any>;
  const inner = (r.result && typeof r.result === 'object' ? r.result : {}) as Record<string, any>;
  const parts = [title];
  const target = r.target ?? inner.target;
  if (target && !title.includes(` on ${target}`)) parts.push(`on ${target}`);
  const sizes = (inner.sizes ?? r.sizes) as Record<string, number> | undefined;
  if (sizes && typeof sizes === 'object' && Object.keys(sizes).length) {
    const defaulted = new Set<string>(Array.isArray(r.defaultSizes) ? r.defaultSizes : Object.keys(r.defaultSizes ?? {}));
    parts.push('sizes ' + Object.entries(sizes).map(([k, v]) => `${k}=${v}${defaulted.has(k) ? '*' : ''}`).join(' '));
    if (defaulted.size) parts.push('(* the server\'s default: see ph.sizes)');
  }
  if (typeof r.note === 'string') parts.push(`· ${r.note}`);
  if (typeof r.outputDir === 'string') parts.push(`→ ${relative(r.outputDir)}`);
  return `── ${parts.join(' ')} (${(ms / 1000).toFixed(2)} s)`;
}
