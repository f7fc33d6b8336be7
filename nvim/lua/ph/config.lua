-- ph/config.lua - the ph-lsp server configuration, in the form nvim-lspconfig and
-- Neovim 0.11's vim.lsp.config take (cmd, filetypes, root markers, settings).
local M = {}

M.defaults = {
  cmd = { 'ph-lsp' },
  filetypes = { 'ph' },
  root_markers = { '.git', '.ph-build' },
  -- Sent with workspace/didChangeConfiguration under `ph` (the server's settings).
  settings = {
    ph = {
      -- path = '/path/to/ph',  -- the `ph` driver the server runs; default: next to ph-lsp
      target = 'auto',         -- auto | gpu | cpu | interp
      noGpu = 'ask',           -- without a GPU: 'ask' (offer the CPU target) | 'cpu' (use it)
      outputDir = '.ph-build', -- compile on save writes cubins here
      compileOnSave = true,
      sizes = vim.empty_dict(), -- e.g. { Nq = 4096, Nk = 4096 } for :PhRun
      trace = 'off',
    },
  },
}

--- Finds the project root: the nearest folder up from `fname` with a root marker.
function M.root_dir(fname, markers)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  for _, m in ipairs(markers or M.defaults.root_markers) do
    local hit = vim.fn.finddir(m, dir .. ';')
    if hit ~= '' then return vim.fn.fnamemodify(hit, ':p:h:h') end -- ':p' of a folder ends in '/'
    hit = vim.fn.findfile(m, dir .. ';')
    if hit ~= '' then return vim.fn.fnamemodify(hit, ':p:h') end
  end
  return dir
end

--- The configuration merged with the user's options.
function M.build(opts)
  opts = opts or {}
  local cfg = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts.server or {})
  if opts.cmd then cfg.cmd = type(opts.cmd) == 'string' and { opts.cmd } or opts.cmd end
  for _, k in ipairs({ 'path', 'target', 'noGpu', 'outputDir', 'compileOnSave', 'sizes', 'trace' }) do
    if opts[k] ~= nil then cfg.settings.ph[k] = opts[k] end
  end
  return cfg
end

--- nvim-lspconfig form: require('lspconfig.configs').ph = require('ph.config').lspconfig().
function M.lspconfig(opts)
  local cfg = M.build(opts)
  return {
    default_config = {
      cmd = cfg.cmd,
      filetypes = cfg.filetypes,
      root_dir = function(fname) return M.root_dir(fname, cfg.root_markers) end,
      settings = cfg.settings,
    },
    docs = { description = 'ph-lsp, the language server of the Ph tile language' },
  }
end

return M
