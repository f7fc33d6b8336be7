-- lsp_test.lua - Neovim headless with the plugin against the real ph-lsp: a diagnostic at the
-- right line (the same as `ph check`), hover docs and definition of online_softmax, :PhRun on
-- the CPU target, :PhShowIR, and a restart after the server is killed.
-- Run: PH_LSP=build/bin/ph-lsp PH_BIN=build/bin/ph \
--      nvim --headless --clean -c 'luafile tests/editors/nvim/lsp_test.lua'
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
vim.opt.runtimepath:prepend(root .. '/nvim')
vim.cmd('filetype plugin on | syntax on')
vim.cmd('runtime! ftdetect/*.vim')

local t0 = vim.loop.hrtime()
local function ms() return math.floor((vim.loop.hrtime() - t0) / 1e6) end
local passes, failures = 0, 0
local function check(cond, what)
  if cond then passes = passes + 1 else failures = failures + 1 end
  io.stdout:write(('%s %s (%d ms)\n'):format(cond and 'ok  ' or 'FAIL', what, ms()))
  return cond
end
local notes = {}
vim.notify = function(msg) table.insert(notes, msg) end

local lsp_bin = os.getenv('PH_LSP') or (root .. '/build/bin/ph-lsp')
local ph_bin = os.getenv('PH_BIN') or (root .. '/build/bin/ph')
-- :PhRun's target (the CPU target by default; `interp` where `ph` has no MLIR backend), and
-- the driver the server runs (default: the `ph` next to ph-lsp).
local run_target = os.getenv('PH_RUN_TARGET') or 'cpu'
local driver = os.getenv('PH_DRIVER')
local function hover_text(res)
  local out = {}
  for _, r in pairs(res or {}) do
    local c = r.result and r.result.contents
    if type(c) == 'string' then table.insert(out, c)
    elseif type(c) == 'table' then
      if c.value then table.insert(out, c.value) end
      for _, x in ipairs(c) do table.insert(out, type(x) == 'table' and x.value or x) end
    end
  end
  return table.concat(out, '\n')
end
-- The server's process: 0.7 keeps it on the client (rpc.pid / rpc.handle); 0.10+ does not, so
-- the ph-lsp child of this Neovim (the test starts one client).
local function server_pid(c)
  local pid = c and c.rpc and (c.rpc.pid or (c.rpc.handle and c.rpc.handle:get_pid()))
  if pid then return pid end
  for _, l in ipairs(vim.fn.systemlist({ 'ps', '-o', 'pid=,comm=', '--ppid', tostring(vim.fn.getpid()) })) do
    local p, comm = l:match('^%s*(%d+)%s+(%S+)')
    if comm == 'ph-lsp' then return tonumber(p) end
  end
end
-- 0.12 takes a filter and gives {client_id, lens}; before, a buffer and the lenses.
local function lenses(b)
  if vim.fn.has('nvim-0.12') == 1 then return vim.lsp.codelens.get({ bufnr = b }) end
  return vim.lsp.codelens.get(b)
end
local function active_clients()
  return vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
end
local function pos_params(lnum, text)
  local col = vim.fn.getline(lnum):find(text, 1, true)
  return { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = lnum - 1, character = col } }
end

