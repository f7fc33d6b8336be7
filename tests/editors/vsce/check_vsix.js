// check_vsix.js - checks an unpacked .vsix (argv[2]) and the result-table renderer.
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
const dir = process.argv[2];
let passes = 0, failures = 0;
function check(cond, what) { cond ? passes++ : failures++; console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); }

const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'extension', 'package.json'), 'utf8'));
check(JSON.stringify(pkg.activationEvents) === '["onLanguage:ph"]', 'activationEvents is ["onLanguage:ph"]');
check(pkg.main === './out/extension.js' && fs.existsSync(path.join(dir, 'extension', 'out', 'extension.js')), 'main bundle is packaged');
const lang = (pkg.contributes.languages || []).find((l) => l.id === 'ph');
check(lang && lang.extensions.includes('.ph'), 'contributes the ph language for .ph');
check(lang && fs.existsSync(path.join(dir, 'extension', lang.configuration)), 'language configuration is packaged');
const gr = (pkg.contributes.grammars || []).find((g) => g.scopeName === 'source.ph');
check(gr && JSON.parse(fs.readFileSync(path.join(dir, 'extension', gr.path), 'utf8')).scopeName === 'source.ph', 'grammar source.ph is packaged');
const sn = (pkg.contributes.snippets || [])[0];
const snippets = sn && JSON.parse(fs.readFileSync(path.join(dir, 'extension', sn.path), 'utf8'));
check(snippets && ['kernel', 'fn', 'flash attention loop'].every((k) => k in snippets), 'snippets kernel, fn and the flash-attention loop');
const cmds = pkg.contributes.commands.map((c) => c.command);
for (const c of ['ph.runKernel', 'ph.benchmarkKernel', 'ph.compileFile', 'ph.showIRAtCursor', 'ph.restartServer'])
  check(cmds.includes(c), `command ${c}`);
// The server's own commands are registered by the language client; declaring them too would clash.
check(!cmds.some((c) => ['ph.run', 'ph.compile', 'ph.showIR'].includes(c)), 'server command ids are not redeclared');
const props = pkg.contributes.configuration.properties;
const bundle0 = () => fs.readFileSync(path.join(dir, 'extension', 'out', 'extension.js'), 'utf8');
check(props['ph.server.path'] && props['ph.server.path'].default === 'ph-lsp', 'setting ph.server.path defaults to ph-lsp');
check(props['ph.path'] && props['ph.path'].default === '', 'setting ph.path (the ph driver) defaults to empty: found by the server');
// Settings that name a program to run cannot come from a workspace (a cloned repository's settings).
// `application`, not `machine`: both keep them out of workspace settings, but a remote or browser
// window (code-server) hides a machine-scoped setting from the User settings (issue 19).
for (const s of ['ph.server.path', 'ph.path']) check(props[s] && props[s].scope === 'application', `setting ${s} is application-scoped (user settings only, also in a remote window)`);
check(bundle0().includes('globalValue'), 'the extension reads program paths from user settings only (inspect().globalValue)');
for (const s of ['ph.target', 'ph.compileOnSave', 'ph.outputDir', 'ph.sizes', 'ph.trace.server']) check(s in props, `setting ${s}`);
check(!fs.existsSync(path.join(dir, 'extension', 'node_modules')), 'no node_modules in the package');
const bundle = fs.readFileSync(path.join(dir, 'extension', 'out', 'extension.js'), 'utf8');
check(bundle.includes('workspace/executeCommand') && bundle.includes('ph/status'), 'bundle holds the language client and ph/status');
const [major, minor] = pkg.engines.vscode.replace(/^\^/, '').split('.').map(Number);
check(major === 1 && minor <= 100, `engines.vscode ${pkg.engines.vscode} accepts Code 1.100 (code-server 4.100.3)`);

