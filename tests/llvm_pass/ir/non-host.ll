; Device code (nvptx, amdgcn, spir) is never instrumented: built-in exclusion "non-host".
; RUN: rm -f %t.tsv
; RUN: env INSTR_REPORT=%t.tsv %instr_opt -S %s | FileCheck %s
; RUN: FileCheck --check-prefix=TSV --input-file=%t.tsv %s
; RUN: sed 's/nvptx64-nvidia-cuda/amdgcn-amd-amdhsa/' %s | %instr_opt -S | FileCheck %s
; RUN: sed 's/nvptx64-nvidia-cuda/spir64-unknown-unknown/' %s | %instr_opt -S | FileCheck %s
; Control: the same module for the host is instrumented.
; RUN: sed 's/nvptx64-nvidia-cuda/x86_64-unknown-linux-gnu/' %s | %instr_opt -S | FileCheck --check-prefix=HOST %s

source_filename = "kernel.cu"
target triple = "nvptx64-nvidia-cuda"

; CHECK-NOT: __instr_region
; CHECK: define void @_Z6kernelv()
; CHECK-NOT: __instr_
; HOST: call void @__instr_enter(ptr @__instr_region._Z6kernelv)
define void @_Z6kernelv() nounwind {
  ret void
}

; TSV: {{^}}exclude	built-in	kernel()	_Z6kernelv	{{.*}}	1	built-in non-host ({{.*}})	kernel.cu{{$}}
