" plugin/ph.vim - nothing starts until require('ph').setup{}; this only marks .ph files.
if exists('g:loaded_ph') | finish | endif
let g:loaded_ph = 1
