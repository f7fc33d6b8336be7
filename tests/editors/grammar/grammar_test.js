// grammar_test.js - tokenises the seeds with vscode-textmate + vscode-oniguruma and checks scopes.
//
// Run: node tests/editors/grammar/grammar_test.js   (after scripts/editors-setup.sh)
// Every construct of std/attention.ph and examples/*.ph is checked against the scope it
// must get, and every non-blank token of those files must have a scope beyond `source.ph`
// (so nothing in the seeds is left uncoloured).
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

const root = path.resolve(__dirname, '..', '..', '..');
const ext = path.join(root, 'vscode-extension');
const req = createRequire(path.join(ext, 'package.json'));
const vsctm = req('vscode-textmate');
const oniguruma = req('vscode-oniguruma');

let passes = 0, failures = 0;
function check(cond, what) {
  if (cond) passes++; else failures++;
  if (!cond || process.env.VERBOSE) console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
}

async function loadGrammar() {
  const wasm = fs.readFileSync(path.join(path.dirname(req.resolve('vscode-oniguruma')), 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const grammarPath = path.join(ext, 'syntaxes', 'ph.tmLanguage.json');
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (p) => new oniguruma.OnigScanner(p),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => scope === 'source.ph'
      ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath) : null,
  });
  return registry.loadGrammar('source.ph');
}

// Returns, per line, the tokens {start, end, text, scopes}.
function tokenize(grammar, text) {
  let state = vsctm.INITIAL;
  const lines = text.split('\n');
  return lines.map((line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return r.tokens.map((t) => ({
      start: t.startIndex, end: Math.min(t.endIndex, line.length),
      text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes,
    }));
  });
}

// `at` finds the nth occurrence of `text` on a line (1-based) and checks that every token
// overlapping it carries `scope` (a prefix match on each scope: `keyword.control` matches
// `keyword.control.for.ph`), and, when `whole` is set, that one token covers it exactly.
function expectScope(file, toks, lines, lineNo, text, scope, opts = {}) {
  const line = lines[lineNo - 1] ?? '';
  let col = -1;
  for (let n = 0, from = 0; n <= (opts.nth ?? 0); n++, from = col + 1) {
    col = line.indexOf(text, from);
    if (col < 0) break;
  }
  const what = `${file}:${lineNo} \`${text}\` is ${scope}`;
  if (col < 0) { check(false, `${what} (text not found on the line)`); return; }
  const end = col + text.length;
  const over = toks[lineNo - 1].filter((t) => t.end > col && t.start < end);
  const has = (t) => t.scopes.some((s) => s === scope || s.startsWith(scope + '.') || (scope.endsWith('.ph') ? false : s.startsWith(scope)));
  let ok = over.length > 0 && over.every(has);
  if (ok && opts.whole) ok = over.length === 1 && over[0].start === col && over[0].end === end;
  check(ok, ok ? what : `${what}; got ${JSON.stringify(over.map((t) => [t.text, t.scopes.slice(1)]))}`);
}

function read(rel) { return fs.readFileSync(path.join(root, rel), 'utf8'); }

