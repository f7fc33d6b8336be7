// ph-lsp driven by vscode-jsonrpc and vscode-languageserver-protocol, the
// libraries VS Code's language client is built on: their framing, typed
// requests, cancellation tokens and progress handling against the real server.
//   PH_LSP=build/bin/ph-lsp PH_SRC=. node tests/clients/jsonrpc/client_test.js
'use strict';
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const rpc = require('vscode-jsonrpc/node');
const proto = require('vscode-languageserver-protocol');

let passes = 0, failures = 0;
const t0 = Date.now();
function check(cond, what) {
  if (cond) passes++; else failures++;
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what} (${Date.now() - t0} ms)`);
}

async function main() {
  const lsp = process.env.PH_LSP, src = process.env.PH_SRC;
  if (!lsp || !src) throw new Error('set PH_LSP and PH_SRC');

  // A stand-in driver that runs until killed: the cancellation target.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ph-lsp-node-'));
  const slow = path.join(tmp, 'slow-ph');
  fs.writeFileSync(slow, '#!/bin/sh\nsleep 30\n', { mode: 0o755 });

  const text = fs.readFileSync(path.join(src, 'examples/causal_attention.ph'), 'utf8')
    .replace('var s: tile<f32>[BR, BC] = dot_t(q, k)', 'var s: tile<f32>[BR, BC] = dot(q, k)');
  const file = path.join(tmp, 'causal_attention.ph');
  fs.writeFileSync(file, text);
  const uri = 'file://' + file;

  const child = cp.spawn(lsp, ['--no-gpu-detect'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise(res => child.on('exit', code => res(code)));
  const conn = proto.createProtocolConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const progress = [];
  conn.onRequest(proto.WorkDoneProgressCreateRequest.type, () => null);
  conn.onNotification('$/progress', p => progress.push(p));
  const diagnostics = new Promise(res => conn.onNotification(proto.PublishDiagnosticsNotification.type, p => {
    if (p.uri === uri) res(p);
  }));
  conn.listen();

  const init = await conn.sendRequest(proto.InitializeRequest.type, {
    processId: process.pid, rootUri: 'file://' + tmp, workspaceFolders: null,
    capabilities: {
      window: { workDoneProgress: true },
      textDocument: { completion: { completionItem: { snippetSupport: true } }, hover: { contentFormat: ['markdown'] } },
    },
    initializationOptions: { ph: { path: slow } },
  });
  check(init.serverInfo.name === 'ph-lsp', 'initialize: serverInfo');
  check(init.capabilities.textDocumentSync.change === proto.TextDocumentSyncKind.Incremental, 'incremental sync');
  conn.sendNotification(proto.InitializedNotification.type, {});
  conn.sendNotification(proto.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'ph', version: 1, text } });

  const d = await diagnostics;
  const dot = d.diagnostics.find(x => x.code === 'E0302');
  check(d.version === 1 && dot !== undefined, 'publishDiagnostics has the `dot` shape error E0302');
  check(dot && dot.relatedInformation && dot.relatedInformation[0].message.includes('dot_t'), 'its note is relatedInformation');

  const actions = await conn.sendRequest(proto.CodeActionRequest.type, {
    textDocument: { uri }, range: dot.range, context: { diagnostics: [dot] } });
  const fix = actions.find(a => a.title === 'use `dot_t`');
  check(fix && fix.edit.changes[uri][0].newText === 'dot_t', 'quick fix replaces `dot` with `dot_t`');

  const callLine = text.split('\n').findIndex(l => l.includes('online_softmax('));
  const hover = await conn.sendRequest(proto.HoverRequest.type, { textDocument: { uri }, position: { line: callLine, character: 8 } });
  check(hover && hover.contents.value.includes('fn online_softmax(acc, m, l, s, v)'), 'hover on online_softmax: signature');
  check(hover && hover.contents.value.includes('std/attention.ph:12'), 'hover on online_softmax: source link');

  const completion = await conn.sendRequest(proto.CompletionRequest.type, { textDocument: { uri }, position: { line: callLine, character: 4 } });
  const items = Array.isArray(completion) ? completion : completion.items;
  const os_ = items.find(i => i.label === 'online_softmax');
  check(os_ && os_.insertTextFormat === proto.InsertTextFormat.Snippet, 'completion offers online_softmax as a snippet');

  const tokens = await conn.sendRequest(proto.SemanticTokensRequest.type, { textDocument: { uri } });
  check(tokens.data.length > 0 && tokens.data.length % 5 === 0, 'semantic tokens');

  // Cancellation through a CancellationToken: the long job is killed and the
  // request rejected with RequestCancelled.
  const source = new rpc.CancellationTokenSource();
  const started = Date.now();
  const run = conn.sendRequest(proto.ExecuteCommandRequest.type,
    { command: 'ph.compile', arguments: [{ uri, kernel: 'causal_attention' }] }, source.token);
  while (!progress.some(p => p.value.kind === 'begin') && Date.now() - started < 5000) await new Promise(r => setTimeout(r, 10));
  check(progress.some(p => p.value.kind === 'begin' && p.value.cancellable), '$/progress begin, cancellable');
  source.cancel();
  let code = null;
  try { await run; } catch (e) { code = e.code; }
  check(code === rpc.ErrorCodes.RequestCancelled || code === proto.LSPErrorCodes.RequestCancelled, `cancelled (code ${code}) in ${Date.now() - started} ms`);

  // An unknown method is MethodNotFound, and the connection carries on.
  let unknown = null;
  try { await conn.sendRequest('ph/noSuchMethod', {}); } catch (e) { unknown = e.code; }
  check(unknown === rpc.ErrorCodes.MethodNotFound, 'unknown method: MethodNotFound');

  await conn.sendRequest(proto.ShutdownRequest.type);
  conn.sendNotification(proto.ExitNotification.type);
  const guard = setTimeout(() => child.kill(), 5000);
  guard.unref();
  check((await exited) === 0, 'server exits with 0 after shutdown + exit');
  conn.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch(e => { failures++; console.log('ERROR ' + (e && e.stack || e)); }).finally(() => {
  console.log(`${passes} passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
});
