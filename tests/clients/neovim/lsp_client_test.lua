-- A real LSP client against ph-lsp: Neovim's built-in client (Debian's 0.7, so
-- vim.lsp.start_client, no plugin). Opens a copy of examples/causal_attention.ph
-- with a misspelt builtin, waits for the diagnostics, hovers `online_softmax`,
-- goes to its definition in std/attention.ph, applies the quick fix, and checks
-- the diagnostics clear. Prints `N passed, M failed`; exits non-zero on failure.
--   PH_LSP=build/bin/ph-lsp PH_SRC=. nvim --headless --clean -c 'luafile tests/clients/neovim/lsp_client_test.lua'
local t0 = vim.loop.hrtime()
local function ms() return math.floor((vim.loop.hrtime() - t0) / 1e6) end
local passes, failures = 0, 0
local function check(cond, what)
  if cond then passes = passes + 1 else failures = failures + 1 end
  io.stdout:write(string.format("%s %s (%d ms)\n", cond and "ok  " or "FAIL", what, ms()))
end

local ok, err = pcall(function()
  local lsp_bin = assert(os.getenv("PH_LSP"), "set PH_LSP to the ph-lsp binary")
  local src = assert(os.getenv("PH_SRC"), "set PH_SRC to the source tree")
  -- A copy with an error: `rowmax` misspelt as `rowmx` in a new line.
  local lines = vim.fn.readfile(src .. "/examples/causal_attention.ph")
  for i, l in ipairs(lines) do
    if l:match("^%s*causal_mask%(") then
      table.insert(lines, i + 1, "    var mx = rowmx(s)")
      break
    end
  end
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local file = dir .. "/causal_attention.ph"
  vim.fn.writefile(lines, file)
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = "ph"

  local diag_version = nil
  local client_id = vim.lsp.start_client({
    name = "ph-lsp",
    cmd = { lsp_bin, "--no-gpu-detect" },
    root_dir = dir,
    handlers = {
      ["textDocument/publishDiagnostics"] = function(e, result, ctx, config)
        if result.uri == vim.uri_from_bufnr(bufnr) then diag_version = result.version end
        return vim.lsp.diagnostic.on_publish_diagnostics(e, result, ctx, config)
      end,
    },
  })
  check(client_id ~= nil, "start_client")
  check(vim.lsp.buf_attach_client(bufnr, client_id), "buf_attach_client")

  check(vim.wait(10000, function() return diag_version ~= nil end, 10), "publishDiagnostics received")
  local diags = vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
  check(#diags == 1, "one error (got " .. #diags .. ")")
  local d = diags[1] or {}
  check(d.message == "unknown function `rowmx`", "message: " .. tostring(d.message))
  check(d.code == "E0202", "code: " .. tostring(d.code))
  check(d.lnum == 17 and d.col == 13, string.format("position %s:%s", tostring(d.lnum), tostring(d.col)))

  -- Hover `online_softmax` at its call.
  local call_line
  for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if l:match("online_softmax%(") then call_line = i - 1 end
  end
  local pos = { line = call_line, character = 8 }
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = pos }
  local results = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 5000)
  local value
  for _, r in pairs(results or {}) do
    if r.result and r.result.contents then value = r.result.contents.value end
  end
  value = value or ""
  check(value:find("fn online_softmax(acc, m, l, s, v)", 1, true) ~= nil, "hover shows the signature")
  check(value:find("online softmax", 1, true) ~= nil, "hover shows the documentation")
  check(value:find("std/attention.ph:12", 1, true) ~= nil, "hover links std/attention.ph:12")

  local defs = vim.lsp.buf_request_sync(bufnr, "textDocument/definition", params, 5000)
  local def
  for _, r in pairs(defs or {}) do if r.result then def = r.result[1] end end
  check(def ~= nil and def.uri:match("std/attention%.ph$") ~= nil and def.range.start.line == 11,
        "definition in std/attention.ph line 12")

  -- The quick fix turns `rowmx` into `rowmax`; the error goes away.
  local actions = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.lnum, character = d.col } },
    context = { diagnostics = {} },
  }, 5000)
  local fix
  for _, r in pairs(actions or {}) do
    for _, a in ipairs(r.result or {}) do if a.title == "use `rowmax`" then fix = a end end
  end
  check(fix ~= nil, "quick fix `use rowmax` offered")
  if fix then
    local before = diag_version
    vim.lsp.util.apply_workspace_edit(fix.edit, "utf-16")
    check(vim.wait(10000, function() return diag_version ~= before end, 10), "diagnostics after the edit")
    local left = vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
    check(#left == 0, "no error after the fix (got " .. #left .. ")")
  end

  vim.lsp.get_client_by_id(client_id).stop()
  check(vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 10), "client stopped cleanly")
end)
if not ok then
  failures = failures + 1
  io.stdout:write("ERROR " .. tostring(err) .. "\n")
end
io.stdout:write(string.format("%d passed, %d failed\n", passes, failures))
io.stdout:flush()
if failures == 0 then vim.cmd("qall!") else vim.cmd("cquit! 1") end
