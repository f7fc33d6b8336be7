-- ph/init.lua - Neovim client of ph-lsp: starts the server for `ph` buffers (vim.lsp.config on
-- 0.11+, vim.lsp.start on 0.8+, vim.lsp.start_client on 0.7), restarts it when it crashes,
-- and adds :PhRun, :PhBench, :PhCompile, :PhShowIR and :PhRestart.
local config = require('ph.config')
local M = {
  cfg = nil,           -- the merged server configuration
  client_id = nil,     -- the running client (0.7 / 0.8 paths)
  status = nil,        -- the last ph/status notification's params
  last_result = nil,   -- the last command's result (tests read it)
  last_error = nil,
  crashes = {},
  ir_maps = {},        -- IR buffer -> { [0-based IR line] = 0-based .ph line }
}

local uv = vim.loop
local islist = vim.islist or vim.tbl_islist
local function notify(msg, level) vim.notify('[ph] ' .. msg, level or vim.log.levels.INFO) end

--------------------------------------------------------------------------------------------
-- Clients and buffers
--------------------------------------------------------------------------------------------

local function get_clients()
  if vim.lsp.get_clients then return vim.lsp.get_clients({ name = 'ph' }) end
  local out = {}
  for _, c in pairs(vim.lsp.get_active_clients()) do if c.name == 'ph' then table.insert(out, c) end end
  return out
end

--- The ph-lsp client attached to `bufnr` (or any ph client).
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  for _, c in ipairs(get_clients()) do
    if vim.lsp.buf_is_attached(bufnr, c.id) then return c end
  end
  return get_clients()[1]
end

-- Client methods: 0.11+ takes `client:method(...)` (the `.` form is deprecated there); 0.7-0.10
-- have plain functions in the client table.
local method_calls = vim.fn.has('nvim-0.11') == 1
local function call(c, name, ...)
  if method_calls then return c[name](c, ...) end
  return c[name](...)
end
M.call = call

local function ph_buffers()
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'ph' then table.insert(out, b) end
  end
  return out
end

function M.on_status(err, params)
  M.status = params
  local gpu = params and (params.gpu or params)
  local name = type(gpu) == 'table' and gpu.name or (type(gpu) == 'string' and gpu or nil)
  M.status_text = name and ('GPU ' .. name .. (gpu.arch and (' ' .. gpu.arch) or '')) or 'no GPU'
  vim.api.nvim_exec_autocmds('User', { pattern = 'PhStatus', modeline = false })
end

--- For a statusline: `%{v:lua.require'ph'.statusline()}`.
function M.statusline() return M.status_text or '' end

local start -- forward declaration

-- A crash restarts the server (five in three minutes stop it) and says which file was open.
local function on_exit(code, signal)
  if M.stopping then return end
  if code == 0 and signal == 0 then return end
  local now = uv.now()
  local recent = {}
  for _, t in ipairs(M.crashes) do if now - t < 180000 then table.insert(recent, t) end end
  table.insert(recent, now)
  M.crashes = recent
  vim.schedule(function()
    local file = vim.fn.expand('%:~:.')
    local where = (vim.bo.filetype == 'ph' and file ~= '') and (' while ' .. file .. ' was open') or ''
    if #recent >= 5 then
      notify(('ph-lsp stopped%s: 5 crashes in 3 minutes; :PhRestart when fixed'):format(where), vim.log.levels.ERROR)
      return
    end
    notify(('ph-lsp crashed (exit %d, signal %d)%s; restarting'):format(code, signal, where), vim.log.levels.WARN)
    M.client_id = nil
    -- One tick later: Neovim's own exit handling (scheduled after this) detaches the buffers
    -- and forgets the dead client first, so vim.lsp.start cannot reuse it (0.10).
    vim.schedule(function() for _, b in ipairs(ph_buffers()) do start(b) end end)
  end)
end