local ok, err = pcall(function()
  check(vim.fn.executable(lsp_bin) == 1, 'ph-lsp is built: ' .. lsp_bin)
  -- :help ph opens the plugin's doc/ph.txt (the not-found message points there).
  vim.cmd('help ph')
  check(vim.fn.expand('%:t') == 'ph.txt', ':help ph opens ph.txt: ' .. vim.fn.expand('%:t'))
  vim.cmd('help ph-setup')
  check(vim.fn.expand('%:t') == 'ph.txt', ':help ph-setup is there')
  vim.cmd('close')
  local ph = require('ph')
  local tmp = vim.fn.tempname() .. '_ph'
  vim.fn.mkdir(tmp, 'p')
  ph.setup({ cmd = { lsp_bin }, path = driver, target = run_target, sizes = { N = 64 },
    outputDir = tmp .. '/out', compileOnSave = false })

  -- 1. An example with an error: `dot` against the [BC, D] key tile, where `dot_t` is meant.
  local bad = tmp .. '/bad_attention.ph'
  local lines = vim.fn.readfile(root .. '/examples/flash_attention_manual.ph')
  check(lines[17]:find('dot_t(q, k)', 1, true) ~= nil, 'line 17 of flash_attention_manual.ph has dot_t(q, k)')
  lines[17] = lines[17]:gsub('dot_t%(q, k%)', 'dot(q, k)')
  vim.fn.writefile(lines, bad)
  vim.cmd('edit ' .. bad)
  local buf = vim.api.nvim_get_current_buf()
  check(vim.bo.filetype == 'ph', 'filetype ph')
  check(vim.wait(10000, function() return ph.client(buf) ~= nil end, 20), 'client attached')
  check(vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20), 'diagnostics published')
  local diags = vim.diagnostic.get(buf)
  local d = diags[1] or {}
  check(d.lnum == 16, ('diagnostic at line 17 (got %s): %s'):format(tostring(d.lnum and d.lnum + 1), tostring(d.message)))
  check(d.severity == vim.diagnostic.severity.ERROR, 'diagnostic is an error')
  -- The same as `ph check` prints for the file (file:line:col: error[code]: message).
  local out = vim.fn.system({ ph_bin, 'check', bad })
  local first = out:match('[^\n]*:%d+:%d+: error[^\n]*') or ''
  local line, col, msg = first:match(':(%d+):(%d+): error[^:]*: (.*)$')
  check(d.lnum ~= nil and tonumber(line) == d.lnum + 1 and tonumber(col) == d.col + 1,
    ('same position as `ph check`: %s'):format(first))
  check(msg ~= nil and d.message == msg, ('same message as `ph check`: %s'):format(tostring(d.message)))

  -- 2. Hover online_softmax at its call in causal_attention.ph; go to its definition. (A copy
  -- beside the first file: one project root, so one client on every Neovim, and `:w` below
  -- writes no file of the source tree.)
  local causal = tmp .. '/causal_attention.ph'
  vim.fn.writefile(vim.fn.readfile(root .. '/examples/causal_attention.ph'), causal)
  vim.cmd('edit ' .. causal)
  local cbuf = vim.api.nvim_get_current_buf()
  check(vim.wait(10000, function() return ph.client(cbuf) ~= nil and vim.lsp.buf_is_attached(cbuf, ph.client(cbuf).id) end, 20),
    'client attached to a second file')
  local hp = pos_params(18, 'online_softmax')
  local res = vim.lsp.buf_request_sync(cbuf, 'textDocument/hover', hp, 5000)
  local text = hover_text(res)
  check(text:find('online_softmax', 1, true) ~= nil and text:find('online softmax', 1, true) ~= nil,
    'hover shows the signature and the documentation: ' .. text:gsub('\n.*', '') )
  check(text:find('std/attention.ph', 1, true) ~= nil, 'hover links to std/attention.ph')
  res = vim.lsp.buf_request_sync(cbuf, 'textDocument/definition', hp, 5000)
  local loc
  for _, r in pairs(res or {}) do
    local x = r.result
    if x then loc = x[1] or x end
  end
  local uri = loc and (loc.uri or loc.targetUri) or ''
  local range = loc and (loc.range or loc.targetSelectionRange) or { start = {} }
  check(uri:match('std/attention%.ph$') ~= nil and range.start.line == 11,
    ('definition in std/attention.ph line 12 (got %s line %s)'):format(uri, tostring(range.start.line and range.start.line + 1)))
  -- `gd` (the plugin's buffer mapping; `K` hovers too, before 0.10 where Neovim maps it): the
  -- std file opens read-only.
  check(vim.fn.maparg('gd', 'n') ~= '', '`gd` is mapped in ph buffers')
  check(vim.fn.maparg('K', 'n') ~= '' or vim.fn.has('nvim-0.10') == 1, '`K` hovers (mapped before 0.10)')
  vim.api.nvim_win_set_cursor(0, { 18, 6 })
  vim.api.nvim_feedkeys('gd', 'x', false)
  check(vim.wait(5000, function() return vim.api.nvim_buf_get_name(0):match('std/attention%.ph$') ~= nil end, 20),
    '`gd` jumps to std/attention.ph')
  check(vim.bo.readonly and not vim.bo.modifiable, 'the std file is read-only (readonly, nomodifiable)')
  vim.cmd('buffer ' .. cbuf)

  -- Completion through 'omnifunc'; code lenses named after the target, figures apart.
  check(vim.bo[cbuf].omnifunc == 'v:lua.vim.lsp.omnifunc', "'omnifunc' is vim.lsp.omnifunc: " .. vim.bo[cbuf].omnifunc)
  local cres = vim.lsp.buf_request_sync(cbuf, 'textDocument/completion', pos_params(18, 'online_softmax'), 5000)
  local items = 0
  for _, r in pairs(cres or {}) do local x = r.result or {}; items = items + #(x.items or x) end
  check(items > 0, ('the server completes at the cursor (%d items)'):format(items))
  if vim.lsp.codelens.enable then vim.lsp.codelens.enable(true, { bufnr = cbuf }) else pcall(vim.lsp.codelens.refresh) end
  check(vim.wait(5000, function() return #(lenses(cbuf) or {}) > 0 end, 20), 'code lenses shown (vim.lsp.codelens)')
  local titles = {}
  for _, l in ipairs(lenses(cbuf) or {}) do l = l.lens or l; if l.command then table.insert(titles, l.command.title) end end
  local want = run_target == 'cpu' and '▶ Run on CPU' or '▶ Run on interpreter'
  check(vim.tbl_contains(titles, want) and vim.tbl_contains(titles, 'Benchmark'),
    ('lenses %s (want %s)'):format(table.concat(titles, ' | '), want))
  check(vim.fn.exists(':PhLens') == 2, ':PhLens runs the lens of the cursor line')

  -- By version: inlay hints on 0.10+ (type hints of `let`s), vim.lsp.completion on 0.11+.
  local v = vim.version()
  io.stdout:write(('Neovim %d.%d.%d\n'):format(v.major, v.minor, v.patch))
  local on = (ph.enabled or {})[cbuf] or {}
  if v.minor >= 10 then
    check(ph.features.inlay_hints and on.inlay_hints, '0.10+: inlay hints enabled on the buffer')
    check(vim.lsp.inlay_hint.is_enabled({ bufnr = cbuf }), '0.10+: vim.lsp.inlay_hint.is_enabled')
    local n = vim.api.nvim_buf_line_count(cbuf)
    local hres = vim.lsp.buf_request_sync(cbuf, 'textDocument/inlayHint', { textDocument = { uri = vim.uri_from_bufnr(cbuf) },
      range = { start = { line = 0, character = 0 }, ['end'] = { line = n, character = 0 } } }, 5000)
    local hints = {}
    for _, r in pairs(hres or {}) do for _, h in ipairs(r.result or {}) do table.insert(hints, h) end end
    check(#hints > 0, ('the server sends inlay hints (%d, e.g. %s)'):format(#hints, vim.inspect(hints[1] and hints[1].label)))
    check(vim.wait(5000, function() return #vim.lsp.inlay_hint.get({ bufnr = cbuf }) > 0 end, 50),
      ('Neovim holds them to show (%d)'):format(#vim.lsp.inlay_hint.get({ bufnr = cbuf })))
  else
    check(not ph.features.inlay_hints, 'before 0.10: no inlay hints asked for')
  end
  if v.minor >= 11 then
    check(ph.features.completion and on.completion, '0.11+: vim.lsp.completion enabled on the buffer')
    check(vim.lsp.config.ph ~= nil and vim.lsp.config.ph.cmd[1] == lsp_bin, '0.11+: started through vim.lsp.config')
  end

  -- 3. :PhRun on the CPU target with the cursor in the kernel.
  vim.api.nvim_win_set_cursor(0, { 6, 4 })
  vim.cmd('PhRun ' .. run_target .. ' N=64')
  check(vim.wait(120000, function() return ph.last_result ~= nil or ph.last_error ~= nil end, 50), ':PhRun answered')
  check(ph.last_error == nil, ':PhRun succeeded: ' .. vim.inspect(ph.last_error))
  local rbuf = vim.fn.bufnr('ph://results')
  local rlines = rbuf ~= -1 and vim.api.nvim_buf_get_lines(rbuf, 0, -1, false) or {}
  check(#rlines >= 3 and rlines[2]:find('kernel', 1, true) ~= nil, 'result table header: ' .. tostring(rlines[2]))
  check(table.concat(rlines, '\n'):find('causal_attention', 1, true) ~= nil, 'result names the kernel')
  check(table.concat(rlines, '\n'):find('| ' .. run_target, 1, true) ~= nil, 'result says the target: ' .. run_target)
  check(rlines[1]:find('── ph.run on ' .. run_target .. ' sizes N=64', 1, true) ~= nil, 'results header: ' .. rlines[1])
  local widest = 0
  for _, l in ipairs(rlines) do widest = math.max(widest, vim.fn.strdisplaywidth(l)) end
  check(widest <= 110, ('the table fits a normal window (%d columns)'):format(widest))
  io.stdout:write(table.concat(rlines, '\n') .. '\n')
  local r = ph.last_result or {}
  local rows = ph.result_rows(r)
  local failed = false
  for _, row in ipairs(rows) do
    if row.ok == false or (type(row.error) == 'string' and row.error ~= '') then failed = true end
  end
  local passed = false
  for _, row in ipairs(rows) do if row.check == 'passed' then passed = true end end
  check(#rows > 0 and not failed and passed, 'the run checked out against the interpreter')

  -- No GPU with target auto: the offer comes through vim.ui.select (never a blocking
  -- inputlist); "Always on CPU" runs it and is remembered.
  local asked
  local real_select = vim.ui.select
  vim.ui.select = function(choices, o, cb) asked = { choices = choices, prompt = o.prompt }; cb('Always on CPU') end
  if run_target == 'cpu' then
    vim.cmd('PhRun auto N=64')
    check(vim.wait(120000, function() return asked ~= nil and ph.last_result ~= nil and ph.last_result.ok ~= false end, 50)
      or ph.status_text ~= 'no GPU', ':PhRun auto without a GPU asked through vim.ui.select: ' .. vim.inspect(asked and asked.prompt))
    if ph.status_text == 'no GPU' then
      check(ph.cfg.settings.ph.noGpu == 'cpu', '"Always on CPU" is remembered (noGpu = cpu)')
      local l1 = vim.api.nvim_buf_get_lines(vim.fn.bufnr('ph://results'), 0, 1, false)[1] or ''
      check(l1:find('on cpu', 1, true) ~= nil, 'then it ran on the CPU target: ' .. l1)
    end
  end
  vim.ui.select = real_select

  -- :PhBench: every autotune variant, on the CPU target without a GPU (the same table).
  vim.cmd('PhBench ' .. (run_target == 'cpu' and 'cpu' or ''))
  check(vim.wait(120000, function() return ph.last_result ~= nil or ph.last_error ~= nil end, 50), ':PhBench answered')
  local r = ph.last_result or {}
  local bench_rows = ph.result_rows(r)
  local said = tostring(r.stderr or '') .. tostring(ph.last_error and ph.last_error.message or '')
  local ran = r.ok ~= false and #bench_rows > 0 and bench_rows[1].time_ms ~= nil
  check(ran, ':PhBench ran `ph bench`: ' .. (ran and vim.inspect(bench_rows[1]) or said):gsub('\n', ' '):sub(1, 200))
  local blines = vim.api.nvim_buf_get_lines(vim.fn.bufnr('ph://results'), 0, -1, false)
  check((blines[2] or ''):find('^kernel') ~= nil, 'the bench table: ' .. tostring(blines[3]))

  -- :PhCancel while a long run is in flight: the server stops the `ph` it started. (Neovim
  -- does not pass RequestCancelled to the callback, so the child process is what we watch.)
  local function ph_children(pid)
    local out = vim.fn.systemlist({ 'ps', '-o', 'pid=,comm=', '--ppid', tostring(pid) })
    return vim.tbl_filter(function(l) return l:match('%sph$') ~= nil end, out)
  end
  local spid = server_pid(ph.client(cbuf))
  vim.cmd('PhRun ' .. run_target .. ' N=16384')
  check(ph.inflight ~= nil, ':PhRun N=16384 in flight')
  check(vim.wait(10000, function() return #ph_children(spid) > 0 end, 20), 'the server started `ph run`')
  vim.cmd('PhCancel')
  check(ph.inflight == nil, ':PhCancel clears the request')
  check(vim.wait(5000, function() return #ph_children(spid) == 0 end, 20), ':PhCancel stopped `ph run` within 5 s')

  -- 4. :PhShowIR tile beside the source.
  vim.cmd('PhShowIR tile')
  check(vim.wait(60000, function() return ph.last_ir_buf ~= nil or ph.last_error ~= nil end, 50), ':PhShowIR answered')
  local ir = ph.last_ir_buf and table.concat(vim.api.nvim_buf_get_lines(ph.last_ir_buf, 0, -1, false), '\n') or ''
  check(ir:find('func', 1, true) ~= nil, (':PhShowIR shows MLIR (%d bytes)%s'):format(#ir,
    ph.last_error and (': ' .. tostring(ph.last_error.message)) or ''))

  -- Each IR line knows its .ph line: the cursor on line 15 (`dot_t`) highlights its IR lines.
  local map = ph.last_ir_buf and ph.ir_maps[ph.last_ir_buf] or {}
  local mapped = 0
  for _ in pairs(map) do mapped = mapped + 1 end
  check(mapped > 0, ('IR lines mapped to source lines: %d'):format(mapped))
  vim.api.nvim_win_set_cursor(0, { 15, 30 })
  vim.cmd('doautocmd CursorMoved')
  local marks = ph.last_ir_buf and vim.api.nvim_buf_get_extmarks(ph.last_ir_buf, vim.api.nvim_create_namespace('ph_ir'), 0, -1, {}) or {}
  local lines15 = {}
  for _, m in ipairs(marks) do
    local l = vim.api.nvim_buf_get_lines(ph.last_ir_buf, m[2], m[2] + 1, false)[1] or ''
    table.insert(lines15, l)
  end
  check(#marks > 0 and table.concat(lines15, '\n'):find('dot', 1, true) ~= nil,
    ('line 15 highlights %d IR lines, with the dot among them: %s'):format(#marks, (lines15[1] or ''):sub(1, 80)))

  -- :PhCompile writes the file's cubins and manifest.json into the output folder.
  vim.cmd('PhCompile')
  check(vim.wait(120000, function() return ph.last_result ~= nil or ph.last_error ~= nil end, 50), ':PhCompile answered')
  local cubins = vim.fn.glob(tmp .. '/out/**/*.cubin', false, true)
  local manifest = vim.fn.glob(tmp .. '/out/**/manifest.json', false, true)
  check(ph.last_error == nil and #cubins > 0 and #manifest > 0,
    (':PhCompile wrote %d cubin(s) and %d manifest(s)%s'):format(#cubins, #manifest,
      ph.last_error and (': ' .. tostring(ph.last_error.message)) or ''))
  local clines = vim.api.nvim_buf_get_lines(vim.fn.bufnr('ph://results'), 0, -1, false)
  check(#clines >= 4 and clines[2]:find('ptxas', 1, true) ~= nil and clines[4]:find('regs', 1, true) ~= nil,
    'the compile table shows ptxas figures: ' .. tostring(clines[4]))
  widest = 0
  for _, l in ipairs(clines) do widest = math.max(widest, vim.fn.strdisplaywidth(l)) end
  check(widest <= 110, ('the compile table fits a normal window (%d columns)'):format(widest))

  -- `:w` with compile on save: a message when it starts, the figures when it ends.
  ph.cfg.settings.ph.compileOnSave = true
  local c0 = ph.client(cbuf)
  ph.call(c0, 'notify', 'workspace/didChangeConfiguration', { settings = ph.cfg.settings })
  notes, ph.last_compiled = {}, nil
  vim.cmd('silent write')
  check(vim.wait(120000, function() return ph.last_compiled ~= nil end, 50), ':w: ph/compiled arrived')
  local said_w = table.concat(notes, '\n')
  check(said_w:find('compiling causal_attention.ph', 1, true) ~= nil and said_w:find('regs', 1, true) ~= nil,
    ':w says it compiles and then the figures: ' .. said_w:gsub('\n', ' / '))
  check(ph.last_compiled.ok == true and said_w:find('failed', 1, true) == nil,
    (':w compiled with ph.target = %s (no failure)'):format(run_target))
  ph.cfg.settings.ph.compileOnSave = false
  ph.call(c0, 'notify', 'workspace/didChangeConfiguration', { settings = ph.cfg.settings })

  -- 5. Kill the server: it is restarted, the message names the open file, diagnostics return.
  local c = ph.client(cbuf)
  local pid = server_pid(c)
  if check(pid ~= nil, 'server pid known') then
    notes = {}
    vim.loop.kill(pid, 9)
    check(vim.wait(10000, function() local n = ph.client(cbuf); return n ~= nil and n.id ~= c.id end, 50),
      'a new server was started')
    local said = table.concat(notes, '\n')
    check(said:find('crashed', 1, true) and said:find('causal_attention.ph', 1, true),
      'the restart message names the file: ' .. said)
    vim.cmd('buffer ' .. buf)
    check(vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20), 'diagnostics again after the restart')
  end
  ph.stopping = true
  for _, cl in ipairs(active_clients()) do ph.call(cl, 'stop') end
  vim.wait(3000, function() return #active_clients() == 0 end, 20)
end)
if not ok then check(false, 'error: ' .. tostring(err)) end
io.stdout:write(('%d passed, %d failed\n'):format(passes, failures))
vim.cmd(failures == 0 and 'qa!' or 'cq!')
