// Lexing errors are reported with their exact range, and lexing goes on.
// RUN: not ph check %s 2>&1 | %FileCheck %s

kernel k(X: tensor<f32>[N, 8]) {
  // CHECK: lex-errors.ph:[[@LINE+1]]:13: error[E0001]: invalid character `$` in source
  let a = 1 $ 2
  // CHECK: lex-errors.ph:[[@LINE+1]]:11: error[E0002]: malformed number literal `1.0e`
  let b = 1.0e
  // CHECK: lex-errors.ph:[[@LINE+1]]:11: error[E0003]: integer literal `99999999999` does not fit in 32 bits
  let c = 99999999999
  // CHECK: lex-errors.ph:[[@LINE+1]]:11: error[E0001]: invalid character `é` in source
  let d = é
}
