// e2e_test.js - drives code-server's workbench in headless Chromium (playwright-core): the Ph
// extension activates on a .ph file, colours it, shows the squiggle and hover docs from
// ph-lsp, the "Run on GPU" lens is there and runs (CPU target), and a screenshot is saved.
// Started by run.sh, which sets PH_E2E_URL and PH_E2E_OUT.
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
const req = createRequire(path.resolve(__dirname, '../../../vscode-extension/package.json'));
const { chromium } = req('playwright-core');

const url = process.env.PH_E2E_URL;
const out = process.env.PH_E2E_OUT || '/tmp';
const t0 = Date.now();
let passes = 0, failures = 0;
function check(cond, what) {
  cond ? passes++ : failures++;
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return cond;
}
async function attempt(what, fn) {
  try { return check(await fn(), what); } catch (e) { return check(false, `${what}: ${e.message.split('\n')[0]}`); }
}

const cp = require('child_process');
const ws = process.env.PH_E2E_WS;
const lspPids = () => cp.execFileSync('ps', ['-eo', 'pid=,args=']).toString().split('\n')
  .filter((l) => l.includes(process.env.PH_E2E_LSP)).map((l) => parseInt(l.trim(), 10));
const toastText = (page, re) => page.locator('.notifications-toasts .notification-list-item-message', { hasText: re }).first();
const lensTexts = async (page) => (await page.locator('.contentWidgets .codelens-decoration').allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' '));
const outputLines = async (page) => (await page.locator('.panel .output-view .view-line, .panel .view-line').allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' '));
// Runs a command from the palette: typed only once the palette has the keyboard (keys typed
// before land in the editor), the row that names it clicked (Enter takes the first row).
async function palette(page, title, item = title) {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget .quick-input-box input').waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(title);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: item }).first();
  await row.waitFor({ timeout: 10000 });
  await row.click();
}
// Waits for one of `ok` (a locator) or an error toast matching `bad`; throws with its text.
async function raceToast(page, ok, bad, timeout) {
  const toast = toastText(page, bad);
  const failed = toast.waitFor({ timeout }).then(async () => { throw new Error('error notification: ' + (await toast.innerText())); });
  try { await Promise.race([ok.waitFor({ timeout }), failed]); } finally { failed.catch(() => {}); }
}
// Closes the notifications shown, as a user would from the palette. (Clicking their close
// buttons did nothing: a toast shows them only under the mouse, so each click waited its 30 s
// and gave up, and the step after a restart took a minute with the crash toast still up.)
async function dismissToasts(page) {
  if (await page.locator('.notifications-toasts .notification-toast').count() === 0) return;
  await palette(page, 'Notifications: Clear All Notifications');
  await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
}

async function openFile(page, name) {
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
  await page.locator(`.tabs-container .tab.active`, { hasText: name }).waitFor({ timeout: 30000 });
  await page.waitForSelector('.monaco-editor .view-lines', { timeout: 30000 });
}

function writeWorkspaceSettings(obj) {
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify(obj));
}

