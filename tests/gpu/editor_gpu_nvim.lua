-- editor_gpu_nvim.lua - Neovim headless with the plugin (nvim/) and default settings on the
-- README's example: the lens "▶ Run on <GPU>", :PhRun (the checked result, the server's default
-- sizes in the ph://results header, the device), :PhBench (a time). PH_EXPECT=cpu (no GPU):
-- the lens "▶ Run on CPU" and the no-GPU question answered "Run on CPU" instead. Issue 19.
-- Run: PH_LSP=.../ph-lsp PH_FILE=examples/flash_attention.ph PH_GPU_NAME='NVIDIA H200' \
--      nvim --headless --clean -c 'luafile tests/gpu/editor_gpu_nvim.lua'
-- PH_PLUGIN: the plugin folder (default: nvim/ of this checkout).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local plugin = os.getenv('PH_PLUGIN') or (here .. '/../../nvim')
vim.opt.runtimepath:prepend(plugin)
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
vim.notify = function() end

local expect = os.getenv('PH_EXPECT') or 'gpu'
local gpu_name = os.getenv('PH_GPU_NAME') or ''
local lsp_bin = os.getenv('PH_LSP') or 'ph-lsp'
local file = os.getenv('PH_FILE') or (here .. '/../../examples/flash_attention.ph')
local timeout = tonumber(os.getenv('PH_TIMEOUT') or '') or 240000
local function lenses(b)
  if vim.fn.has('nvim-0.12') == 1 then return vim.lsp.codelens.get({ bufnr = b }) end
  return vim.lsp.codelens.get(b)
end
local function titles(b)
  local t = {}
  for _, l in ipairs(lenses(b) or {}) do l = l.lens or l; if l.command then table.insert(t, l.command.title) end end
  return t
end

local ok, err = pcall(function()
  local v = vim.version()
  io.stdout:write(('Neovim %d.%d.%d, %s\n'):format(v.major, v.minor, v.patch, lsp_bin))
  local ph = require('ph')
  -- Default settings: the plugin's own (target auto, the `ph` next to ph-lsp, the server's sizes).
  local tmp = vim.fn.tempname() .. '_phgpu'
  vim.fn.mkdir(tmp, 'p')
  local src = tmp .. '/flash_attention.ph'
  vim.fn.writefile(vim.fn.readfile(file), src)
  -- PH_DRIVER: another driver (`ph-lsp --ph`; the rehearsal's stand-in), not a setting.
  local driver = os.getenv('PH_DRIVER')
  ph.setup({ cmd = driver and { lsp_bin, '--ph', driver } or { lsp_bin } })
  vim.cmd('edit ' .. vim.fn.fnameescape(src))
  local buf = vim.api.nvim_get_current_buf()
  check(vim.wait(20000, function() return ph.client(buf) ~= nil end, 20), 'ph-lsp attached')
  check(vim.wait(60000, function() return ph.status_text ~= nil end, 50), 'GPU status: ' .. tostring(ph.status_text))

  local short = gpu_name:gsub('^NVIDIA ', ''):gsub('^Tesla ', '')
  local want = expect == 'gpu' and ('▶ Run on ' .. (short ~= '' and short or '?')) or '▶ Run on CPU'
  -- The lenses follow the GPU status: asked again until the Run lens names the target.
  local got = vim.wait(30000, function()
    if vim.lsp.codelens.enable then vim.lsp.codelens.enable(true, { bufnr = buf }) else pcall(vim.lsp.codelens.refresh) end
    return vim.tbl_contains(titles(buf), want)
  end, 500)
  check(got, ('lenses %s (want %s)'):format(table.concat(titles(buf), ' | '), want))
  check(vim.tbl_contains(titles(buf), 'Benchmark'), 'a Benchmark lens')

  local asked
  vim.ui.select = function(choices, o, cb) asked = o.prompt; cb(expect == 'cpu' and 'Run on CPU' or 'Cancel') end
  local function results() return vim.api.nvim_buf_get_lines(vim.fn.bufnr('ph://results'), 0, -1, false) end
  local target = expect == 'gpu' and 'gpu' or 'cpu'

  -- :PhRun with the cursor in the kernel, no arguments.
  vim.api.nvim_win_set_cursor(0, { 10, 4 })
  vim.cmd('PhRun')
  local answered = vim.wait(timeout, function()
    local r = ph.last_result
    return ph.last_error ~= nil or (r ~= nil and not (r.ok == false and r.offer)) or (expect == 'gpu' and asked ~= nil)
  end, 50)
  check(answered, ':PhRun answered')
  check((expect == 'gpu') == (asked == nil), expect == 'gpu' and ('no CPU fallback offered: ' .. tostring(asked))
    or ('the no-GPU question: ' .. tostring(asked)))
  local r = ph.last_result or {}
  local inner = type(r.result) == 'table' and r.result or {}
  local lines = results()
  io.stdout:write(table.concat(lines, '\n') .. '\n')
  check(r.ok == true, ':PhRun succeeded: ' .. tostring(r.summary or (ph.last_error and ph.last_error.message)))
  check(inner.target == target, ('it ran on the %s target: %s'):format(target, tostring(inner.target)))
  if expect == 'gpu' then
    check(type(inner.device) == 'string' and (gpu_name == '' or inner.device == gpu_name), 'the device: ' .. tostring(inner.device))
  end
  check(type(inner.check) == 'table' and inner.check.passed == true, 'checked against the interpreter')
  local h = lines[1] or ''
  check(h:find('── ph.run on ' .. target, 1, true) ~= nil and h:find('Nq=%d+%*') ~= nil and h:find('Nk=%d+%*') ~= nil,
    "the header names the target and the server's default sizes: " .. h)
  check(table.concat(lines, '\n'):find('passed', 1, true) ~= nil, 'the table shows the check passed')

  -- :PhBench: a time.
  asked = nil
  vim.cmd('PhBench')
  answered = vim.wait(timeout, function()
    local b = ph.last_result
    return ph.last_error ~= nil or (b ~= nil and not (b.ok == false and b.offer)) or (expect == 'gpu' and asked ~= nil)
  end, 50)
  check(answered, ':PhBench answered')
  local b = ph.last_result or {}
  local rows = ph.result_rows(b)
  local t = rows[1] and (rows[1].ms or rows[1].time_ms)
  io.stdout:write(table.concat(results(), '\n') .. '\n')
  check(b.ok == true and type(t) == 'number' and t > 0, ':PhBench time: ' .. tostring(t) .. ' ms, ' .. tostring(b.summary))
  if expect == 'gpu' then check(b.target == 'gpu', ':PhBench on the GPU: ' .. tostring(b.target)) end
end)
if not ok then failures = failures + 1; io.stdout:write('ERROR ' .. tostring(err) .. '\n') end
io.stdout:write(('%d passed, %d failed\n'):format(passes, failures)); io.stdout:flush()
if failures == 0 then vim.cmd('qall!') else vim.cmd('cquit! 1') end