// The result table renderer, bundled on the fly from its TypeScript source.
const ext = path.resolve(__dirname, '..', '..', '..', 'vscode-extension');
const esbuild = createRequire(path.join(ext, 'package.json'))('esbuild');
const out = path.join(dir, 'results.js');
esbuild.buildSync({ entryPoints: [path.join(ext, 'src', 'results.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'error' });
const { formatTable, resultHeader, resultRows, summaryLine } = require(out);
// Shapes: a list of variants, and what ph-lsp returns for ph.run (`ph run --json` in `result`).
const result = { kernel: 'flash_attention', target: 'cpu', variants: [
  { config: { BR: 64, BC: 32 }, time_ms: 1.25, tflops: 12.5, maxError: 0.00012 },
  { config: { BR: 64, BC: 64 }, time_ms: 0.98765, tflops: 15.9, maxError: 0.0001 }] };
const table = formatTable(resultRows(result)).split('\n');
check(/^kernel\s+\| config\s+\| target \| time_ms \| tflops \| maxError$/.test(table[0]), `table header: ${table[0]}`);
check(table[2].includes('flash_attention') && table[2].includes('BR=64 BC=32') && table[2].includes('1.250'), `table row: ${table[2]}`);
check(table.length === 5 && table[4] === '', 'one line per variant');
check(summaryLine(result) === 'flash_attention on cpu: 0.9877 ms 15.900 TFLOP/s err 1.000e-4', `status summary: ${summaryLine(result)}`);
const served = { ok: true, kernel: 'causal_attention', target: 'interp', exitCode: 0, summary: 'causal_attention on interp: 0.544 ms',
  result: { analyze_ms: 0.5, check: { outputs: [{ dtype: 'f32', max_abs_err: 2e-7, name: 'O', passed: true }], passed: true, reference: 'interp' },
    compile_ms: 0, config: 'D=64,BR=32,BC=32', grid: [2, 1, 1], kernel: 'causal_attention', outputs: [], scalars: { scale: 0.125 },
    seed: 0, sizes: { N: 64 }, target: 'interp', threads: 128, time_ms: 0.544199 } };
const t2 = formatTable(resultRows(served)).split('\n');
check(/^kernel\s+\| config\s+\| target \| sizes \| grid\s+\| time_ms \| check\s+\| max_abs_err \| ok$/.test(t2[0]), `ph.run table header: ${t2[0]}`);
check(t2[2].includes('D=64,BR=32,BC=32') && t2[2].includes('N=64') && t2[2].includes('2,1,1') && t2[2].includes('passed') && t2[2].includes('2.000e-7'),
  `ph.run table row: ${t2[2]}`);
check(!t2[0].includes('scalars') && !t2[0].includes('exitCode') && !t2[0].includes('summary'), 'plumbing keys are left out');
check(summaryLine(served) === 'causal_attention on interp: 0.5442 ms check passed', `ph.run status summary: ${summaryLine(served)}`);
check(summaryLine({ ok: false, kernel: 'k', error: 'no GPU: no CUDA driver', summary: 'x' }) === 'k: no GPU: no CUDA driver', 'an error is the status text');
check(summaryLine({ summary: 'no GPU: ran on the CPU' }) === 'no GPU: ran on the CPU', 'the server summary when the rows say nothing');
const compiled = { ok: true, outputDir: '/w/.ph-build', kernel: 'causal_attention', stdout: 'x', stderr: '',
  figures: { causal_attention: '48 registers, 54400 B shared, 4 CTAs/SM (shared memory)' } };
const t3 = formatTable(resultRows(compiled)).split('\n');
check(/^kernel\s+\| ptxas\s+\| ok$/.test(t3[0]) && t3[2].includes('48 registers') && !t3[2].includes('/w/.ph-build'),
  `ph.compile table (the output folder goes in the header): ${t3[0]} / ${t3[2]}`);
check(formatTable(resultRows(null)) === '(no result)\n', 'empty result');
// The header says where it ran and which sizes were the server's defaults.
const defaulted = { ok: true, kernel: 'flash_attention', target: 'cpu', defaultSizes: ['Nq', 'Nk'],
  result: { sizes: { Nq: 1024, Nk: 1024 }, target: 'cpu', time_ms: 3.5 } };
const h = resultHeader('Running flash_attention', defaulted, 1234);
check(h === "── Running flash_attention on cpu sizes Nq=1024* Nk=1024* (* the server's default: see ph.sizes) (1.23 s)", `results header: ${h}`);
check(resultHeader('Compiling x', compiled, 10, (p) => p.replace('/w/', '')) === '── Compiling x → .ph-build (0.01 s)', 'the compile header names the output folder');
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
