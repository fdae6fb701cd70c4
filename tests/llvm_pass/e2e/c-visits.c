// C at -O0 and -O2: the program's output and exit code are unchanged, visit counts exact,
// and a function excluded at compile time has no hook call in the object and no region.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t/ref %t/O0 %t/O2 %t/skip
// RUN: %clang -O2 %s -o %t/ref/prog
// RUN: cd %t/ref && not ./prog 3 > out.txt
// RUN: %clang -O0 -g -fpass-plugin=%plugin %s -o %t/O0/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/O0 && not ./prog 3 > out.txt
// RUN: diff %t/ref/out.txt %t/O0/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/O0 --visits main=1 --visits fib=531 --visits work=3 --visits report=1 --path 'main;work;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib'=6 --regions main,fib,work,report
// RUN: %clang -O2 -g -fpass-plugin=%plugin %s -o %t/O2/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/O2 && not ./prog 3 > out.txt
// RUN: diff %t/ref/out.txt %t/O2/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/O2 --visits main=1 --visits fib=531 --visits work=3 --visits report=1 --regions main,fib,work,report
// Excluded at compile time: no call in the object, no region in the profile.
// RUN: echo 'exclude function report' > %t/skip/skip.spec
// RUN: env INSTR_FILTER=%t/skip/skip.spec %clang -O2 -fpass-plugin=%plugin -c %s -o %t/skip/prog.o
// RUN: %objdump -dr --no-show-raw-insn %t/skip/prog.o | FileCheck --check-prefix=OBJ %s
// RUN: %clang %t/skip/prog.o -o %t/skip/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/skip && not ./prog 3 > out.txt
// RUN: diff %t/ref/out.txt %t/skip/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/skip --visits fib=531 --absent report --regions main,fib,work

#include <stdio.h>
#include <stdlib.h>

volatile int seed = 1;

// Subtraction, not addition: -O2 must not turn the second call into a loop (LLVM's
// accumulator recursion elimination needs an associative, commutative operation), so both
// builds make the same calls: 177 per fib(10).
__attribute__((noinline)) int fib(int n) { return n < 2 ? n + seed - 1 : fib(n - 1) - fib(n - 2); }

__attribute__((noinline)) int work(int i) { return fib(10) + i; }

__attribute__((noinline)) void report(int total) { printf("total %d\n", total); }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1, total = 0;
  for (int i = 0; i < n; i++)
    total += work(i);
  report(total);
  return 3; // a non-zero exit code must survive
}

// OBJ-LABEL: <report>:
// OBJ-NOT:   __instr_
// OBJ:       {{^$}}
// OBJ-LABEL: <main>:
// OBJ:       __instr_enter
