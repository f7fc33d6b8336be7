// extension.ts - the Ph extension: a thin client that starts ph-lsp over stdio and turns its
// commands (ph.run, ph.compile, ph.showIR) into tables, a status bar item, progress with
// cancel, and IR views beside the source.
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, ExecuteCommandRequest, LanguageClient, LanguageClientOptions,
  RevealOutputChannelOn, ServerOptions, State, WorkDoneProgress,
} from 'vscode-languageclient/node';
import { IR_SCHEME, IrDocuments, parseIrResult } from './ir';
import { formatTable, resultRows, summaryLine } from './results';

const SERVER_COMMANDS = ['ph.run', 'ph.compile', 'ph.showIR'];
const IR_STAGES: { label: string; stage: string; detail: string }[] = [
  { label: 'Tile dialect', stage: 'tile', detail: 'target-independent MLIR' },
  { label: 'GPU MLIR', stage: 'gpu', detail: 'after the tensor-core or SIMT lowering' },
  { label: 'LLVM IR', stage: 'llvm', detail: 'NVVM' },
  { label: 'PTX', stage: 'ptx', detail: 'from the NVPTX backend' },
  { label: 'SASS', stage: 'sass', detail: 'cuobjdump of the cubin (needs cuobjdump)' },
];

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem; // last run's result
let gpuItem: vscode.StatusBarItem;    // ph/status: which GPU runs will use
let irDocs: IrDocuments;
let lastPhFile: string | undefined;   // the .ph file in view, named when the server crashes
let crashTimes: number[] = [];

function config() { return vscode.workspace.getConfiguration('ph'); }

// A setting that names a program to run, from user or remote-machine settings
// only: a cloned repository's .vscode/settings.json must not choose what runs
// (the package declares both `machine`-scoped; this also holds on editors that
// would still merge a workspace value).
export function programSetting(key: 'server.path' | 'path', fallback: string): string {
  const i = config().inspect<string>(key);
  const v = i?.globalValue ?? i?.defaultValue ?? fallback;
  return v || fallback;
}

// The settings the server reads (workspace/didChangeConfiguration under `ph`, and
// initializationOptions), with the output folder made absolute against the workspace.
function serverSettings() {
  const c = config();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  let outputDir = c.get<string>('outputDir', '.ph-build');
  if (folder && !outputDir.startsWith('/')) outputDir = `${folder}/${outputDir}`;
  const driver = programSetting('path', '');
  return {
    ...(driver ? { path: driver } : {}), // the `ph` driver; empty: the server finds it
    target: c.get<string>('target', 'auto'),
    outputDir,
    compileOnSave: c.get<boolean>('compileOnSave', true),
    sizes: c.get<Record<string, number>>('sizes', {}),
    trace: c.get<string>('trace.server', 'off'),
  };
}

function makeClient(context: vscode.ExtensionContext): LanguageClient {
  const command = programSetting('server.path', 'ph-lsp');
  const serverOptions: ServerOptions = { command, args: [], options: { env: { ...process.env } } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: 'ph' }],
    initializationOptions: serverSettings(),
    outputChannelName: 'Ph Language Server',
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // A crash restarts the server and says which file was open; five in three minutes stop it.
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        const now = Date.now();
        crashTimes = crashTimes.filter((t) => now - t < 180_000);
        crashTimes.push(now);
        const file = lastPhFile ? ` while ${vscode.workspace.asRelativePath(lastPhFile)} was open` : '';
        if (crashTimes.length >= 5) {
          void vscode.window.showErrorMessage(`ph-lsp stopped${file}: it crashed 5 times in 3 minutes, so it is not restarted. Use "Ph: Restart Server" when fixed.`);
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        void vscode.window.showWarningMessage(`ph-lsp crashed${file}; restarting it.`);
        output.appendLine(`[${new Date().toISOString()}] ph-lsp exited unexpectedly${file}; restart ${crashTimes.length}`);
        return { action: CloseAction.Restart, handled: true };
      },
    },
    middleware: {
      // Code lenses ("Run on GPU", "Compile", "Show MLIR") and our commands both come here,
      // so every server command gets progress, cancel, and its result displayed.
      executeCommand: (command, args) => runServerCommand(command, args),
      // The server pulls its settings (workspace/configuration, section `ph`): answer with
      // the normalised ones (absolute output folder, no empty driver path).
      workspace: {
        configuration: async (params, token, next) => {
          const r = await next(params, token);
          if (!Array.isArray(r)) return r;
          return params.items.map((item, i) => (item.section === 'ph' ? serverSettings() : r[i]));
        },
      },
    },
  };
  const c = new LanguageClient('ph', 'Ph Language Server', serverOptions, clientOptions);
  c.onNotification('ph/status', (params: any) => showGpuStatus(params));
  return c;
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  client = makeClient(context);
  try {
    await client.start();
  } catch (e) {
    const path = programSetting('server.path', 'ph-lsp');
    const pick = await vscode.window.showErrorMessage(
      `Could not start the Ph language server \`${path}\`: ${e instanceof Error ? e.message : String(e)}`,
      'Open Settings');
    if (pick) await vscode.commands.executeCommand('workbench.action.openSettings', 'ph.server.path');
  }
}

