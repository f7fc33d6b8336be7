// extension.ts - the Ph extension: a thin client that starts ph-lsp over stdio and turns its
// commands (ph.run, ph.compile, ph.showIR) into tables, a status bar item, progress with
// cancel, and IR views beside the source.
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, ExecuteCommandRequest, LanguageClient, LanguageClientOptions,
  RevealOutputChannelOn, ServerOptions, State, WorkDoneProgress,
} from 'vscode-languageclient/node';
import { IR_SCHEME, IrDocuments, parseIrResult } from './ir';
import { formatTable, resultHeader, resultRows, summaryLine } from './results';

const SERVER_COMMANDS = ['ph.run', 'ph.compile', 'ph.showIR'];
const IR_STAGES: { label: string; stage: string; detail: string }[] = [
  { label: 'Tile dialect', stage: 'tile', detail: 'target-independent MLIR' },
  { label: 'GPU MLIR', stage: 'gpu', detail: 'after the tensor-core or SIMT lowering' },
  { label: 'LLVM IR', stage: 'llvm', detail: 'NVVM' },
  { label: 'PTX', stage: 'ptx', detail: 'from the NVPTX backend' },
  { label: 'SASS', stage: 'sass', detail: 'cuobjdump of the cubin (needs cuobjdump)' },
];

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;       // "Ph": run, benchmark and compile results
let serverOutput: vscode.OutputChannel; // "Ph Language Server": one channel for every client started
let startedCommand: string | undefined; // the ph-lsp the running client was started with
let restarting: Promise<void> | undefined;
let warnedWorkspace = false;
let statusItem: vscode.StatusBarItem; // last run's result
let gpuItem: vscode.StatusBarItem;    // ph/status: which GPU runs will use
let irDocs: IrDocuments;
let lastPhFile: string | undefined;   // the .ph file in view, named when the server crashes
let crashTimes: number[] = [];

function config() { return vscode.workspace.getConfiguration('ph'); }

/** A program path from user settings only: a cloned workspace must not choose what the editor
 * executes (the server refuses `ph.path` from workspace settings for the same reason). A
 * workspace's value is named once in a warning. Both settings are `application`-scoped, so a
 * remote or browser window (code-server) applies the User value instead of greying it out. */
function userSetting(key: string, fallback: string): string {
  const i = config().inspect<string>(key);
  if (!warnedWorkspace && (i?.workspaceValue || i?.workspaceFolderValue)) {
    warnedWorkspace = true;
    void vscode.window.showWarningMessage(`\`ph.${key}\` is taken from user settings only; the workspace's value \`${i.workspaceValue ?? i.workspaceFolderValue}\` is ignored.`);
  }
  return (i?.globalValue ?? '') || fallback;
}
function serverCommand(): string { return userSetting('server.path', 'ph-lsp'); }

// The settings the server reads (workspace/didChangeConfiguration under `ph`, and
// initializationOptions), with the output folder made absolute against the workspace.
// `ph.path` goes only in initializationOptions (`withDriver`), which the server takes as the
// user's; changing it restarts the server.
function serverSettings(withDriver = false) {
  const c = config();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  let outputDir = c.get<string>('outputDir', '.ph-build');
  if (folder && !outputDir.startsWith('/')) outputDir = `${folder}/${outputDir}`;
  const driver = withDriver ? userSetting('path', '') : '';
  return {
    ...(driver ? { path: driver } : {}), // the `ph` driver; empty: the server finds it
    target: c.get<string>('target', 'auto'),
    noGpu: c.get<string>('noGpuFallback', 'ask'),
    outputDir,
    compileOnSave: c.get<boolean>('compileOnSave', true),
    sizes: c.get<Record<string, number>>('sizes', {}),
    trace: c.get<string>('trace.server', 'off'),
  };
}

// When each document last changed and why it was last saved: compile on save after an
// automatic save waits for the typing to stop (ph.compileOnSaveDelay).
const lastChange = new Map<string, number>();
const saveReason = new Map<string, vscode.TextDocumentSaveReason>();
const pendingSave = new Map<string, NodeJS.Timeout>();

