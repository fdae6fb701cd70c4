; A musttail call must stay directly before its ret: the exit goes before the call (the
; frame is left there), and no second exit is put before the ret. A plain `tail` call is not
; a frame exit: its exit goes before the ret as usual.
; RUN: %instr_opt -S %s | FileCheck %s
; RUN: %instr_opt -S %s | %verify

source_filename = "musttail.c"

declare i32 @target(i32)

; CHECK-LABEL: define i32 @forward(i32 %x)
; CHECK:      call void @__instr_enter(ptr @__instr_region.forward)
; CHECK:      call void @__instr_exit(ptr @__instr_region.forward)
; CHECK-NEXT: br label %[[TAIL:[0-9]+]]
; CHECK:      [[TAIL]]:
; CHECK-NEXT: %r = musttail call i32 @target(i32 %x)
; CHECK-NEXT: ret i32 %r
; CHECK-NEXT: }
define i32 @forward(i32 %x) nounwind {
  %r = musttail call i32 @target(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define i32 @plain(i32 %x)
; CHECK:      %r = tail call i32 @target(i32 %x)
; CHECK:      call void @__instr_exit(ptr @__instr_region.plain)
; CHECK:      ret i32 %r
define i32 @plain(i32 %x) nounwind {
  %r = tail call i32 @target(i32 %x)
  ret i32 %r
}

; A musttail call that may unwind is not turned into an invoke (it cannot be one); its exit
; already happened before it.
; CHECK-LABEL: define i32 @forward_eh(i32 %x)
; CHECK-NOT:  invoke
; CHECK:      call void @__instr_exit(ptr @__instr_region.forward_eh)
; CHECK-NEXT: br label %[[TAIL2:[0-9]+]]
; CHECK:      [[TAIL2]]:
; CHECK-NEXT: %r = musttail call i32 @target(i32 %x)
; CHECK-NEXT: ret i32 %r
define i32 @forward_eh(i32 %x) {
  %r = musttail call i32 @target(i32 %x)
  ret i32 %r
}