function showGpuStatus(params: any): void {
  const gpu = params?.gpu ?? params;
  const name = typeof gpu === 'string' ? gpu : gpu?.name;
  const arch = gpu?.arch ?? gpu?.architecture ?? params?.arch;
  if (name) {
    gpuItem.text = `$(circuit-board) ${name}${arch ? ' ' + arch : ''}`;
    gpuItem.tooltip = params?.message ?? `Ph runs kernels on ${name}`;
  } else {
    gpuItem.text = '$(circuit-board) no GPU';
    gpuItem.tooltip = params?.message ?? 'No GPU: runs use the CPU target';
  }
  gpuItem.show();
}

// Arguments for a command invoked from the palette: the kernel at the cursor.
function cursorArgs(extra: Record<string, unknown> = {}): unknown[] | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'ph') {
    void vscode.window.showInformationMessage('Open a .ph file and put the cursor in a kernel first.');
    return undefined;
  }
  const p = editor.selection.active;
  const s = serverSettings();
  return [{ uri: editor.document.uri.toString(), position: { line: p.line, character: p.character },
    target: s.target, sizes: s.sizes, ...extra }];
}

function describe(command: string, args: unknown[]): string {
  const a = (args?.[0] ?? {}) as Record<string, any>;
  const what = a.kernel ?? (a.uri ? decodeURIComponent(String(a.uri).split('/').pop() ?? '') : '');
  switch (command) {
    case 'ph.run': return `${a.bench || a.benchmark ? 'Benchmarking' : 'Running'} ${what}`.trim();
    case 'ph.compile': return `Compiling ${what}`.trim();
    case 'ph.showIR': return `IR of ${what}${a.stage ? ' (' + a.stage + ')' : ''}`;
    default: return command;
  }
}