function makeClient(context: vscode.ExtensionContext, command: string): LanguageClient {
  const serverOptions: ServerOptions = { command, args: [], options: { env: { ...process.env } } };
  const clientOptions: LanguageClientOptions = {
    // Files and unsaved buffers; IR views and read-only std copies (other schemes) are not sent.
    documentSelector: [{ language: 'ph', scheme: 'file' }, { language: 'ph', scheme: 'untitled' }],
    initializationOptions: serverSettings(true),
    outputChannel: serverOutput,
    traceOutputChannel: serverOutput,
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
      // The server compiles on didSave. A save by hand is sent at once; an automatic save
      // (files.autoSave) only once the document has been left alone for the delay, and not at
      // all when typing resumed meanwhile: the save that ends the typing compiles.
      didSave: async (doc, next) => {
        const key = doc.uri.toString();
        const delay = config().get<number>('compileOnSaveDelay', 1500);
        const reason = saveReason.get(key) ?? vscode.TextDocumentSaveReason.Manual;
        clearTimeout(pendingSave.get(key));
        pendingSave.delete(key);
        if (reason === vscode.TextDocumentSaveReason.Manual || delay <= 0) return next(doc);
        const savedAt = Date.now();
        pendingSave.set(key, setTimeout(() => {
          pendingSave.delete(key);
          if ((lastChange.get(key) ?? 0) > savedAt) {
            output.appendLine(`[${new Date().toLocaleTimeString()}] compile on save skipped: ${vscode.workspace.asRelativePath(doc.uri)} changed after its auto save`);
            return;
          }
          void next(doc);
        }, delay));
      },
      // Definitions in the standard library open read-only.
      provideDefinition: async (doc, pos, token, next) => readOnlyOutside(await next(doc, pos, token)),
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
  // Compile on save finished: a line in the Ph output and the status bar (short).
  c.onNotification('ph/compiled', (p: any) => {
    const msg = String(p?.message ?? 'compiled');
    output.appendLine(`[${new Date().toLocaleTimeString()}] compile on save: ${msg}`);
    statusItem.text = `${p?.ok ? '$(check)' : '$(error)'} ${msg.split(';')[0]}`;
    statusItem.tooltip = msg.split('; ').join('\n');
    statusItem.show();
  });
  return c;
}

async function startClient(context: vscode.ExtensionContext): Promise<boolean> {
  const command = serverCommand();
  startedCommand = command;
  client = makeClient(context, command);
  try {
    await client.start();
    return true;
  } catch (e) {
    const pick = await vscode.window.showErrorMessage(
      `Could not start the Ph language server \`${command}\`: ${e instanceof Error ? e.message : String(e)}. ` +
      'Set `ph.server.path` in your User settings to the path of build/bin/ph-lsp, then run "Ph: Restart Server".',
      'Open User Settings');
    if (pick) await vscode.commands.executeCommand('workbench.action.openSettings', 'ph.server.path');
    return false;
  }
}

/** Stops the client (if any) and starts a new one with the current server path, once: a
 * request while a restart is under way joins it. The notification says what happened. */
function restartServer(context: vscode.ExtensionContext, why: string): Promise<void> {
  if (restarting) return restarting;
  restarting = (async () => {
    crashTimes = [];
    const ok = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Ph: restarting the language server (${why})` },
      async () => {
        const old = client;
        client = undefined;
        if (old) await old.dispose(3000).catch(() => undefined); // stop + dispose; our channels stay
        return startClient(context);
      });
    const line = `[${new Date().toISOString()}] ph-lsp restarted (${why}): ${startedCommand}`;
    serverOutput.appendLine(line);
    if (ok) void vscode.window.showInformationMessage(`Ph language server restarted: ${startedCommand}`);
  })().finally(() => { restarting = undefined; });
  return restarting;
}

// A jump into the standard library (`.../std/NAME.ph`) shows it through a read-only provider
// instead of as an editable file: its functions are the language's, edited on purpose only.
export const STD_SCHEME = 'ph-std';
function isStdFile(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' && /\/std\/[^/]+\.ph$/.test(uri.path);
}
function readOnlyUri(uri: vscode.Uri): vscode.Uri {
  return isStdFile(uri) ? uri.with({ scheme: STD_SCHEME }) : uri;
}
function readOnlyOutside(r: vscode.Definition | vscode.LocationLink[] | undefined | null) {
  if (!r) return r;
  const one = (x: vscode.Location | vscode.LocationLink): vscode.Location | vscode.LocationLink =>
    'targetUri' in x ? { ...x, targetUri: readOnlyUri(x.targetUri) } : new vscode.Location(readOnlyUri(x.uri), x.range);
  return Array.isArray(r) ? (r as (vscode.Location | vscode.LocationLink)[]).map(one) as vscode.Location[] : one(r as vscode.Location) as vscode.Location;
}
class StdFiles implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const bytes = await vscode.workspace.fs.readFile(uri.with({ scheme: 'file' }));
    return new TextDecoder().decode(bytes);
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
    target: s.target, sizes: s.sizes, noGpu: s.noGpu, ...extra }];
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
  if (command === 'ph.run') {
    // Lenses carry only the kernel: the run settings come from here.
    const a = { ...((args?.[0] ?? {}) as Record<string, unknown>) };
    a.noGpu ??= config().get<string>('noGpuFallback', 'ask');
    args = [a, ...(args ?? []).slice(1)];
  }
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
  const offer = (result as Record<string, any>)?.offer;
  if (command === 'ph.run' && (result as Record<string, any>).ok === false && offer?.command === 'ph.run') {
    // No GPU: offer the CPU target; "Always on CPU" is remembered in ph.noGpuFallback.
    const r = result as Record<string, any>;
    output.appendLine(`${title}: ${r.error ?? 'no GPU'}`);
    const pick = await vscode.window.showWarningMessage(
      `${r.error ?? 'No GPU'}. Run ${r.kernel ?? 'the kernel'} on the CPU target instead?`, 'Run on CPU', 'Always on CPU');
    if (!pick) return result;
    if (pick === 'Always on CPU') await config().update('noGpuFallback', 'cpu', vscode.ConfigurationTarget.Global);
    return runServerCommand('ph.run', offer.arguments ?? []);
  }
  if (command === 'ph.showIR') await showIr(result, args);
  else showResult(title, result, Date.now() - started);
  return result;
}

function showResult(title: string, result: unknown, ms: number): void {
  const rows = resultRows(result);
  output.appendLine(resultHeader(title, result, ms, (p) => vscode.workspace.asRelativePath(p)));
  output.append(formatTable(rows));
  const r = result as Record<string, any>;
  for (const key of ['message', 'log', 'ptxas']) if (typeof r?.[key] === 'string') output.appendLine(r[key]);
  // A failed run's reason is on the driver's stderr.
  if (r?.ok === false && typeof r.stderr === 'string' && r.stderr.trim()) output.appendLine(r.stderr.trimEnd());
  output.appendLine('');
  output.show(true);
  // A failed run or benchmark: one error message, naming the driver's command (the
  // server's summary), besides the output above.
  if (r?.ok === false && typeof r.summary === 'string') void vscode.window.showErrorMessage(r.summary);
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
  serverOutput = vscode.window.createOutputChannel('Ph Language Server');
  statusItem = vscode.window.createStatusBarItem('ph.result', vscode.StatusBarAlignment.Left, 10);
  statusItem.name = 'Ph: last run';
  statusItem.command = 'ph.showOutput';
  gpuItem = vscode.window.createStatusBarItem('ph.gpu', vscode.StatusBarAlignment.Right, 100);
  gpuItem.name = 'Ph: GPU';
  irDocs = new IrDocuments();
  context.subscriptions.push(output, serverOutput, statusItem, gpuItem, irDocs,
    vscode.workspace.registerTextDocumentContentProvider(IR_SCHEME, irDocs),
    vscode.workspace.registerTextDocumentContentProvider(STD_SCHEME, new StdFiles()),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.languageId === 'ph' && e.contentChanges.length) lastChange.set(e.document.uri.toString(), Date.now());
    }),
    vscode.workspace.onWillSaveTextDocument((e) => {
      if (e.document.languageId === 'ph') saveReason.set(e.document.uri.toString(), e.reason);
    }));

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
    vscode.commands.registerCommand('ph.restartServer', () => restartServer(context, 'Ph: Restart Server')),
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
    // A changed server or driver path needs a new process (once, and only when the path the
    // server runs with really changed); everything else the server takes live.
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('ph.server.path') && serverCommand() !== startedCommand) {
        await restartServer(context, '`ph.server.path` changed');
      } else if (e.affectsConfiguration('ph.path')) {
        await restartServer(context, '`ph.path` changed');
      } else if (e.affectsConfiguration('ph') && client?.state === State.Running) {
        void client.sendNotification('workspace/didChangeConfiguration', { settings: { ph: serverSettings() } });
      }
    }),
  );
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}

export const _testing = { SERVER_COMMANDS };
