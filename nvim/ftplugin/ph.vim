" ftplugin/ph.vim - buffer settings for Ph: comments, indentation, what a keyword is.
if exists('b:did_ftplugin') | finish | endif
let b:did_ftplugin = 1
setlocal commentstring=//\ %s
setlocal comments=:///,://
setlocal formatoptions-=t formatoptions+=croql
setlocal expandtab shiftwidth=2 softtabstop=2
setlocal autoindent smartindent cinkeys-=0# indentkeys-=0#
setlocal suffixesadd=.ph
let b:undo_ftplugin = 'setlocal commentstring< comments< formatoptions< expandtab< shiftwidth< softtabstop< autoindent< smartindent< cinkeys< indentkeys< suffixesadd<'
