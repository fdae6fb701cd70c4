// The plugin through the clang driver: -fpass-plugin alone at -O0 and -O2, the -mllvm
// options (which need -Xclang -load -Xclang libinstr.so as well), a bad spec failing the
// compile, and an excluded function having no hook call in the object file.
// RUN: %clang -O0 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck --check-prefix=IR %s
// RUN: %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck --check-prefix=IR %s
// RUN: env INSTR_FILTER=%S/../ir/Inputs/skip.spec %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck --check-prefix=SKIP %s
// RUN: %clang -O2 -fpass-plugin=%plugin -Xclang -load -Xclang %plugin -mllvm -instr-filter=%S/../ir/Inputs/skip.spec -S -emit-llvm %s -o - | FileCheck --check-prefix=SKIP %s
// RUN: env INSTR_VERBOSE=1 %clang -O2 -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck --check-prefix=VERBOSE %s
// RUN: env INSTR_FILTER=%S/../ir/Inputs/bad.spec not %clang -fpass-plugin=%plugin -c %s -o %t.bad.o 2>&1 | FileCheck --check-prefix=BAD %s
// RUN: env INSTR_FILTER=%S/../ir/Inputs/skip.spec %clang -O0 -fpass-plugin=%plugin -c %s -o %t.skip.o
// RUN: %objdump -dr --no-show-raw-insn %t.skip.o | FileCheck --check-prefix=OBJ %s

int sink;

__attribute__((noinline)) void skipped_helper(int x) { sink += x; }
__attribute__((noinline)) void kept_helper(int x) { sink -= x; }

int main(int argc, char **argv) {
  (void)argv;
  skipped_helper(argc);
  kept_helper(argc);
  return sink == 0;
}

// IR-DAG: @__instr_region.skipped_helper = private global
// IR-DAG: @__instr_region.kept_helper = private global
// IR-DAG: @__instr_region.main = private global
// IR-LABEL: define {{.*}}void @skipped_helper(
// IR: call void @__instr_enter(
// IR-LABEL: define {{.*}}i32 @main(
// IR: call void @__instr_enter(

// SKIP-NOT: @__instr_region.skipped_helper
// SKIP-LABEL: define {{.*}}void @skipped_helper(
// SKIP-NOT: __instr_
// SKIP: ret void
// SKIP-LABEL: define {{.*}}void @kept_helper(
// SKIP: call void @__instr_enter(

// VERBOSE: instr: {{.*}}driver.c: instrumented 3 of 3 functions (excluded: file 0, name 0, size 0, built-in 0)

// BAD: error: {{[^ ]*}}bad.spec:3:13: unknown rule target
// BAD-NOT: error: {{.*}}error:
// BAD-NOT: PLEASE submit a bug report

// OBJ-LABEL: <skipped_helper>:
// OBJ-NOT: __instr_
// OBJ: ret
// OBJ-LABEL: <kept_helper>:
// OBJ: {{R_[A-Z0-9_]+}} __instr_enter
// OBJ: {{R_[A-Z0-9_]+}} __instr_exit
// OBJ-LABEL: <main>:
// OBJ: {{R_[A-Z0-9_]+}} __instr_enter
