; XRay mode: no calls; "function-instrument"="xray-always" on selected functions,
; "xray-never" on the others, and the descriptor table (flag INSTR_REGION_XRAY = 1) for the
; selected ones, for the XRay adapter to map sled function ids to descriptors by address;
; the flags carry INSTR_ABI_VERSION in their top byte (INSTR_REGION_ABI_BITS, %abi_flags).
; RUN: env INSTR_MODE=xray INSTR_FILTER=%S/Inputs/xray.spec %instr_opt -S %s | FileCheck -D#ABI_FLAGS=%abi_flags %s
; RUN: %instr_opt_cl -instr-mode=xray -instr-filter=%S/Inputs/xray.spec -S %s | FileCheck -D#ABI_FLAGS=%abi_flags %s

source_filename = "xray.c"

; CHECK: @__instr_region.hot = private global %instr.region { i32 0, i32 [[#ABI_FLAGS+1]], {{.*}}, ptr @hot }, section "instr_regions", align 8
; CHECK-NOT: @__instr_region.cold
; CHECK: @llvm.compiler.used = appending global [1 x ptr] [ptr @__instr_region.hot]
; CHECK-NOT: __instr_enter
; CHECK-NOT: __instr_exit

; CHECK: define void @hot() #[[ALWAYS:[0-9]+]]
define void @hot() nounwind {
  ret void
}

; CHECK: define void @cold() #[[NEVER:[0-9]+]]
define void @cold() nounwind {
  ret void
}

; CHECK-DAG: attributes #[[ALWAYS]] = { {{.*}}"function-instrument"="xray-always"
; CHECK-DAG: attributes #[[NEVER]] = { {{.*}}"function-instrument"="xray-never"
; CHECK-DAG: !{!"xray"}
