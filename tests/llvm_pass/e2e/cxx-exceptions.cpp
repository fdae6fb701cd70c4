// A C++ exception thrown through three instrumented frames and caught leaves every location
// balanced: the frames it passes have a cleanup (a destructor), a catch that does not match,
// and a catch-all that rethrows. Visit counts are exact and the output is unchanged, at -O0
// and -O2, and with the plugin before inlining.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t/ref %t/O0 %t/O2 %t/before
// RUN: %clangxx -O2 %s -o %t/ref/prog
// RUN: cd %t/ref && ./prog > out.txt
// RUN: %clangxx -O0 -g -fpass-plugin=%plugin %s -o %t/O0/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/O0 && ./prog > out.txt
// RUN: diff %t/ref/out.txt %t/O0/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/O0 --visits main=1 --visits 'catcher(int)=10' --visits 'relay(int)=10' --visits 'no_match(int)=10' --visits 'with_cleanup(int)=10' --visits 'thrower(int)=10' --visits 'Guard::~Guard()=10' --path 'main;catcher(int);relay(int);no_match(int);with_cleanup(int);thrower(int)=10'
// RUN: %clangxx -O2 -fpass-plugin=%plugin %s -o %t/O2/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/O2 && ./prog > out.txt
// RUN: diff %t/ref/out.txt %t/O2/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/O2 --visits main=1 --visits 'catcher(int)=10' --visits 'relay(int)=10' --visits 'no_match(int)=10' --visits 'with_cleanup(int)=10' --visits 'thrower(int)=10' --path 'main;catcher(int);relay(int);no_match(int);with_cleanup(int);thrower(int)=10'
// RUN: env INSTR_INLINE=before %clangxx -O2 -fpass-plugin=%plugin %s -o %t/before/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/before && ./prog > out.txt
// RUN: diff %t/ref/out.txt %t/before/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/before --visits main=1 --visits 'catcher(int)=10' --visits 'thrower(int)=10' --visits 'Guard::~Guard()=10'

#include <cstdio>
#include <stdexcept>

static int cleanups, caught, rethrown, returned;
volatile int parity = 1;

struct Guard {
  ~Guard() { ++cleanups; }
};

// Throws on odd i, returns on even i.
__attribute__((noinline)) int thrower(int i) {
  if (i % 2 == parity)
    throw std::runtime_error("odd");
  return i;
}

// An existing cleanup landing pad (the destructor).
__attribute__((noinline)) int with_cleanup(int i) {
  Guard g;
  return thrower(i) + 1;
}

// A catch that never matches: the frame is only passed through.
__attribute__((noinline)) int no_match(int i) {
  try {
    return with_cleanup(i) + 1;
  } catch (int) {
    return -1;
  }
}

// A catch-all that rethrows.
__attribute__((noinline)) int relay(int i) {
  try {
    return no_match(i) + 1;
  } catch (...) {
    ++rethrown;
    throw;
  }
}

__attribute__((noinline)) void catcher(int i) {
  try {
    returned += relay(i);
  } catch (const std::exception &e) {
    ++caught;
  }
}

int main() {
  for (int i = 0; i < 10; i++)
    catcher(i);
  std::printf("caught %d rethrown %d cleanups %d returned %d\n", caught, rethrown, cleanups,
              returned);
  return 0;
}
