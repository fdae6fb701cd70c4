; A bad spec or an unknown setting stops the compile with a message that names the place:
; the spec's file:line:column, or the variable/option and its value.
; RUN: env INSTR_FILTER=%S/Inputs/bad.spec not %instr_opt -disable-output %s 2>&1 | FileCheck --check-prefix=SPEC %s
; RUN: not %instr_opt_cl -instr-filter=%S/Inputs/bad.spec -disable-output %s 2>&1 | FileCheck --check-prefix=SPEC %s
; RUN: env INSTR_FILTER=%S/Inputs/does-not-exist.spec not %instr_opt -disable-output %s 2>&1 | FileCheck --check-prefix=MISSING %s
; RUN: env INSTR_MODE=sleds not %instr_opt -disable-output %s 2>&1 | FileCheck --check-prefix=MODE %s
; RUN: not %instr_opt_cl -instr-mode=sleds -disable-output %s 2>&1 | FileCheck --check-prefix=MODECL %s
; RUN: env INSTR_INLINE=never not %instr_opt -disable-output %s 2>&1 | FileCheck --check-prefix=INLINE %s
; RUN: env INSTR_VERBOSE=maybe not %instr_opt -disable-output %s 2>&1 | FileCheck --check-prefix=VERBOSE %s
; RUN: env INSTR_REPORT=%t.missing-dir/report.tsv not %instr_opt -disable-output %s 2>&1 | FileCheck --check-prefix=REPORT %s
; The runtime's quiet levels are accepted too (INSTR_VERBOSE is shared with the runtime).
; RUN: env INSTR_VERBOSE=quiet %instr_opt -S %s 2>&1 | FileCheck --check-prefix=OK %s
; RUN: env INSTR_VERBOSE=-1 %instr_opt -S %s 2>&1 | FileCheck --check-prefix=OK %s
; The command line wins over the environment for single settings.
; RUN: env INSTR_MODE=sleds %instr_opt_cl -instr-mode=hooks -S %s | FileCheck --check-prefix=OK %s

source_filename = "errors.c"

define void @f() nounwind {
  ret void
}

; SPEC: error: {{[^ ]*}}bad.spec:3:13: unknown rule target 'fnction'
; SPEC-NOT: error: {{.*}}error:
; MISSING: error: {{.*}}does-not-exist.spec{{.*}}
; MODE: error: instr: INSTR_MODE=sleds: unknown value; expected hooks or xray
; MODECL: error: instr: -instr-mode=sleds: unknown value; expected hooks or xray
; INLINE: error: instr: INSTR_INLINE=never: unknown value; expected after or before
; VERBOSE: error: instr: INSTR_VERBOSE=maybe: unknown value
; REPORT: error: instr: cannot open report file '{{.*}}report.tsv': No such file or directory
; OK: call void @__instr_enter
