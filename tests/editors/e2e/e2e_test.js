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

async function openFile(page, name) {
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
  await page.locator(`.tabs-container .tab.active`, { hasText: name }).waitFor({ timeout: 30000 });
  await page.waitForSelector('.monaco-editor .view-lines', { timeout: 30000 });
}

(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  try {
    await page.goto(url);
    await attempt('workbench loaded', async () => { await page.waitForSelector('.monaco-workbench', { timeout: 90000 }); return true; });
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });

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
    const lens = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run on GPU' }).first();
    await attempt('the "Run on GPU" code lens is over the kernel', async () => {
      await lens.waitFor({ timeout: 60000 });
      const all = await page.locator('.contentWidgets .codelens-decoration').allInnerTexts();
      console.log(`     lenses: ${all.join(' / ')}`);
      return all.some((t) => t.includes('Compile')) && all.some((t) => t.includes('Show MLIR'));
    });
    await page.screenshot({ path: path.join(out, 'vscode.png') });
    await attempt('clicking "Run on GPU" (target cpu) prints a result table in the Ph output', async () => {
      await lens.click();
      const table = page.locator('.monaco-editor .view-line', { hasText: /causal_attention/ }).last();
      const header = page.locator('.output-view, .panel').locator('.view-line', { hasText: /^kernel\s+\|/ }).first();
      // Either the table arrives or an error notification says why not (fail fast then).
      const toast = page.locator('.notifications-toasts .notification-list-item-message', { hasText: /failed|cannot|error/i }).first();
      const failed = toast.waitFor({ timeout: 180000 }).then(async () => { throw new Error('error notification: ' + (await toast.innerText())); });
      await Promise.race([header.waitFor({ timeout: 180000 }), failed]);
      failed.catch(() => {});
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
    await attempt('the cursor on line 15 (`dot_t`) highlights its IR lines beside it', async () => {
      const src = page.locator('.editor-group-container').first();
      await src.locator('.view-line', { hasText: 'dot_t' }).first().click();
      // The highlight is a whole-line decoration in the IR editor's overlay layer.
      const ir = page.locator('.editor-group-container').nth(1);
      const deco = ir.locator('.view-overlays div[class*="ced-"]');
      await deco.first().waitFor({ timeout: 10000 });
      const n = await deco.count();
      const top = await deco.first().evaluate((e) => e.parentElement.getBoundingClientRect().y);
      const line = await ir.locator('.view-line').evaluateAll((els, y) => {
        const hit = els.find((e) => Math.abs(e.getBoundingClientRect().y - y) < 3);
        return hit ? hit.textContent.replace(/\u00a0/g, ' ').trim() : '';
      }, top);
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
      const row = page.locator('.output-view, .panel').locator('.view-line', { hasText: /registers/ }).first();
      await row.waitFor({ timeout: 120000 });
      console.log(`     ${(await row.innerText()).replace(/\u00a0/g, ' ').trim()}`);
      const lens = page.locator('.contentWidgets .codelens-decoration', { hasText: /registers/ }).first();
      await lens.waitFor({ timeout: 30000 });
      console.log(`     lens: ${(await lens.innerText()).replace(/\s*\n\s*/g, ' ')}`);
      const cubins = fs.readdirSync(path.join(process.env.PH_E2E_WS, '.ph-build')).filter((f) => f.endsWith('.cubin'));
      return cubins.length > 0;
    });

    // 4. Kill ph-lsp: the extension restarts it, names the open file, and diagnostics return.
    await openFile(page, 'bad_attention.ph');
    await attempt('a killed ph-lsp is restarted and the message names the open file', async () => {
      const cp = require('child_process');
      const pids = cp.execFileSync('ps', ['-eo', 'pid=,args=']).toString().split('\n')
        .filter((l) => l.includes(process.env.PH_E2E_LSP)).map((l) => parseInt(l.trim(), 10));
      if (pids.length !== 1) throw new Error(`expected one ph-lsp, found ${pids.length}`);
      process.kill(pids[0], 'SIGKILL');
      const toast = page.locator('.notifications-toasts .notification-list-item-message', { hasText: /ph-lsp crashed while bad_attention\.ph was open/ }).first();
      await toast.waitFor({ timeout: 30000 });
      console.log(`     ${(await toast.innerText()).trim()}`);
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60000 });
      const after = cp.execFileSync('ps', ['-eo', 'pid=,args=']).toString().split('\n')
        .filter((l) => l.includes(process.env.PH_E2E_LSP)).map((l) => parseInt(l.trim(), 10));
      return after.length === 1 && after[0] !== pids[0];
    });

    // 5. A long run (N=16384: about a minute on the CPU) cancelled from its notification.
    await openFile(page, 'causal_attention.ph');
    await attempt('Cancel on the progress notification stops the server\'s `ph run`', async () => {
      const cp = require('child_process');
      const ws = process.env.PH_E2E_WS;
      fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'ph.sizes': { N: 16384 } }));
      await page.waitForTimeout(3000); // the settings reach the server (didChangeConfiguration)
      const lspPid = () => cp.execFileSync('ps', ['-eo', 'pid=,args=']).toString().split('\n')
        .filter((l) => l.includes(process.env.PH_E2E_LSP)).map((l) => parseInt(l.trim(), 10))[0];
      const children = () => {
        try { return cp.execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(lspPid())]).toString().split('\n').filter((l) => /\sph$/.test(l)); } catch { return []; }
      };
      await page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run on GPU' }).first().click();
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
