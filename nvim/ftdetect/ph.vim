" ftdetect/ph.vim - .ph files are Ph (a tile language for GPU kernels).
autocmd BufRead,BufNewFile *.ph setfiletype ph
