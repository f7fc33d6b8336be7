-- lsp/ph.lua - Neovim 0.11+ picks this up for vim.lsp.enable('ph') (vim.lsp.config form).
local cfg = require('ph.config').build()
return {
  cmd = cfg.cmd,
  filetypes = cfg.filetypes,
  root_markers = cfg.root_markers,
  settings = cfg.settings,
  handlers = { ['ph/status'] = function(...) return require('ph').on_status(...) end },
}