(async () => {
  const grammar = await loadGrammar();
  const files = ['std/attention.ph', ...fs.readdirSync(path.join(root, 'examples'))
    .filter((f) => f.endsWith('.ph')).sort().map((f) => `examples/${f}`),
    'tests/editors/grammar/constructs.ph'];
  const tok = {}, lines = {};
  for (const f of files) { lines[f] = read(f).split('\n'); tok[f] = tokenize(grammar, read(f)); }
  const E = (f, l, text, scope, opts) => expectScope(f, tok[f], lines[f], l, text, scope, opts);

  // Nothing in the seeds is left with only the root scope.
  for (const f of files) {
    tok[f].forEach((ts, i) => ts.forEach((t) => {
      if (t.text.trim() !== '' && t.scopes.length < 2)
        check(false, `${f}:${i + 1} \`${t.text}\` has no scope beyond source.ph`);
    }));
    check(true, `${f}: every token is scoped`);
  }

  const FA = 'examples/flash_attention.ph';
  // Comments and documentation.
  E(FA, 1, '// Flash attention', 'comment.line.double-slash.ph');
  E(FA, 1, '//', 'punctuation.definition.comment.ph', { whole: true });
  const STD = 'std/attention.ph';
  E(STD, 5, '/// One key block', 'comment.line.documentation.ph');
  E(STD, 5, '///', 'punctuation.definition.comment.ph', { whole: true });
  E(STD, 7, '`s`', 'markup.inline.raw.ph', { whole: true });
  E(STD, 7, '`s`', 'comment.line.documentation.ph');
  E(STD, 6, '///', 'comment.line.documentation.ph');
  // A `//` comment is not documentation.
  check(!tok[FA][0].some((t) => t.scopes.includes('comment.line.documentation.ph')), `${FA}:1 \`//\` is not a doc comment`);
  // Decorators with and without arguments.
  E(FA, 2, '@', 'punctuation.definition.decorator.ph', { whole: true });
  E(FA, 2, 'tensorcore', 'entity.name.function.decorator.ph', { whole: true });
  E(FA, 3, 'launch', 'entity.name.function.decorator.ph', { whole: true });
  E(FA, 3, '128', 'constant.numeric.integer.ph', { whole: true });
  E(FA, 3, '128', 'meta.decorator.ph');
  E(FA, 4, 'autotune', 'entity.name.function.decorator.ph', { whole: true });
  E(FA, 4, 'D', 'variable.other.constant.ph', { whole: true });
  E(FA, 4, 'in', 'keyword.control.in.ph', { whole: true });
  E(FA, 4, '64', 'constant.numeric.integer.ph', { whole: true });
  E(FA, 4, '[', 'punctuation.section.brackets.begin.ph', { whole: true });
  E(FA, 4, 'BC in [32])', 'meta.decorator.ph');
  E(FA, 5, 'aligned', 'entity.name.function.decorator.ph', { whole: true });
  E(FA, 5, 'Nq', 'variable.other.constant.ph', { whole: true });
  E(FA, 5, '=', 'keyword.operator.assignment.ph', { whole: true });
  // Kernel header across two lines: parameters, types with shapes.
  E(FA, 6, 'kernel', 'keyword.declaration.kernel.ph', { whole: true });
  E(FA, 6, 'flash_attention', 'entity.name.function.kernel.ph', { whole: true });
  E(FA, 6, 'Q', 'variable.parameter.ph', { whole: true });
  E(FA, 6, ':', 'punctuation.separator.type-annotation.ph', { whole: true });
  E(FA, 6, 'tensor', 'storage.type.ph', { whole: true });
  E(FA, 6, 'f16', 'storage.type.primitive.ph', { whole: true });
  E(FA, 6, '<', 'punctuation.definition.typeparameters.begin.ph', { whole: true });
  E(FA, 6, '[Nq, D]', 'meta.type.shape.ph');
  E(FA, 6, 'Nq', 'variable.other.constant.size.ph', { whole: true });
  E(FA, 6, 'Nk', 'variable.other.constant.size.ph', { whole: true });
  E(FA, 7, 'O', 'variable.parameter.ph', { whole: true });
  E(FA, 7, 'O', 'meta.definition.kernel.ph');
  E(FA, 7, 'scale', 'variable.parameter.ph', { whole: true });
  E(FA, 7, 'f32', 'storage.type.primitive.ph', { whole: true });
  E(FA, 7, '{', 'punctuation.section.block.begin.ph', { whole: true });
  // Body: let/var, ctx.block.x, :+, tile types, numbers, std calls.
  E(FA, 8, 'let', 'keyword.declaration.variable.ph', { whole: true });
  E(FA, 8, 'row', 'variable.other.definition.ph', { whole: true });
  E(FA, 8, 'ctx', 'variable.language.ctx.ph', { whole: true });
  E(FA, 8, '.', 'punctuation.accessor.ph', { whole: true });
  E(FA, 8, 'block', 'variable.language.block.ph', { whole: true });
  E(FA, 8, 'x', 'variable.language.axis.ph', { whole: true, nth: 1 }); // the first `x` is in `ctx`
  E(FA, 8, '*', 'keyword.operator.arithmetic.ph', { whole: true });
  E(FA, 8, 'BR', 'variable.other.ph', { whole: true });
  E(FA, 9, ':+', 'keyword.operator.slice.ph', { whole: true });
  E(FA, 9, ':', 'keyword.operator.slice.ph', { whole: true, nth: 1 });
  E(FA, 9, 'Q', 'variable.other.ph', { whole: true });
  E(FA, 10, 'var', 'keyword.declaration.variable.ph', { whole: true });
  E(FA, 10, 'acc', 'variable.other.definition.ph', { whole: true });
  E(FA, 10, ':', 'punctuation.separator.type-annotation.ph', { whole: true });
  E(FA, 10, 'tile', 'storage.type.ph', { whole: true });
  E(FA, 10, 'f32', 'storage.type.primitive.ph', { whole: true });
  E(FA, 10, '[BR, D]', 'meta.type.shape.ph');
  E(FA, 10, 'BR', 'variable.other.constant.size.ph', { whole: true });
  E(FA, 10, '0.0', 'constant.numeric.float.ph', { whole: true });
  E(FA, 11, 'attention', 'support.function.std.ph', { whole: true });
  E(FA, 13, '}', 'punctuation.section.block.end.ph', { whole: true });

  const MAN = 'examples/flash_attention_manual.ph';
  E(MAN, 12, '-1.0e30', 'constant.numeric.float.ph', { whole: true });
  E(MAN, 12, '[BR, 1]', 'meta.type.shape.ph');
  E(MAN, 12, '1', 'constant.numeric.integer.ph', { whole: true }); // `[BR, 1]`
  E(MAN, 14, 'for', 'keyword.control.for.ph', { whole: true });
  E(MAN, 14, 'kt', 'variable.other.definition.ph', { whole: true });
  E(MAN, 14, 'in', 'keyword.control.in.ph', { whole: true });
  E(MAN, 14, 'range', 'support.function.builtin.ph', { whole: true });
  E(MAN, 14, 'extent', 'support.function.builtin.ph', { whole: true });
  E(MAN, 17, 'tile<f32>[BR, BC]', 'meta.type');
  E(MAN, 17, 'BC', 'variable.other.constant.size.ph', { whole: true });
  E(MAN, 17, 'dot_t', 'support.function.builtin.ph', { whole: true });
  E(MAN, 19, '// Keys past Nk', 'comment.line.double-slash.ph');
  E(MAN, 20, 'mask_cols', 'support.function.builtin.ph', { whole: true });
  E(MAN, 20, '-', 'keyword.operator.arithmetic.ph', { whole: true }); // binary, not part of a number
  E(MAN, 20, '-1.0e30', 'constant.numeric.float.ph', { whole: true });
  E(MAN, 21, 'rowmax', 'support.function.builtin.ph', { whole: true });
  E(MAN, 22, 'tmax', 'support.function.builtin.ph', { whole: true });
  E(MAN, 23, 'exp', 'support.function.builtin.ph', { whole: true });
  E(MAN, 23, '-', 'keyword.operator.arithmetic.ph', { whole: true });
  E(MAN, 26, '+=', 'keyword.operator.assignment.compound.ph', { whole: true });
  E(MAN, 26, 'rowsum', 'support.function.builtin.ph', { whole: true });
  E(MAN, 28, 'dot', 'support.function.builtin.ph', { whole: true });
  E(MAN, 31, '/', 'keyword.operator.arithmetic.ph', { whole: true });

  const CA = 'examples/causal_attention.ph';
  E(CA, 17, 'causal_mask', 'support.function.builtin.ph', { whole: true });
  E(CA, 18, 'online_softmax', 'support.function.std.ph', { whole: true });
  E(CA, 4, 'tensor<f32>[N, D]', 'meta.type');
  E(CA, 5, 'tensor<f32>[N, D]', 'meta.type');

  E(STD, 12, 'fn', 'keyword.declaration.function.ph', { whole: true });
  E(STD, 12, 'online_softmax', 'entity.name.function.ph', { whole: true });
  E(STD, 12, 'acc', 'variable.parameter.ph', { whole: true });
  E(STD, 12, 'v', 'variable.parameter.ph', { whole: true });
  E(STD, 30, 'attention', 'entity.name.function.ph', { whole: true });
  E(STD, 31, '-1.0e30', 'constant.numeric.float.ph', { whole: true });
  E(STD, 50, '/', 'keyword.operator.arithmetic.ph', { whole: true });
  E(STD, 50, '2', 'constant.numeric.integer.ph', { whole: true });

  const RP = 'examples/rotary_pairs.ph';
  E(RP, 2, 'tensor<f32>[T, 64, 2]', 'meta.type');
  E(RP, 2, '64', 'constant.numeric.integer.ph', { whole: true });
  E(RP, 4, 'rope_pairs', 'support.function.std.ph', { whole: true });
  const RO = 'examples/rotary.ph';
  E(RO, 5, 'rope', 'support.function.std.ph', { whole: true });
  E(RO, 2, 'Y', 'variable.parameter.ph', { whole: true });

  // Constructs the seeds do not use (tests/editors/grammar/constructs.ph).
  const C = 'tests/editors/grammar/constructs.ph';
  E(C, 2, 'grid', 'entity.name.function.decorator.ph', { whole: true });
  E(C, 3, 'bf16', 'storage.type.primitive.ph', { whole: true });
  E(C, 3, 'i32', 'storage.type.primitive.ph', { whole: true });
  E(C, 3, 'D / 2', 'meta.type.shape.ph');
  E(C, 4, 'y', 'variable.language.axis.ph', { whole: true });
  E(C, 5, 'rsqrt', 'support.function.builtin.ph', { whole: true });
  E(C, 5, 'exp2', 'support.function.builtin.ph', { whole: true });
  E(C, 5, '2.5e-3', 'constant.numeric.float.ph', { whole: true });
  E(C, 6, '/=', 'keyword.operator.assignment.compound.ph', { whole: true });
  E(C, 6, 'my_helper', 'entity.name.function.call.ph', { whole: true });
  E(C, 6, 'x0', 'variable.other.ph', { whole: true });

  // Snippets: each body, with its placeholders at their defaults, is fully coloured Ph, and
  // the language configuration's patterns compile and indent after `{`.
  const snippets = JSON.parse(fs.readFileSync(path.join(ext, 'snippets', 'ph.json'), 'utf8'));
  for (const [name, sn] of Object.entries(snippets)) {
    const body = sn.body.join('\n').replace(/\$\{\d+:([^}]*)\}/g, '$1').replace(/\$\d+/g, '');
    const unscoped = tokenize(grammar, body).flat().filter((t) => t.text.trim() !== '' && t.scopes.length < 2);
    check(unscoped.length === 0, `snippet "${name}" expands to coloured Ph${unscoped.length ? ': ' + unscoped.map((t) => t.text) : ''}`);
  }
  const langConf = JSON.parse(fs.readFileSync(path.join(ext, 'language-configuration.json'), 'utf8'));
  const inc = new RegExp(langConf.indentationRules.increaseIndentPattern);
  const dec = new RegExp(langConf.indentationRules.decreaseIndentPattern);
  check(inc.test('kernel k(X: tensor<f32>[N]) {') && !inc.test('  let q = Q[row :+ BR, :]') && dec.test('  }'),
    'language configuration indents after `{` and dedents at `}`');
  check(langConf.comments.lineComment === '//', 'line comment is //');

  // An @autotune `where` condition: the keyword, its parentheses inside the decorator's, and
  // the decorator after it (rms_norm.ph: the condition spans a line and has groups).
  const RMS = 'examples/rms_norm.ph';
  E(RMS, 7, 'where', 'keyword.control.where.ph', { whole: true });
  E(RMS, 7, '(BC == 4096', 'meta.decorator.ph');
  E(RMS, 7, 'T == 128', 'meta.decorator.ph');
  E(RMS, 7, '))', 'meta.decorator.ph');  // the group's and then the decorator's
  E(RMS, 8, '@', 'punctuation.definition.decorator.ph', { whole: true });
  E(RMS, 8, 'launch', 'entity.name.function.decorator.ph', { whole: true });
  E(RMS, 9, "aligned", "entity.name.function.decorator.ph", { whole: true });
  check(!tok[RMS][9].some((t) => t.scopes.includes("meta.decorator.ph")), `${RMS}:10 is past the decorators`);
  // Builtins beyond the seeds' (lines of examples/cross_entropy.ph: 1-based, as an editor shows them).
  const CE = 'examples/cross_entropy.ph';
  E(CE, 27, 'col_ids', 'support.function.builtin.ph', { whole: true });
  E(CE, 27, 'where', 'support.function.builtin.ph', { whole: true });
  E(CE, 34, 'row_ids', 'support.function.builtin.ph', { whole: true });
  E(CE, 34, 'where', 'support.function.builtin.ph', { whole: true });
  console.log(`${passes} passed, ${failures} failed`);
  process.exit(failures === 0 ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(1); });