/** Sends workspace/executeCommand with a cancellable progress notification and shows the result. */
async function runServerCommand(command: string, args: unknown[]): Promise<unknown> {
  if (!client || client.state !== State.Running) {
    void vscode.window.showErrorMessage('The Ph language server is not running (see "Ph: Restart Server").');
    return undefined;
  }
  const c = client;
  const title = describe(command, args);
  const token = `ph-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const started = Date.now();
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    async (progress, cancel) => {
      // The server's own $/progress reports (autotuning 3 of 8, ...) update this notification.
      const sub = c.onProgress(WorkDoneProgress.type, token, (p: any) => {
        if (p.kind !== 'end' && (p.message || p.title)) progress.report({ message: p.message ?? p.title });
      });
      const cancelled = () => {
        const secs = ((Date.now() - started) / 1000).toFixed(1);
        output.appendLine(`${title}: cancelled after ${secs} s`);
        statusItem.text = `$(circle-slash) ${title}: cancelled after ${secs} s`;
        statusItem.show();
        return undefined;
      };
      try {
        const r = await c.sendRequest(ExecuteCommandRequest.type,
          { command, arguments: args, workDoneToken: token }, cancel);
        // A cancelled request may resolve (with nothing) rather than reject.
        return cancel.isCancellationRequested ? cancelled() : r;
      } catch (e) {
        if (cancel.isCancellationRequested) return cancelled();
        const msg = e instanceof Error ? e.message : String(e);
        output.appendLine(`${title}: failed: ${msg}`);
        void vscode.window.showErrorMessage(`${title} failed: ${msg}`);
        return undefined;
      } finally {
        sub.dispose();
      }
    });
  if (result === undefined || result === null) return result;
  if (command === 'ph.showIR') await showIr(result, args);
  else showResult(title, result, Date.now() - started);
  return result;
}

function showResult(title: string, result: unknown, ms: number): void {
  const rows = resultRows(result);
  output.appendLine(`── ${title} (${(ms / 1000).toFixed(2)} s) ${new Date().toLocaleTimeString()}`);
  output.append(formatTable(rows));
  const r = result as Record<string, any>;
  for (const key of ['message', 'log', 'ptxas']) if (typeof r?.[key] === 'string') output.appendLine(r[key]);
  // A failed run's reason is on the driver's stderr.
  if (r?.ok === false && typeof r.stderr === 'string' && r.stderr.trim()) output.appendLine(r.stderr.trimEnd());
  output.appendLine('');
  output.show(true);
  const summary = summaryLine(result);
  const failed = rows.some((x) => x.ok === false || (typeof x.error === 'string' && x.error.length > 0));
  statusItem.text = `${failed ? '$(error)' : '$(zap)'} ${summary}`;
  statusItem.tooltip = `${title}: click for the table`;
  statusItem.show();
}

async function showIr(result: unknown, args: unknown[]): Promise<void> {
  const a = (args?.[0] ?? {}) as Record<string, any>;
  const parsed = parseIrResult(result);
  const sourceUri = a.uri ? vscode.Uri.parse(String(a.uri)) : vscode.window.activeTextEditor?.document.uri;
  if (!sourceUri) return;
  const sourceEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === sourceUri.toString());
  await irDocs.show({
    source: sourceUri, stage: parsed.stage ?? a.stage ?? 'tile', kernel: parsed.kernel ?? a.kernel ?? '',
    text: parsed.text, srcLineOfIrLine: parsed.map, request: args,
  }, sourceEditor);
}

async function showIrAtCursor(stage?: string): Promise<void> {
  let chosen = stage;
  if (!chosen) {
    const pick = await vscode.window.showQuickPick(IR_STAGES.map((s) => ({ ...s, description: s.stage })),
      { placeHolder: 'Which stage of the kernel at the cursor?' });
    if (!pick) return;
    chosen = pick.stage;
  }
  const args = cursorArgs({ stage: chosen });
  if (args) await runServerCommand('ph.showIR', args);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Ph');
  statusItem = vscode.window.createStatusBarItem('ph.result', vscode.StatusBarAlignment.Left, 10);
  statusItem.name = 'Ph: last run';
  statusItem.command = 'ph.showOutput';
  gpuItem = vscode.window.createStatusBarItem('ph.gpu', vscode.StatusBarAlignment.Right, 100);
  gpuItem.name = 'Ph: GPU';
  irDocs = new IrDocuments();
  context.subscriptions.push(output, statusItem, gpuItem, irDocs,
    vscode.workspace.registerTextDocumentContentProvider(IR_SCHEME, irDocs));

  const trackFile = (e?: vscode.TextEditor) => { if (e?.document.languageId === 'ph') lastPhFile = e.document.uri.fsPath; };
  trackFile(vscode.window.activeTextEditor);
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(trackFile));

  context.subscriptions.push(
    vscode.commands.registerCommand('ph.runKernel', async () => {
      const args = cursorArgs();
      if (args) await runServerCommand('ph.run', args);
    }),
    vscode.commands.registerCommand('ph.benchmarkKernel', async () => {
      const args = cursorArgs({ bench: true });
      if (args) await runServerCommand('ph.run', args);
    }),
    vscode.commands.registerCommand('ph.compileFile', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'ph') return;
      if (editor.document.isDirty) await editor.document.save();
      const s = serverSettings();
      // A cubin is for a GPU whatever the run target is: 'gpu' lets `ph build` pick the arch.
      await runServerCommand('ph.compile', [{ uri: editor.document.uri.toString(), outputDir: s.outputDir, target: 'gpu' }]);
    }),
    vscode.commands.registerCommand('ph.showIRAtCursor', (stage?: string) => showIrAtCursor(stage)),
    vscode.commands.registerCommand('ph.restartServer', async () => {
      crashTimes = [];
      if (client && client.state !== State.Stopped) {
        await client.restart();
      } else {
        await startClient(context);
      }
      output.appendLine(`[${new Date().toISOString()}] ph-lsp restarted`);
    }),
    vscode.commands.registerCommand('ph.showOutput', () => output.show(true)),
    // Refresh open IR views of a file when it is saved.
    vscode.workspace.onDidSaveTextDocument(async (doc) => {
      if (doc.languageId !== 'ph' || !client || client.state !== State.Running) return;
      for (const view of irDocs.viewsOf(doc.uri)) {
        try {
          const r = await client.sendRequest(ExecuteCommandRequest.type, { command: 'ph.showIR', arguments: view.request });
          if (r) await showIr(r, view.request as unknown[]);
        } catch { /* the diagnostics say why */ }
      }
    }),
    // A changed server path needs a new process; everything else the server takes live.
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      // The server takes `ph.path` only at start (initializationOptions), never from a workspace.
      if ((e.affectsConfiguration('ph.server.path') || e.affectsConfiguration('ph.path')) && client) {
        await client.stop().catch(() => undefined);
        await startClient(context);
      }
    }),
  );
  // The client forwards `ph` settings on change (workspace/didChangeConfiguration).
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('ph') && client?.state === State.Running) {
      void client.sendNotification('workspace/didChangeConfiguration', { settings: { ph: serverSettings() } });
    }
  }));
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}

export const _testing = { SERVER_COMMANDS };