-- What the client has, by Neovim version (0.7 has code lenses, not inlay hints nor
-- vim.lsp.completion; 0.10 has inlay hints; 0.11 vim.lsp.completion).
M.features = {
  codelens = vim.lsp.codelens ~= nil,
  inlay_hints = vim.lsp.inlay_hint ~= nil,
  completion = vim.lsp.completion ~= nil and vim.lsp.completion.enable ~= nil,
}

local lens_group = vim.api.nvim_create_augroup('ph_lens', { clear = true })

-- Code lenses: 0.12 keeps them fresh itself once enabled (refresh() is deprecated there);
-- 0.7-0.11 refresh on the events below and after a compile.
local function lens_refresh(bufnr)
  if vim.lsp.codelens.enable then
    pcall(vim.lsp.codelens.enable, true, { bufnr = bufnr })
  else
    pcall(vim.lsp.codelens.refresh)
  end
end

-- Per buffer: completion (omnifunc, and vim.lsp.completion where present), inlay hints and
-- code lenses where the client shows them, then the user's on_attach.
function M.on_attach(client, bufnr)
  vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc' -- <C-x><C-o>
  -- What took, per buffer (the tests read it; :checkhealth-like questions too).
  M.enabled = M.enabled or {}
  M.enabled[bufnr] = {}
  if M.features.completion then
    M.enabled[bufnr].completion = pcall(vim.lsp.completion.enable, true, client.id, bufnr, { autotrigger = false })
  end
  if M.features.inlay_hints and M.opts.inlay_hints ~= false then
    -- 0.10+: enable(bool, {bufnr}); a 0.10 prerelease took (bufnr, bool).
    M.enabled[bufnr].inlay_hints = pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
      or pcall(vim.lsp.inlay_hint.enable, bufnr, true)
  end
  if M.features.codelens and M.opts.codelens ~= false then
    vim.api.nvim_clear_autocmds({ group = lens_group, buffer = bufnr })
    if not vim.lsp.codelens.enable then
      vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost', 'CursorHold' }, { group = lens_group,
        buffer = bufnr, callback = function() pcall(vim.lsp.codelens.refresh) end })
    end
    lens_refresh(bufnr)
  end
  -- `gd` goes to the definition, and `K` hovers where Neovim does not map it itself (before
  -- 0.10 `K` runs 'keywordprg', man); a mapping the user made stays. `mappings = false`: none.
  if M.opts.mappings ~= false then
    local function map(lhs, fn, desc)
      local mine = vim.b[bufnr].ph_maps or {}
      if vim.fn.maparg(lhs, 'n') == '' or mine[lhs] then -- ours from an earlier attach: renewed
        vim.keymap.set('n', lhs, fn, { buffer = bufnr, desc = desc })
        mine[lhs] = true
        vim.b[bufnr].ph_maps = mine
      end
    end
    map('gd', vim.lsp.buf.definition, 'ph: go to definition')
    if vim.fn.has('nvim-0.10') == 0 then map('K', vim.lsp.buf.hover, 'ph: hover') end
  end
  if M.opts.on_attach then M.opts.on_attach(client, bufnr) end
end

