; A module is never instrumented twice: the pass run twice in one pipeline, or again on its
; own output, adds nothing.
; RUN: %instr_opt -S %s | FileCheck %s
; RUN: %opt_plugin -passes=instr,instr -S %s | FileCheck %s
; RUN: %instr_opt -S %s | %instr_opt -S | FileCheck %s
; RUN: %instr_opt -S %s | env INSTR_VERBOSE=1 %instr_opt -disable-output 2>&1 | FileCheck --check-prefix=AGAIN %s

source_filename = "twice.c"

; CHECK-COUNT-1: @__instr_region.f = private global
; CHECK-NOT: @__instr_region.f{{[.0-9]+}} =
; CHECK: define void @f()
; CHECK-COUNT-1: call void @__instr_enter
; CHECK-COUNT-1: call void @__instr_exit
; CHECK-NOT: call void @__instr_
define void @f() nounwind {
  ret void
}
; CHECK: !instr.instrumented = !{![[M:[0-9]+]]}
; CHECK: ![[M]] = !{!"hooks"}

; AGAIN: instr: twice.c: already instrumented, left as it is
