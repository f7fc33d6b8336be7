" syntax/ph.vim - highlighting for Ph without the language server (mirrors the TextMate grammar).
if exists('b:current_syntax') | finish | endif

syn keyword phKernel      kernel fn nextgroup=phFuncName skipwhite
syn match   phFuncName    /\h\w*/ contained
syn keyword phDeclare     let var
syn keyword phRepeat      for
syn keyword phConditional if else
syn keyword phIn          in
syn keyword phType        tensor tile
syn keyword phScalarType  f16 bf16 f32 i32 f8e4m3 f8e5m2
syn match   phShape       /\(>\s*\)\@<=\[[^\]]*\]/ contains=phNumber,phFloat,phSizeName,phOperator
syn match   phSizeName    /\h\w*/ contained
syn match   phBuiltin     /\<\(dot_t\|dot\|rowmax\|rowsum\|rowmin\|rowargmax\|colmax\|colsum\|tmax\|tmin\|where\|row_ids\|col_ids\|exp2\|exp\|log2\|log\|sqrt\|rsqrt\|abs\|tanh\|sigmoid\|erf\|sin\|cos\|floor\|mask_cols\|causal_mask\|extent\|range\)\ze\s*(/
syn match   phStdFunc     /\<\(online_softmax\|attention\|rope_pairs\|rope\|kv_append\|decode_attention\|paged_decode_attention\|combine_splits\)\ze\s*(/
syn match   phCtx         /\<ctx\(\.block\(\.[xyz]\>\)\?\)\?/
syn match   phDecorator   /@\s*\h\w*/
syn match   phSlice       /:+/
syn match   phOperator    /[-+*\/%]=\?\|=/
syn match   phNumber      /\<\d\+\>/
syn match   phFloat       /\(\([=(\[,:]\s\?\)\@<=-\)\?\<\d\+\(\.\d\+\([eE][-+]\?\d\+\)\?\|[eE][-+]\?\d\+\)\>/
syn match   phCommentCode /`[^`]*`/ contained
syn match   phDocComment  /\/\/\/.*$/ contains=phCommentCode,@Spell
syn match   phComment     /\/\/\(\/\)\@!.*$/ contains=@Spell

hi def link phKernel      Keyword
hi def link phFuncName    Function
hi def link phDeclare     Keyword
hi def link phRepeat      Repeat
hi def link phConditional Conditional
hi def link phIn          Keyword
hi def link phType        Type
hi def link phScalarType  Type
hi def link phSizeName    Constant
hi def link phBuiltin     Function
hi def link phStdFunc     Function
hi def link phCtx         Special
hi def link phDecorator   PreProc
hi def link phSlice       Operator
hi def link phOperator    Operator
hi def link phNumber      Number
hi def link phFloat       Float
hi def link phComment     Comment
hi def link phDocComment  SpecialComment
hi def link phCommentCode String

let b:current_syntax = 'ph'