-- window/showMessageRequest without a blocking inputlist: the question is shown and answered
-- with nothing (our commands never need it: they get their offers in the command's result).
local function on_message_request(_, params)
  local names = {}
  for _, a in ipairs(params and params.actions or {}) do table.insert(names, a.title) end
  notify(params.message .. (#names > 0 and (' [' .. table.concat(names, ' / ') .. ']') or ''), vim.log.levels.WARN)
  return vim.NIL
end

-- ph/compiled: the server's compile on save finished (`:w` feedback).
function M.on_compiled(_, params)
  M.last_compiled = params
  if type(params) ~= 'table' then return end
  local msg = params.message or (params.ok and 'compiled' or 'compile failed')
  vim.schedule(function()
    notify(msg, params.ok and vim.log.levels.INFO or vim.log.levels.WARN)
    if M.features.codelens and not vim.lsp.codelens.enable then pcall(vim.lsp.codelens.refresh) end
    vim.api.nvim_exec_autocmds('User', { pattern = 'PhCompiled', modeline = false })
  end)
end

--- A standard-library file (`.../std/NAME.ph`): go to definition opens it read-only.
function M.is_std_file(path) return path:match('/std/[^/]+%.ph$') ~= nil end

-- Go to definition: a jump into the standard library opens it read-only (its functions are
-- the language's; edit std/ on purpose, not by a jump).
function M.on_definition(err, result, ctx, cfg)
  local from = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  local handler = vim.lsp.handlers['textDocument/definition']
  -- 0.7 calls handlers as (err, result, ctx, config).
  local r = handler(err, result, ctx, cfg)
  local buf = vim.api.nvim_get_current_buf()
  if buf ~= from and M.is_std_file(vim.api.nvim_buf_get_name(buf)) then
    vim.bo[buf].readonly = true
    vim.bo[buf].modifiable = false
  end
  return r
end

-- 0.11+ jumps (vim.lsp.buf.definition, the tagfunc) without the client's handler: a std file
-- entered while a definition request from a ph buffer is in flight, or just answered, is the
-- jump's target.
local jump = nil
local std_group = vim.api.nvim_create_augroup('ph_std', { clear = true })
if vim.fn.has('nvim-0.11') == 1 then
  vim.api.nvim_create_autocmd('LspRequest', { group = std_group, callback = function(ev)
    local r = ev.data and ev.data.request
    if r and r.type == 'pending' and r.method == 'textDocument/definition' then
      jump = { from = ev.buf, at = vim.loop.now() }
    end
  end })
  vim.api.nvim_create_autocmd('BufEnter', { group = std_group, callback = function(ev)
    if not jump then return end
    local j = jump
    if vim.loop.now() - j.at > 10000 then jump = nil; return end
    if ev.buf ~= j.from and M.is_std_file(vim.api.nvim_buf_get_name(ev.buf)) then
      jump = nil
      vim.bo[ev.buf].readonly = true
      vim.bo[ev.buf].modifiable = false
    end
  end })
end

local function client_config(bufnr)
  local cfg = M.cfg
  return {
    name = 'ph',
    cmd = cfg.cmd,
    root_dir = config.root_dir(vim.api.nvim_buf_get_name(bufnr), cfg.root_markers),
    settings = cfg.settings,
    init_options = cfg.settings.ph,
    handlers = { ['ph/status'] = M.on_status, ['ph/compiled'] = M.on_compiled,
      ['window/showMessageRequest'] = on_message_request, ['textDocument/definition'] = M.on_definition },
    on_exit = on_exit,
    on_attach = M.on_attach,
    capabilities = M.opts.capabilities,
  }
end

-- Attaches `bufnr` to ph-lsp, starting it if needed.
start = function(bufnr)
  if vim.lsp.start then -- 0.8+: reuses a client with the same name and root
    return vim.lsp.start(client_config(bufnr), { bufnr = bufnr })
  end
  -- 0.7: one client for all ph buffers.
  if not M.client_id or not vim.lsp.get_client_by_id(M.client_id) then
    M.client_id = vim.lsp.start_client(client_config(bufnr))
    if not M.client_id then
      notify('could not start ' .. table.concat(M.cfg.cmd, ' ') .. ': is it on PATH? Give setup{cmd = {...}} (see :help ph-setup)', vim.log.levels.ERROR)
      return nil
    end
  end
  vim.lsp.buf_attach_client(bufnr, M.client_id)
  return M.client_id
end
M.start = start

--------------------------------------------------------------------------------------------
-- Commands
--------------------------------------------------------------------------------------------

local function cell(v)
  if v == nil or v == vim.NIL then return '' end
  if type(v) == 'number' then
    if v == math.floor(v) and math.abs(v) < 1e15 then return string.format('%d', v) end
    local a = math.abs(v)
    if a ~= 0 and (a < 1e-3 or a >= 1e6) then return string.format('%.3e', v) end
    return string.format(a < 1 and '%.4f' or '%.3f', v)
  end
  if type(v) == 'boolean' then return v and 'yes' or 'no' end
  if type(v) == 'table' then
    if islist(v) then return table.concat(vim.tbl_map(cell, v), ',') end
    local parts = {}
    for k, x in pairs(v) do table.insert(parts, k .. '=' .. cell(x)) end
    table.sort(parts)
    return table.concat(parts, ' ')
  end
  return tostring(v)
end

local preferred = { 'kernel', 'ptxas', 'config', 'configuration', 'target', 'gpu', 'device', 'sizes', 'grid', 'time_ms',
  'timeMs', 'median_ms', 'tflops', 'TFLOPs', 'gbps', 'GBps', 'percentOfPeak', 'check', 'max_abs_err', 'maxError',
  'max_error', 'error', 'ok', 'status' }
-- Keys that are plumbing, not figures: left out of the table.
local hidden = { result = true, stdout = true, stderr = true, summary = true, message = true, offer = true,
  exitCode = true, outputs = true, scalars = true, seed = true, analyze_ms = true, log = true, outputDir = true,
  defaultSizes = true, note = true, requestedTarget = true, figuresDetail = true, compile_ms = true, threads = true }

local function scalars_of(r)
  local out = {}
  for k, x in pairs(r) do
    if not hidden[k] and (type(x) ~= 'table' or k == 'sizes' or k == 'grid' or k == 'config') then out[k] = x end
  end
  return out
end

-- `check = {passed, outputs = {{max_abs_err}}}` (ph run --json) reads as two columns.
local function flatten_check(row, check)
  if type(check) == 'table' and not islist(check) then
    row.check = check.passed == nil and check or (check.passed and 'passed' or 'FAILED')
    local worst
    for _, o in ipairs(type(check.outputs) == 'table' and check.outputs or {}) do
      local e = tonumber(o.max_abs_err or o.maxError)
      if e and (not worst or e > worst) then worst = e end
    end
    if worst then row.max_abs_err = worst end
  elseif check ~= nil then
    row.check = check
  end
  return row
end

--- The rows of a run result: one per variant (`variants`/`results`/`rows`), else one. The
--- server wraps `ph run --json` output in `result` beside `ok`, `kernel`, `target`.
function M.result_rows(result)
  if result == nil or result == vim.NIL then return {} end
  if type(result) ~= 'table' then return { { result = result } } end
  if islist(result) then
    return vim.tbl_map(function(r) return flatten_check(scalars_of(r), r.check) end, result)
  end
  local inner = (type(result.result) == 'table' and not islist(result.result)) and result.result or nil
  local base = vim.tbl_extend('force', scalars_of(result), inner and scalars_of(inner) or {})
  local holder = inner or result
  -- ph.compile: `figures` maps each kernel to its ptxas figures and occupancy.
  if type(result.figures) == 'table' and next(result.figures) ~= nil and not islist(result.figures) then
    base.kernel = nil
    local rows = {}
    for kernel, ptxas in pairs(result.figures) do
      table.insert(rows, vim.tbl_extend('force', { kernel = kernel, ptxas = ptxas }, base))
    end
    table.sort(rows, function(a, b) return a.kernel < b.kernel end)
    return rows
  end
  for _, key in ipairs({ 'variants', 'results', 'rows', 'kernels', 'configs' }) do
    local v = holder[key]
    if type(v) == 'table' and #v > 0 and type(v[1]) == 'table' then
      base[key] = nil
      return vim.tbl_map(function(row)
        return flatten_check(vim.tbl_extend('force', base, scalars_of(row)), row.check)
      end, v)
    end
  end
  return { flatten_check(base, holder.check) }
end

--- A fixed-width table (a list of lines) of result rows.
function M.format_table(rows)
  if #rows == 0 then return { '(no result)' } end
  local keys, seen = {}, {}
  for _, k in ipairs(preferred) do
    for _, r in ipairs(rows) do if r[k] ~= nil and not seen[k] then seen[k] = true; table.insert(keys, k) end end
  end
  local rest = {}
  for _, r in ipairs(rows) do
    for k in pairs(r) do if not seen[k] and not hidden[k] then seen[k] = true; table.insert(rest, k) end end
  end
  table.sort(rest)
  vim.list_extend(keys, rest)
  local width, cells = {}, {}
  for i, k in ipairs(keys) do width[i] = #k end
  for _, r in ipairs(rows) do
    local line = {}
    for i, k in ipairs(keys) do line[i] = cell(r[k]); width[i] = math.max(width[i], #line[i]) end
    table.insert(cells, line)
  end
  local function fmt(cs)
    local out = {}
    for i, c in ipairs(cs) do out[i] = c .. string.rep(' ', width[i] - #c) end
    return (table.concat(out, ' | '):gsub('%s+$', ''))
  end
  local lines = { fmt(keys) }
  local rule = {}
  for i in ipairs(keys) do rule[i] = string.rep('-', width[i]) end
  table.insert(lines, table.concat(rule, '-+-'))
  for _, cs in ipairs(cells) do table.insert(lines, fmt(cs)) end
  return lines
end

-- A scratch buffer in a split, reused by name; returns the buffer.
local function scratch(name, lines, filetype, vertical)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].buftype = 'nofile'
  if filetype then vim.bo[buf].filetype = filetype end
  if vim.fn.bufwinnr(buf) == -1 then
    local cur = vim.api.nvim_get_current_win()
    vim.cmd((vertical and 'vertical ' or 'botright ') .. 'sbuffer ' .. buf)
    if not vertical then vim.cmd('resize ' .. math.min(#lines + 1, 15)) end
    vim.api.nvim_set_current_win(cur)
  end
  return buf
end

-- Arguments naming the kernel at the cursor, plus `extra`.
local function cursor_args(client, extra)
  local win = vim.api.nvim_get_current_win()
  local params = vim.lsp.util.make_position_params(win, client.offset_encoding or 'utf-16')
  local s = M.cfg.settings.ph
  return vim.tbl_extend('force', { uri = params.textDocument.uri, position = params.position,
    target = s.target, sizes = s.sizes, noGpu = s.noGpu or 'ask' }, extra or {})
end

-- `:PhRun cpu N=256 D=64` -> target and sizes.
local function parse_fargs(fargs, extra)
  local sizes = vim.deepcopy(M.cfg.settings.ph.sizes or {})
  local any_size = false
  for _, a in ipairs(fargs or {}) do
    local k, v = a:match('^([%w_]+)=(%d+)$')
    if k then sizes[k] = tonumber(v); any_size = true
    elseif a:match('^target=') then extra.target = a:sub(8)
    elseif a ~= '' then extra.target = a end
  end
  if any_size then extra.sizes = sizes end
  return extra
end

local show_ir -- forward

--- Sends workspace/executeCommand `command` for the buffer's client; `on_result(result)`.
function M.execute(command, args, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then notify('ph-lsp is not running for this buffer', vim.log.levels.ERROR); return end
  M.last_result, M.last_error = nil, nil
  local started = uv.hrtime()
  local req_id
  local _, id = call(client, 'request', 'workspace/executeCommand', { command = command, arguments = { args } }, function(err, result)
    local secs = (uv.hrtime() - started) / 1e9
    if M.inflight and M.inflight.id == req_id then M.inflight = nil end
    if err then
      M.last_error = err
      notify(('%s failed: %s'):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    M.last_result = result
    if on_result then on_result(result, secs) end
    vim.api.nvim_exec_autocmds('User', { pattern = 'PhResult', modeline = false })
  end, bufnr)
  req_id = id
  M.inflight = { client = client, id = id, command = command }
end

--- Cancels the command in flight ($/cancelRequest: the server stops the `ph` it started).
function M.cancel()
  local f = M.inflight
  if not f then return notify('nothing to cancel') end
  call(f.client, 'cancel_request', f.id)
  M.inflight = nil
  notify(f.command .. ' cancelled')
end

--- The results header: what ran, where, with which sizes (`*`: the server's default).
function M.result_header(title, result, secs)
  local r = type(result) == 'table' and result or {}
  local inner = type(r.result) == 'table' and r.result or {}
  local parts = { title }
  local target = r.target or inner.target
  if type(target) == 'string' then table.insert(parts, 'on ' .. target) end
  local sizes = type(inner.sizes) == 'table' and inner.sizes or (type(r.sizes) == 'table' and r.sizes or nil)
  if sizes and next(sizes) then
    local defaulted = {}
    for k, v in pairs(type(r.defaultSizes) == 'table' and r.defaultSizes or {}) do
      defaulted[type(k) == 'number' and v or k] = true
    end
    local names, any = vim.tbl_keys(sizes), false
    table.sort(names)
    local s = {}
    for _, k in ipairs(names) do
      table.insert(s, k .. '=' .. cell(sizes[k]) .. (defaulted[k] and '*' or ''))
      any = any or defaulted[k] or false
    end
    table.insert(parts, 'sizes ' .. table.concat(s, ' '))
    if any then table.insert(parts, "(* the server's default: see ph.sizes)") end
  end
  if type(r.note) == 'string' then table.insert(parts, '· ' .. r.note) end
  return ('── %s (%.2f s)'):format(table.concat(parts, ' '), secs or 0)
end

local show_run -- forward

-- No GPU: the server's offer (run on the CPU target), asked through vim.ui.select so that a
-- UI plugin, a script or a test can answer; 'Always on CPU' sets noGpu = 'cpu' for the session.
local function offer_cpu(title, result)
  local choices = { 'Run on CPU', 'Always on CPU', 'Cancel' }
  vim.ui.select(choices, { prompt = (result.error or 'No GPU') .. '. Run ' .. (result.kernel or 'it') .. ' on the CPU target?' },
    function(choice)
      if not choice or choice == 'Cancel' then return end
      if choice == 'Always on CPU' then M.cfg.settings.ph.noGpu = 'cpu' end
      M.execute('ph.run', result.offer.arguments[1], show_run(title))
    end)
end

show_run = function(title)
  return function(result, secs)
    if type(result) == 'table' and result.ok == false and type(result.offer) == 'table' then
      return offer_cpu(title, result)
    end
    local lines = { M.result_header(title, result, secs) }
    vim.list_extend(lines, M.format_table(M.result_rows(result)))
    if type(result) == 'table' and type(result.message) == 'string' then
      vim.list_extend(lines, vim.split(result.message, '\n'))
    end
    -- A failed run's reason is on the driver's stderr.
    if type(result) == 'table' and result.ok == false and type(result.stderr) == 'string' then
      vim.list_extend(lines, vim.split(vim.trim(result.stderr), '\n'))
    end
    M.last_lines = lines
    scratch('ph://results', lines, 'phresults', false)
    local summary = type(result) == 'table' and (result.summary or result.message) or nil
    notify(type(summary) == 'string' and summary or lines[#lines])
  end
end

function M.run(fargs)
  local c = M.client(); if not c then return notify('ph-lsp is not running', vim.log.levels.ERROR) end
  M.execute('ph.run', cursor_args(c, parse_fargs(fargs, {})), show_run('ph.run'))
end

function M.bench(fargs)
  local c = M.client(); if not c then return notify('ph-lsp is not running', vim.log.levels.ERROR) end
  M.execute('ph.run', cursor_args(c, parse_fargs(fargs, { bench = true })), show_run('ph.run (bench)'))
end

function M.compile()
  local c = M.client(); if not c then return notify('ph-lsp is not running', vim.log.levels.ERROR) end
  local s = M.cfg.settings.ph
  -- A cubin is for a GPU whatever the run target is: 'gpu' lets ph build pick the arch.
  M.execute('ph.compile', { uri = vim.uri_from_bufnr(0), outputDir = s.outputDir, target = 'gpu' },
    show_run('ph.compile'))
end

M.stages = { 'tile', 'gpu', 'llvm', 'ptx', 'sass' }
local ft_of_stage = { tile = 'mlir', gpu = 'mlir', llvm = 'llvm', ptx = 'ptx', sass = 'asm' }
local ns = vim.api.nvim_create_namespace('ph_ir')

-- Normalises a ph.showIR result into its text and, per IR line, the 0-based .ph line.
function M.parse_ir(result)
  if type(result) == 'string' then return result, {} end
  local r = result or {}
  local text = r.text or r.ir or r.content or vim.inspect(result)
  local map = {}
  local per = r.sourceLines or r.lineMap
  if type(per) == 'table' then
    for i, s in ipairs(per) do if type(s) == 'number' and s >= 0 then map[i - 1] = s end end
  end
  local pairs_ = r.map or r.lines or r.mapping
  if type(pairs_) == 'table' then
    for _, p in ipairs(pairs_) do
      local ir = p[1] or p.irLine or p.ir
      local src = p[2] or p.srcLine or p.sourceLine or p.src or p.line
      if type(ir) == 'number' and type(src) == 'number' then map[ir] = src end
    end
  end
  -- The trailing ` loc(...)` of each MLIR line is in the map already; the line count stays.
  local lines = vim.split(text, '\n')
  for i, l in ipairs(lines) do
    if not l:match('^#loc') then lines[i] = (l:gsub('%s+loc%(.*%)%s*$', '')) end
  end
  return table.concat(lines, '\n'), map
end

show_ir = function(src_buf, stage, result)
  local text, map = M.parse_ir(result)
  local kernel = type(result) == 'table' and result.kernel or 'kernel'
  local name = ('ph-ir://%s.%s.%s'):format(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(src_buf), ':t:r'),
    kernel, stage)
  local buf = scratch(name, vim.split(text, '\n'), ft_of_stage[stage], true)
  M.ir_maps[buf] = map -- a Lua table: sparse 0-based keys do not convert to a Vim dict
  -- Highlight, in the IR, the lines that came from the source line under the cursor.
  local group = vim.api.nvim_create_augroup('ph_ir_' .. buf, { clear = true })
  vim.api.nvim_create_autocmd('CursorMoved', { group = group, buffer = src_buf, callback = function()
    if not vim.api.nvim_buf_is_valid(buf) then return true end
    local line = vim.api.nvim_win_get_cursor(0)[1] - 1
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    for ir, s in pairs(map) do
      if s == line then vim.api.nvim_buf_add_highlight(buf, ns, 'Visual', ir, 0, -1) end
    end
  end })
  return buf
end

function M.show_ir(stage)
  stage = (stage and stage ~= '') and stage or 'tile'
  local c = M.client(); if not c then return notify('ph-lsp is not running', vim.log.levels.ERROR) end
  local src_buf = vim.api.nvim_get_current_buf()
  M.execute('ph.showIR', cursor_args(c, { stage = stage }), function(result)
    M.last_ir_buf = show_ir(src_buf, stage, result)
  end)
end

function M.restart()
  M.crashes = {}
  M.stopping = true
  for _, c in ipairs(get_clients()) do call(c, 'stop') end
  M.client_id = nil
  vim.defer_fn(function()
    M.stopping = false
    for _, b in ipairs(ph_buffers()) do start(b) end
    notify('ph-lsp restarted')
  end, 500)
end

--------------------------------------------------------------------------------------------
-- Setup
--------------------------------------------------------------------------------------------

--- require('ph').setup{ cmd = {'/path/to/ph-lsp'}, target = 'cpu', sizes = {N = 256}, on_attach = fn }
function M.setup(opts)
  M.opts = opts or {}
  M.cfg = config.build(M.opts)
  local group = vim.api.nvim_create_augroup('ph', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, { group = group, pattern = '*.ph',
    command = 'setfiletype ph' })
  if vim.lsp.config and vim.lsp.enable and not M.opts.no_lsp_config then
    -- 0.11+: the declarative form; vim.lsp.enable attaches on FileType.
    local c = client_config(0)
    c.root_dir = nil
    c.root_markers = M.cfg.root_markers
    c.filetypes = M.cfg.filetypes
    vim.lsp.config('ph', c)
    vim.lsp.enable('ph')
  else
    vim.api.nvim_create_autocmd('FileType', { group = group, pattern = 'ph',
      callback = function(ev) start(ev.buf) end })
    for _, b in ipairs(ph_buffers()) do start(b) end
  end
  local cmd = vim.api.nvim_create_user_command
  cmd('PhRun', function(a) M.run(a.fargs) end,
    { nargs = '*', desc = 'Run the kernel at the cursor: [target] [NAME=SIZE ...]' })
  cmd('PhBench', function(a) M.bench(a.fargs) end,
    { nargs = '*', desc = 'Benchmark every autotune variant of the kernel at the cursor' })
  cmd('PhCompile', function() M.compile() end, { desc = 'Compile the file to cubin' })
  cmd('PhShowIR', function(a) M.show_ir(a.args) end, { nargs = '?', desc = 'Show IR: tile|gpu|llvm|ptx|sass',
    complete = function() return M.stages end })
  cmd('PhCancel', function() M.cancel() end, { desc = 'Cancel the running :PhRun/:PhBench/:PhShowIR' })
  cmd('PhRestart', function() M.restart() end, { desc = 'Restart ph-lsp' })
  cmd('PhLens', function() pcall(vim.lsp.codelens.run) end, { desc = 'Run the code lens of the cursor line' })
  -- Lens commands run here, so a lens click gets the same results buffer as :PhRun.
  local function lens(fn)
    return function(command)
      local a = (command.arguments or {})[1] or {}
      fn(a)
    end
  end
  vim.lsp.commands['ph.run'] = lens(function(a)
    local s = M.cfg.settings.ph
    a = vim.tbl_extend('keep', a, { target = s.target, sizes = s.sizes, noGpu = s.noGpu or 'ask' })
    M.execute('ph.run', a, show_run(a.bench and 'ph.run (bench)' or 'ph.run'))
  end)
  vim.lsp.commands['ph.compile'] = lens(function(a)
    M.execute('ph.compile', vim.tbl_extend('keep', a, { outputDir = M.cfg.settings.ph.outputDir, target = 'gpu' }),
      show_run('ph.compile'))
  end)
  vim.lsp.commands['ph.showIR'] = lens(function(a)
    local src = vim.api.nvim_get_current_buf()
    M.execute('ph.showIR', a, function(result) M.last_ir_buf = show_ir(src, a.stage or 'tile', result) end)
  end)
  -- `:w`: say that the compile on save started; ph/compiled says how it ended.
  vim.api.nvim_create_autocmd('BufWritePost', { group = group, pattern = '*.ph', callback = function(ev)
    if M.cfg.settings.ph.compileOnSave and M.client(ev.buf) then
      -- After the write's own message is drawn: two lines at once would ask for Enter.
      local name = vim.fn.fnamemodify(ev.file, ':t')
      vim.defer_fn(function() notify('compiling ' .. name .. ' (compile on save)') end, 0)
    end
  end })
end

return M
