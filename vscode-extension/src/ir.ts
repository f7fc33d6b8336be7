// ir.ts - read-only virtual documents for the IR of a kernel (ph.showIR), shown beside the
// source with the IR lines of the source line under the cursor highlighted, and back.
import * as vscode from 'vscode';

export const IR_SCHEME = 'ph-ir';

/** One IR view: its text and, for each IR line, the 0-based `.ph` line it came from. */
export interface IrView {
  source: vscode.Uri;
  stage: string;
  kernel: string;
  text: string;
  srcLineOfIrLine: (number | undefined)[];
  request: unknown[]; // the ph.showIR arguments, to refresh the view after a save
}

/** Drops the trailing ` loc(...)` of each MLIR line (the map already carries them), keeping
 * the line count so the map still applies; the `#loc` alias lines stay. */
export function stripLocations(text: string): string {
  return text.split('\n').map((l) => (l.startsWith('#loc') ? l : l.replace(/\s+loc\(.*\)\s*$/, ''))).join('\n');
}

/** Normalises what the server returned for ph.showIR into text plus a line map. */
export function parseIrResult(result: unknown): { text: string; map: (number | undefined)[]; kernel?: string; stage?: string } {
  if (typeof result === 'string') return { text: result, map: [] };
  const r = (result ?? {}) as Record<string, any>;
  const text: string = r.text ?? r.ir ?? r.content ?? JSON.stringify(result, null, 2);
  const nLines = text.split('\n').length;
  const map: (number | undefined)[] = new Array(nLines).fill(undefined);
  // Accepted shapes: `sourceLines`/`lineMap`: one entry per IR line (a .ph line or null);
  // `map`/`lines`: [{irLine, srcLine}] or [[irLine, srcLine]] pairs. Lines are 0-based.
  const perLine = r.sourceLines ?? r.lineMap;
  if (Array.isArray(perLine)) perLine.forEach((s: unknown, i: number) => { if (typeof s === 'number' && s >= 0) map[i] = s; });
  const pairs = r.map ?? r.lines ?? r.mapping;
  if (Array.isArray(pairs)) {
    for (const p of pairs) {
      const ir = Array.isArray(p) ? p[0] : p?.irLine ?? p?.ir;
      const src = Array.isArray(p) ? p[1] : p?.srcLine ?? p?.sourceLine ?? p?.src ?? p?.line;
      if (typeof ir === 'number' && typeof src === 'number' && ir >= 0 && ir < nLines) map[ir] = src;
    }
  }
  return { text: stripLocations(text), map, kernel: r.kernel, stage: r.stage };
}

const extOfStage: Record<string, string> = { tile: 'mlir', gpu: 'mlir', cpu: 'mlir', mlir: 'mlir', llvm: 'll', ptx: 'ptx', sass: 'sass' };

export class IrDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private views = new Map<string, IrView>();
  private changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private deco = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.findMatchForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
    isWholeLine: true,
  });
  private disposables: vscode.Disposable[] = [];

  constructor() {
    this.disposables.push(this.changed, this.deco,
      vscode.window.onDidChangeTextEditorSelection((e) => this.syncHighlights(e.textEditor)));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.views.get(uri.toString())?.text ?? '// this IR view is no longer available: run "Ph: Show IR" again\n';
  }

  uriFor(source: vscode.Uri, kernel: string, stage: string): vscode.Uri {
    const base = source.path.split('/').pop()?.replace(/\.ph$/, '') ?? 'kernel';
    const name = `${base}.${kernel || 'kernel'}.${stage}.${extOfStage[stage] ?? 'txt'}`;
    return vscode.Uri.from({ scheme: IR_SCHEME, path: '/' + name, query: `source=${encodeURIComponent(source.toString())}` });
  }

  /** Stores (or refreshes) a view and shows it beside the source editor. */
  async show(view: IrView, sourceEditor?: vscode.TextEditor): Promise<vscode.TextEditor> {
    const uri = this.uriFor(view.source, view.kernel, view.stage);
    const existed = this.views.has(uri.toString());
    this.views.set(uri.toString(), view);
    if (existed) this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, {
      viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false,
    });
    if (sourceEditor) this.syncHighlights(sourceEditor);
    return editor;
  }

  /** Views of a source file (to refresh them when it is saved). */
  viewsOf(source: vscode.Uri): IrView[] {
    return [...this.views.values()].filter((v) => v.source.toString() === source.toString());
  }

  // Highlights, in the other side, the lines that correspond to the cursor's line.
  private syncHighlights(editor: vscode.TextEditor): void {
    const line = editor.selection.active.line;
    if (editor.document.uri.scheme === IR_SCHEME) {
      const view = this.views.get(editor.document.uri.toString());
      const src = view?.srcLineOfIrLine[line];
      const target = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === view?.source.toString());
      if (!view || !target) return;
      target.setDecorations(this.deco, src === undefined ? [] : [new vscode.Range(src, 0, src, 0)]);
      if (src !== undefined) target.revealRange(new vscode.Range(src, 0, src, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      return;
    }
    if (editor.document.languageId !== 'ph') return;
    for (const ir of vscode.window.visibleTextEditors) {
      const view = this.views.get(ir.document.uri.toString());
      if (!view || view.source.toString() !== editor.document.uri.toString()) continue;
      const ranges: vscode.Range[] = [];
      view.srcLineOfIrLine.forEach((s, i) => { if (s === line) ranges.push(new vscode.Range(i, 0, i, 0)); });
      ir.setDecorations(this.deco, ranges);
      if (ranges.length > 0) ir.revealRange(ranges[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }

  dispose(): void { this.disposables.forEach((d) => d.dispose()); }
}