(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  // The workbench's console, for debugging a failure (with PH_E2E_KEEP=1 in run.sh).
  const consoleLog = fs.createWriteStream(path.join(out, 'console.log'));
  page.on('console', (m) => consoleLog.write(`${new Date().toISOString()} ${m.type()} ${m.text().slice(0, 400)}\n`));
  try {
    await page.goto(url);
    await attempt('workbench loaded', async () => { await page.waitForSelector('.monaco-workbench', { timeout: 90000 }); return true; });
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });

    // 0. A remote/browser window: `ph.server.path` can be set in the User settings (it is
    // application-scoped; a machine-scoped one is hidden there, and the server never starts).
    await attempt('Settings (User tab) offers "Ph › Server: Path" in this browser window', async () => {
      await page.keyboard.press('Control+Comma');
      await page.locator('.settings-editor .suggest-input-container').first().click({ timeout: 20000 });
      await page.keyboard.type('@ext:ph-lang.ph-lang server path');
      const row = page.locator('.settings-editor .setting-item-contents', { hasText: 'Server: Path' }).first();
      await row.waitFor({ timeout: 20000 });
      const text = await row.innerText();
      await page.screenshot({ path: path.join(out, 'vscode-settings.png') });
      await page.keyboard.press('Control+w');
      return !/cannot be applied in this window/.test(text);
    });

    // 1. A file with an error: language mode, colouring, the squiggle at line 21.
    await openFile(page, 'bad_attention.ph');
    await attempt('language mode is Ph', async () => {
      const mode = page.locator('#status\\.editor\\.mode', { hasText: /^\s*Ph\s*$/ });
      await mode.waitFor({ timeout: 30000 });
      return true;
    });
    await attempt('TextMate colouring: `kernel`, `-1.0e30` and `rowmx` have distinct colours', async () => {
      const cls = async (text) => page.locator('.view-line span span', { hasText: new RegExp(`^${text}$`) }).first().getAttribute('class');
      const kernel = await cls('kernel'), num = await cls('-1\\.0e30'), plain = await cls('rowmx');
      console.log(`     classes: kernel=${kernel} -1.0e30=${num} rowmx=${plain}`);
      return kernel && num && plain && kernel !== plain && num !== plain && kernel !== num;
    });
    await attempt('the extension activated and ph-lsp put a squiggle on `rowmx`', async () => {
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60000 });
      return true;
    });
    await attempt('the squiggle is on line 21 (hover shows the diagnostic)', async () => {
      const word = page.locator('.view-line span span', { hasText: /^rowmx$/ }).first();
      await word.hover();
      const hover = page.locator('.monaco-hover-content', { hasText: 'rowmx' }).first();
      await hover.waitFor({ timeout: 20000 });
      console.log(`     hover: ${(await hover.innerText()).split('\n').slice(0, 2).join(' | ')}`);
      await page.keyboard.press('Escape');
      await page.mouse.move(0, 0);
      // The word's line number, measured in one go (code lenses arriving shift the lines).
      const line = await page.evaluate(() => {
        const span = [...document.querySelectorAll('.view-line span span')].find((e) => e.textContent === 'rowmx');
        if (!span) return '?';
        const y = span.getBoundingClientRect().y;
        let best = null;
        for (const n of document.querySelectorAll('.margin-view-overlays .line-numbers')) {
          const d = Math.abs(n.getBoundingClientRect().y - y);
          if (!best || d < best.d) best = { d, t: n.textContent.trim() };
        }
        return best ? best.t : '?';
      });
      console.log(`     line of rowmx: ${line}`);
      return line === '21';
    });
    await attempt('the Problems count in the status bar is non-zero', async () => {
      const t = await page.locator('#status\\.problems').innerText();
      return /[1-9]/.test(t.split('\n')[0] || t);
    });

    // 2. A correct file: hover docs of online_softmax, the "Run on GPU" lens, and running it.
    await openFile(page, 'causal_attention.ph');
    await attempt('hover on online_softmax shows its documentation from std/attention.ph', async () => {
      const word = page.locator('.view-line span span', { hasText: /^online_softmax$/ }).first();
      await word.waitFor({ timeout: 20000 });
      for (let i = 0; i < 3; i++) {
        await page.mouse.move(0, 0);
        await word.hover();
        const h = page.locator('.monaco-hover-content', { hasText: 'online softmax' }).first();
        try { await h.waitFor({ timeout: 10000 }); console.log(`     hover: ${(await h.innerText()).split('\n')[0]}`); return true; } catch { /* retry */ }
      }
      return false;
    });
    await page.screenshot({ path: path.join(out, 'vscode-hover.png') });
    await page.mouse.move(0, 0);
    await page.keyboard.press('Escape');
    const lens = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run on CPU' }).first();
    await attempt('the lenses read "▶ Run on CPU | Benchmark | Compile | Show MLIR" (ph.target cpu), each inside the editor', async () => {
      await lens.waitFor({ timeout: 60000 });
      const all = await lensTexts(page);
      console.log(`     lenses: ${all.join(' / ')}`);
      const editor = await page.locator('.editor-group-container').first().locator('.monaco-editor').first().boundingBox();
      const boxes = await page.locator('.contentWidgets .codelens-decoration a').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
      const inside = boxes.every((r) => r <= editor.x + editor.width);
      const actions = all.find((t) => t.includes('Run on CPU')) || '';
      return inside && /Benchmark/.test(actions) && /Compile/.test(actions) && /Show MLIR/.test(actions) && !all.some((t) => t.includes('Run on GPU'));
    });
    await page.screenshot({ path: path.join(out, 'vscode.png') });
    await attempt('clicking "▶ Run on CPU" prints a result table in the Ph output', async () => {
      await lens.click();
      const table = page.locator('.monaco-editor .view-line', { hasText: /causal_attention/ }).last();
      const header = page.locator('.output-view, .panel').locator('.view-line', { hasText: /^kernel\s+\|/ }).first();
      // Either the table arrives or an error notification says why not (fail fast then).
      await raceToast(page, header, /failed|cannot|error/i, 180000);
      console.log(`     ${(await header.innerText()).trim()}`);
      console.log(`     ${(await table.innerText()).trim()}`);
      const item = page.locator('.statusbar-item', { hasText: /causal_attention on cpu: .* ms check passed/ }).first();
      await item.waitFor({ timeout: 10000 });
      console.log(`     status bar: ${(await item.innerText()).trim()}`);
      return true;
    });
    await page.screenshot({ path: path.join(out, 'vscode-run.png') });

    // 3. "Show MLIR": the tile-dialect IR in a read-only virtual document beside the source.
    await attempt('"Show MLIR" opens the kernel\'s tile IR beside the source', async () => {
      await page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Show MLIR' }).first().click();
      const tab = page.locator('.tabs-container .tab', { hasText: /causal_attention\.causal_attention\.tile\.mlir/ }).first();
      const toast = page.locator('.notifications-toasts .notification-list-item-message', { hasText: /IR of .*failed/i }).first();
      const failed = toast.waitFor({ timeout: 120000 }).then(async () => { throw new Error('error notification: ' + (await toast.innerText())); });
      await Promise.race([tab.waitFor({ timeout: 120000 }), failed]);
      failed.catch(() => {});
      const text = (await page.locator('.editor-group-container').nth(1).locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
      console.log(`     ${text.split('\n').slice(0, 2).join(' | ')}`);
      return /func|tile\./.test(text);
    });
    // A line that calls a `fn` (the std library's online_softmax) maps to the IR inlined from it.
    await attempt('the cursor on line 18 (`online_softmax(...)`, a fn call) highlights IR lines', async () => {
      const src = page.locator('.editor-group-container').first();
      await src.locator('.view-line', { hasText: 'online_softmax(acc' }).first().click();
      const deco = page.locator('.editor-group-container').nth(1).locator('.view-overlays div[class*="ced-"]');
      await deco.first().waitFor({ timeout: 10000 });
      const n = await deco.count();
      console.log(`     ${n} IR line(s) highlighted for the call`);
      return n > 0;
    });
    await attempt('the cursor on line 15 (`dot_t`) highlights its IR lines beside it', async () => {
      const src = page.locator('.editor-group-container').first();
      await src.locator('.view-line', { hasText: 'dot_t' }).first().click();
      // The highlight is a whole-line decoration in the IR editor's overlay layer.
      const ir = page.locator('.editor-group-container').nth(1);
      const deco = ir.locator('.view-overlays div[class*="ced-"]');
      // The previous step's highlight (line 18's) stays until the cursor's move reaches the
      // extension: read the first highlighted line until it is the new one (or 10 s pass).
      let n = 0, line = '';
      for (const t = Date.now(); Date.now() - t < 10000; await page.waitForTimeout(200)) {
        await deco.first().waitFor({ timeout: 10000 });
        n = await deco.count();
        const top = await deco.first().evaluate((e) => e.parentElement.getBoundingClientRect().y);
        line = await ir.locator('.view-line').evaluateAll((els, y) => {
          const hit = els.find((e) => Math.abs(e.getBoundingClientRect().y - y) < 3);
          return hit ? hit.textContent.replace(/\u00a0/g, ' ').trim() : '';
        }, top);
        if (/tile\.dot/.test(line)) break;
      }
      console.log(`     ${n} IR line(s) highlighted, first: ${line.slice(0, 70)}`);
      return n > 0 && /tile\.dot/.test(line);
    });
    await attempt('the progress notification closes once the IR is shown', async () => {
      await page.locator('.notifications-toasts .notification-list-item-message', { hasText: /^IR of / }).first()
        .waitFor({ state: 'hidden', timeout: 15000 });
      return true;
    });
    await page.screenshot({ path: path.join(out, 'vscode-ir.png') });

    // "Ph: Show IR for the Kernel at the Cursor" from the palette, PTX picked in the quick pick.
    await attempt('"Ph: Show IR…" with the cursor in the kernel, stage PTX, opens the PTX beside the source', async () => {
      const src = page.locator('.editor-group-container').first();
      await src.locator('.view-line', { hasText: 'let q' }).first().click();
      await page.keyboard.press('F1');
      await page.keyboard.type('Ph: Show IR for the Kernel');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show IR for the Kernel at the Cursor' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'PTX' }).first().click();
      const tab = page.locator('.tabs-container .tab', { hasText: /causal_attention\.causal_attention\.ptx\.ptx/ }).first();
      await tab.waitFor({ timeout: 120000 });
      await tab.click();
      const text = (await page.locator('.editor-group-container').nth(1).locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
      console.log(`     ${text.split('\n').filter((l) => l.startsWith('.')).slice(0, 2).join(' | ')}`);
      return /\.version \d/.test(text) && /\.entry|\.visible/.test(text);
    });

    // "Ph: Compile File to cubin" from the palette: a table of ptxas figures, and the kernel's
    // lens shows them after the server refreshes its lenses.
    await attempt('"Ph: Compile File to cubin" writes a cubin and shows ptxas figures in the table and the lens', async () => {
      await page.locator('.editor-group-container').first().locator('.view-lines').click();
      await page.keyboard.press('F1');
      await page.keyboard.type('Ph: Compile File to cubin');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Compile File to cubin' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      const row = page.locator('.output-view, .panel').locator('.view-line', { hasText: /regs/ }).first();
      await row.waitFor({ timeout: 120000 });
      console.log(`     ${(await row.innerText()).replace(/\u00a0/g, ' ').trim()}`);
      const lens = page.locator('.contentWidgets .codelens-decoration', { hasText: /regs/ }).first();
      await lens.waitFor({ timeout: 30000 });
      const figures = (await lens.innerText()).replace(/\s*\n\s*/g, ' ').replace(/\u00a0/g, ' ');
      console.log(`     lens: ${figures}`);
      const actions = (await lensTexts(page)).find((t) => t.includes('Run on CPU')) || '';
      const cubins = fs.readdirSync(path.join(ws, '.ph-build')).filter((f) => f.endsWith('.cubin'));
      // The figures are a lens line of their own, short; the actions' line does not carry them.
      return cubins.length > 0 && !/regs/.test(actions) && figures.length <= 90;
    });
    await attempt('the result tables fit a normal panel (no line over 110 characters)', async () => {
      const lines = (await outputLines(page)).filter((l) => /\|/.test(l));
      const widest = Math.max(...lines.map((l) => l.trimEnd().length));
      console.log(`     widest table line: ${widest} characters`);
      return lines.length > 0 && widest <= 110;
    });
    await page.screenshot({ path: path.join(out, 'vscode-compile.png') });

    // "Ph: Restart Server": one visible restart, one new ph-lsp, one output channel, and the
    // lens figures still there (read back from the last build's manifest.json).
    await attempt('"Ph: Restart Server" restarts ph-lsp once, visibly, reusing its output channel; the figures stay', async () => {
      const before = lspPids();
      await dismissToasts(page);
      await palette(page, 'Ph: Restart Server');
      await toastText(page, /Ph language server restarted/).waitFor({ timeout: 30000 });
      await page.waitForTimeout(3000);
      const after = lspPids();
      const msgs = await page.locator('.notifications-toasts .notification-list-item-message', { hasText: /restarted/ }).count();
      const channels = await page.evaluate(() => [...document.querySelectorAll('.panel select option, .output-view select option')].map((o) => o.textContent));
      // The channel list may be in the page twice (the select and its drop-down): as many
      // "Ph Language Server" entries as "Ph" ones means one channel each.
      const lsChannels = channels.filter((c) => c === 'Ph Language Server').length / Math.max(1, channels.filter((c) => c === 'Ph').length);
      console.log(`     ph-lsp ${before} -> ${after}; ${msgs} restart message(s); channels: ${channels.filter((c) => /^Ph/.test(c)).join(', ')}`);
      const lens = page.locator('.contentWidgets .codelens-decoration', { hasText: /regs/ }).first();
      await lens.waitFor({ timeout: 30000 });
      return after.length === 1 && before.length === 1 && after[0] !== before[0] && msgs === 1 && lsChannels <= 1;
    });

    // 4. Kill ph-lsp: the extension restarts it, names the open file, and diagnostics return.
    await openFile(page, 'bad_attention.ph');
    await attempt('a killed ph-lsp is restarted and the message names the open file', async () => {
      const pids = lspPids();
      if (pids.length !== 1) throw new Error(`expected one ph-lsp, found ${pids.length}`);
      process.kill(pids[0], 'SIGKILL');
      const toast = page.locator('.notifications-toasts .notification-list-item-message', { hasText: /ph-lsp crashed while bad_attention\.ph was open/ }).first();
      await toast.waitFor({ timeout: 30000 });
      console.log(`     ${(await toast.innerText()).trim()}`);
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60000 });
      const after = lspPids();
      return after.length === 1 && after[0] !== pids[0];
    });

    // 5. The README's example with the default settings (ph.target auto, no ph.sizes) on a
    // machine without a GPU: one question, "Always on CPU" remembered, the table with the
    // server's default sizes in its header; then Benchmark on the CPU target.
    await palette(page, 'View: Close All Editor Groups').catch(() => {});
    await openFile(page, 'flash_attention.ph');
    await attempt('README example, defaults, no GPU: "Always on CPU" runs it and is remembered; the header names the default sizes', async () => {
      writeWorkspaceSettings({ 'ph.target': 'auto' });
      await page.waitForTimeout(3000);
      await dismissToasts(page);
      const run = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run on CPU' }).first();
      await run.waitFor({ timeout: 30000 });
      await run.click();
      const ask = page.locator('.notifications-toasts .notification-toast', { hasText: /CPU target instead/ }).first();
      await ask.waitFor({ timeout: 60000 });
      console.log(`     asked: ${(await ask.locator('.notification-list-item-message').innerText()).trim()}`);
      await page.screenshot({ path: path.join(out, 'vscode-no-gpu.png') });
      await ask.locator('.monaco-button', { hasText: 'Always on CPU' }).click();
      const header = page.locator('.panel .view-line', { hasText: /──\sRunning\sflash_attention.*sizes\s.*Nq=\d+\*/ }).first();
      await raceToast(page, header, /failed|error/i, 240000);
      console.log(`     ${(await header.innerText()).replace(/\u00a0/g, ' ').trim()}`);
      const user = JSON.parse(fs.readFileSync(process.env.PH_E2E_USER_SETTINGS, 'utf8'));
      const item = page.locator('.statusbar-item', { hasText: /flash_attention on cpu: .* ms/ }).first();
      await item.waitFor({ timeout: 10000 });
      await page.screenshot({ path: path.join(out, 'vscode-first-run.png') });
      return user['ph.noGpuFallback'] === 'cpu';
    });
    await attempt('"Benchmark" without a GPU runs on the CPU target and prints the same table', async () => {
      await dismissToasts(page);
      await page.locator('.contentWidgets .codelens-decoration a', { hasText: /^Benchmark$/ }).first().click();
      const header = page.locator('.panel .view-line', { hasText: /──\sBenchmarking\sflash_attention/ }).first();
      await raceToast(page, header, /failed|error/i, 240000);
      const asked = await page.locator('.notifications-toasts .notification-toast', { hasText: /CPU target instead/ }).count();
      const lines = await outputLines(page);
      const i = lines.findIndex((l) => /── Benchmarking flash_attention/.test(l));
      console.log(`     ${lines.slice(i, i + 4).map((l) => l.trim()).join(' / ')}`);
      return asked === 0 && lines.slice(i + 1, i + 4).some((l) => /^kernel\s+\|/.test(l)) && lines.slice(i, i + 6).some((l) => /\| cpu/.test(l));
    });

    // 6. An unsaved buffer with an error: the run's message names the user's file.
    await attempt('a run of an unsaved buffer names the user\'s file, not a temporary copy', async () => {
      await dismissToasts(page);
      const src = page.locator('.editor-group-container').first();
      await src.locator('.view-line', { hasText: 'attention(acc, q' }).first().click();
      await page.keyboard.press('End');
      await page.keyboard.type(' + rowmx(q)');
      await page.locator('.tabs-container .tab.dirty', { hasText: 'flash_attention.ph' }).waitFor({ timeout: 5000 });
      await page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run on CPU' }).first().click();
      const msg = toastText(page, /flash_attention\.ph/);
      await msg.waitFor({ timeout: 60000 });
      const text = (await msg.innerText()).trim();
      console.log(`     ${text.slice(0, 160)}`);
      const all = (await outputLines(page)).join('\n');
      await palette(page, 'File: Revert File');
      // Left dirty, the edit would be saved by step 8's auto save and break the file.
      const reverted = await page.locator('.tabs-container .tab.dirty', { hasText: 'flash_attention.ph' })
        .waitFor({ state: 'detached', timeout: 10000 }).then(() => true, () => false);
      if (!reverted) console.log('     File: Revert File left flash_attention.ph modified');
      return reverted && /ws\/flash_attention\.ph:\d+:\d+/.test(text) && !/ph-lsp-\w{6}/.test(text) && !/ph-lsp-\w{6}\//.test(all);
    });

    // 7. One source of diagnostics: a shape error saved with compile on save is listed once,
    // and its squiggle goes as soon as the text is fixed, before any save.
    await openFile(page, 'shape_error.ph');
    await attempt('a shape error is listed once (not once per `ph build`) and leaves with the fix, unsaved', async () => {
      writeWorkspaceSettings({ 'ph.target': 'auto', 'ph.compileOnSave': true });
      await page.waitForTimeout(2000);
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30000 });
      await page.keyboard.press('Control+s');
      await page.waitForTimeout(6000); // compile on save runs `ph build`
      // The hover over the error lists each diagnostic there: once, not once per producer.
      const word = page.locator('.editor-group-container').first().locator('.view-line', { hasText: 'dot(q, k)' }).first().locator('span span', { hasText: /^dot$/ }).first();
      await word.hover();
      const hover = page.locator('.monaco-hover-content', { hasText: 'inner dimensions' }).first();
      await hover.waitFor({ timeout: 20000 });
      const n = ((await hover.innerText()).match(/inner dimensions/g) || []).length;
      await page.mouse.move(0, 0);
      // Fix it by hand: `dot` -> `dot_t` (double-click the word, type), not saved.
      const src = page.locator('.editor-group-container').first();
      await src.locator('.view-line', { hasText: 'dot(q, k)' }).first().locator('span span', { hasText: /^dot$/ }).first().dblclick();
      await page.keyboard.type('dot_t');
      const gone = await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'detached', timeout: 20000 }).then(() => true, () => false);
      console.log(`     the error listed ${n} time(s) after the save; squiggle gone after the fix: ${gone}`);
      await page.keyboard.press('Control+s');
      return n === 1 && gone;
    });

    // 8. Auto save while typing: compile on save waits for the typing to stop.
    await attempt('files.autoSave afterDelay: no `ph build` while typing, one after', async () => {
      writeWorkspaceSettings({ 'ph.target': 'auto', 'ph.compileOnSave': true, 'files.autoSave': 'afterDelay', 'files.autoSaveDelay': 200, 'ph.compileOnSaveDelay': 1500 });
      await page.waitForTimeout(2000);
      const manifest = path.join(ws, '.ph-build', 'manifest.json');
      const mtime = () => (fs.existsSync(manifest) ? fs.statSync(manifest).mtimeMs : 0);
      const src = page.locator('.editor-group-container').first();
      // The previous step's save may still be building: wait until the manifest stays put.
      for (let last = mtime(), t = Date.now(); Date.now() - t < 60000;) {
        await page.waitForTimeout(3000);
        if (mtime() === last) break;
        last = mtime();
      }
      await src.locator('.view-line', { hasText: 'let row' }).first().click();
      await page.keyboard.press('End');
      const before = mtime();
      for (let i = 0; i < 8; i++) { await page.keyboard.type(' '); await page.waitForTimeout(500); } // autosaves every 200 ms
      const during = mtime();
      await page.waitForTimeout(8000);
      const after = mtime();
      console.log(`     manifest.json changed while typing: ${during !== before}; after: ${after !== during}`);
      writeWorkspaceSettings({ 'ph.target': 'auto' });
      return during === before && after !== during;
    });

    // 9. Go to definition into the standard library opens it read-only.
    await openFile(page, 'causal_attention.ph');
    await attempt('F12 on online_softmax opens std/attention.ph read-only', async () => {
      const src = page.locator('.editor-group-container').first();
      await src.locator('.view-line span span', { hasText: /^online_softmax$/ }).first().click();
      await palette(page, 'Go to Definition');
      const tab = page.locator('.tabs-container .tab.active', { hasText: /^\s*attention\.ph/ }).first();
      await tab.waitFor({ timeout: 30000 });
      await src.locator('.view-line', { hasText: 'fn online_softmax(' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.type('zzz');
      const ro = await page.locator('.monaco-editor-overlaymessage, .monaco-editor .message', { hasText: /read-only/i }).first()
        .waitFor({ timeout: 5000 }).then(() => true, () => false);
      const after = await src.locator('.view-lines').first().innerText();
      const dirty = await page.locator('.tabs-container .tab.dirty', { hasText: /attention\.ph/ }).count();
      console.log(`     read-only message: ${ro}; typed text absent: ${!after.includes('zzz')}; modified: ${dirty > 0}`);
      await page.screenshot({ path: path.join(out, 'vscode-std.png') });
      if (after.includes('zzz')) await palette(page, 'File: Revert File');
      await page.keyboard.press('Control+w');
      // Back in causal_attention.ph, VS Code first draws the lenses it cached (titles without
      // commands: not clickable) and asks the server again only while the editor has the
      // keyboard focus; the next step's click in the explorer takes it. A user sees the live
      // lenses a moment after the tab closes: wait for them, as they would.
      const live = await page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run on CPU' }).first()
        .waitFor({ timeout: 10000 }).then(() => true, () => false);
      console.log(`     causal_attention.ph's lenses live again: ${live}`);
      return ro && !after.includes('zzz') && dirty === 0 && live;
    });

    // 5. A long run (N=16384: about a minute on the CPU) cancelled from its notification.
    await openFile(page, 'causal_attention.ph');
    await attempt('Cancel on the progress notification stops the server\'s `ph run`', async () => {
      writeWorkspaceSettings({ 'ph.target': 'cpu', 'ph.sizes': { N: 16384 } });
      await page.waitForTimeout(3000); // the settings reach the server (didChangeConfiguration)
      const lspPid = () => cp.execFileSync('ps', ['-eo', 'pid=,args=']).toString().split('\n')
        .filter((l) => l.includes(process.env.PH_E2E_LSP)).map((l) => parseInt(l.trim(), 10))[0];
      const children = () => {
        try { return cp.execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(lspPid())]).toString().split('\n').filter((l) => /\sph$/.test(l)); } catch { return []; }
      };
      await page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run on CPU' }).first().click();
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Running causal_attention' }).first();
      await toast.waitFor({ timeout: 20000 });
      for (let i = 0; i < 100 && children().length === 0; i++) await page.waitForTimeout(100);
      if (children().length === 0) throw new Error('no `ph run` child of ph-lsp');
      await toast.hover();
      await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
      const t = Date.now();
      while (children().length > 0 && Date.now() - t < 5000) await page.waitForTimeout(100);
      const stopped = children().length === 0;
      console.log(`     ph run ${stopped ? 'stopped' : 'still running'} ${Date.now() - t} ms after Cancel`);
      const item = page.locator('.statusbar-item', { hasText: /Running causal_attention: cancelled after/ }).first();
      await item.waitFor({ timeout: 10000 });
      console.log(`     status bar: ${(await item.innerText()).trim()}`);
      return stopped;
    });
  } catch (e) {
    check(false, `error: ${e.message}`);
    await page.screenshot({ path: path.join(out, 'vscode-error.png') }).catch(() => {});
  } finally {
    await browser.close();
  }
  // The extension host log records the activation event.
  const logs = process.env.PH_E2E_LOGS;
  if (logs && fs.existsSync(logs)) {
    const files = [];
    const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.join(d, e.name)));
    walk(logs);
    const host = files.filter((f) => /exthost\.log$/.test(f)).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    check(/ph-lang\.ph-lang.*onLanguage:ph/.test(host) || /activat\w* extension.*ph-lang/i.test(host), 'extension host log: activated by onLanguage:ph');
  }
  console.log(`screenshot: ${path.join(out, 'vscode.png')}`);
  console.log(`${passes} passed, ${failures} failed`);
  process.exit(failures === 0 ? 0 : 1);
})();
