; C compiled with -fexceptions (not nounwind), no personality, no C++ in the module: the new
; cleanup pad uses libgcc's C personality, never the C++ one (a C program must link without
; libstdc++).
; RUN: %instr_opt -S %s | FileCheck %s
; RUN: %instr_opt -S %s | %verify

source_filename = "eh.c"

declare void @callback()

; CHECK-LABEL: define void @walk() {{.*}}personality ptr @__gcc_personality_v0
; CHECK:       invoke void @callback()
; CHECK-NEXT:    to label %{{.*}} unwind label %instr.cleanup
; CHECK:       instr.cleanup:
; CHECK-NEXT:  landingpad { ptr, i32 }
; CHECK-NEXT:    cleanup
; CHECK:       call void @__instr_exit(ptr @__instr_region.walk)
; CHECK-NOT:   __gxx_personality_v0
define void @walk() {
  call void @callback()
  ret void
}
