; Placement inside the default pipelines: after inlining (OptimizerLastEP) by default, so an
; inlined function costs nothing; before inlining (PipelineStartEP) with INSTR_INLINE=before,
; so the inlined body carries its own hooks. Both at -O0 too.
; RUN: %opt_plugin -passes='default<O2>' -S %s | FileCheck --check-prefix=AFTER %s
; RUN: env INSTR_INLINE=before %opt_plugin -passes='default<O2>' -S %s | FileCheck --check-prefix=BEFORE %s
; RUN: %opt_plugin -passes='default<O0>' -S %s | FileCheck --check-prefix=O0 %s
; RUN: env INSTR_INLINE=before %opt_plugin -passes='default<O0>' -S %s | FileCheck --check-prefix=O0 %s
; Without the plugin nothing happens (control).
; RUN: %opt -passes='default<O2>' -S %s | FileCheck --check-prefix=NONE %s

source_filename = "placement.c"

@sink = global i32 0

define internal void @helper(i32 %x) nounwind {
  store volatile i32 %x, ptr @sink
  ret void
}

define void @api(i32 %x) nounwind {
  call void @helper(i32 %x)
  ret void
}

; AFTER-NOT: @__instr_region.helper
; AFTER: @__instr_region.api = private global
; AFTER-NOT: @__instr_region.helper
; AFTER-LABEL: define void @api(
; AFTER:      call void @__instr_enter(ptr {{(nonnull )?}}@__instr_region.api)
; AFTER-NOT:  call void @__instr_enter
; AFTER:      store volatile i32 %x, ptr @sink
; AFTER:      call void @__instr_exit(ptr {{(nonnull )?}}@__instr_region.api)
; AFTER-NOT:  @helper

; BEFORE-DAG: @__instr_region.helper = private global
; BEFORE-DAG: @__instr_region.api = private global
; BEFORE-LABEL: define void @api(
; BEFORE:     call void @__instr_enter(ptr {{(nonnull )?}}@__instr_region.api)
; BEFORE:     call void @__instr_enter(ptr {{(nonnull )?}}@__instr_region.helper)
; BEFORE:     store volatile i32 %x, ptr @sink
; BEFORE:     call void @__instr_exit(ptr {{(nonnull )?}}@__instr_region.helper)
; BEFORE:     call void @__instr_exit(ptr {{(nonnull )?}}@__instr_region.api)

; O0-DAG: @__instr_region.helper = private global
; O0-DAG: @__instr_region.api = private global
; O0-LABEL: define internal void @helper(
; O0: call void @__instr_enter(ptr @__instr_region.helper)
; O0-LABEL: define void @api(
; O0: call void @__instr_enter(ptr @__instr_region.api)

; NONE-NOT: __instr_
