-- syntax_test.lua - Neovim headless: .ph is detected as `ph` and syntax/ph.vim highlights
-- each construct of the seeds (no server needed).
-- Run: nvim --headless --clean -c 'luafile tests/editors/nvim/syntax_test.lua'
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
vim.opt.runtimepath:prepend(root .. '/nvim')
vim.cmd('filetype plugin on | syntax on')
vim.cmd('runtime! ftdetect/*.vim')

local passes, failures = 0, 0
local function check(cond, what)
  if cond then passes = passes + 1 else failures = failures + 1 end
  io.stdout:write(('%s %s\n'):format(cond and 'ok  ' or 'FAIL', what))
end

-- The syntax group (linked to its highlight group) of `text`'s nth occurrence on `lnum`.
local function group_at(lnum, text, nth)
  local line = vim.fn.getline(lnum)
  local col, from = nil, 1
  for _ = 1, (nth or 1) do
    col = line:find(text, from, true)
    if not col then return nil, 'text not found' end
    from = col + 1
  end
  local id = vim.fn.synID(lnum, col, 1)
  return vim.fn.synIDattr(id, 'name'), vim.fn.synIDattr(vim.fn.synIDtrans(id), 'name')
end

local function expect(lnum, text, group, nth)
  local name, linked = group_at(lnum, text, nth)
  check(name == group, ('%s:%d `%s` is %s (got %s -> %s)'):format(vim.fn.expand('%:t'), lnum, text, group,
    tostring(name), tostring(linked)))
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. root .. '/examples/flash_attention_manual.ph')
  check(vim.bo.filetype == 'ph', 'filetype of .ph is ph (got ' .. vim.bo.filetype .. ')')
  check(vim.b.current_syntax == 'ph', 'syntax/ph.vim is loaded')
  check(vim.bo.commentstring == '// %s', 'ftplugin sets commentstring')
  expect(1, '//', 'phComment')
  expect(3, '@tensorcore', 'phDecorator')
  expect(5, 'autotune', 'phDecorator')
  expect(5, 'in', 'phIn')
  expect(5, '64', 'phNumber')
  expect(7, 'kernel', 'phKernel')
  expect(7, 'flash_attention_manual', 'phFuncName')
  expect(7, 'tensor', 'phType')
  expect(7, 'f16', 'phScalarType')
  expect(7, 'Nq', 'phSizeName')
  expect(9, 'let', 'phDeclare')
  expect(9, 'ctx', 'phCtx')
  expect(9, 'x', 'phCtx', 2)
  expect(10, ':+', 'phSlice')
  expect(11, 'var', 'phDeclare')
  expect(11, 'tile', 'phType')
  expect(11, '0.0', 'phFloat')
  expect(12, '-1.0e30', 'phFloat')
  expect(12, '1]', 'phNumber')
  expect(14, 'for', 'phRepeat')
  expect(14, 'range', 'phBuiltin')
  expect(14, 'extent', 'phBuiltin')
  expect(17, 'dot_t', 'phBuiltin')
  expect(20, 'mask_cols', 'phBuiltin')
  expect(20, '-1.0e30', 'phFloat')
  expect(20, '- kt', 'phOperator')
  expect(26, '+=', 'phOperator')
  expect(26, 'rowsum', 'phBuiltin')
  vim.cmd('edit ' .. root .. '/std/attention.ph')
  expect(5, '///', 'phDocComment')
  expect(7, '`s`', 'phCommentCode')
  expect(12, 'fn', 'phKernel')
  expect(12, 'online_softmax', 'phFuncName')
  expect(39, 'online_softmax', 'phStdFunc')
  expect(31, '-1.0e30', 'phFloat')
  expect(2, '//', 'phComment')
end)
if not ok then check(false, 'error: ' .. tostring(err)) end
io.stdout:write(('%d passed, %d failed\n'):format(passes, failures))
vim.cmd((failures == 0 and 'qa!' or 'cq!'))
