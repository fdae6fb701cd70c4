; min-instructions N: functions with fewer than N IR instructions (counted when the pass runs,
; debug intrinsics not counted) are not instrumented, except main and functions selected by
; an include rule whose pattern is more than `*`.
; RUN: rm -f %t.tsv %t-star.tsv
; RUN: env INSTR_FILTER=%S/Inputs/min.spec INSTR_REPORT=%t.tsv %instr_opt -S %s | FileCheck %s
; RUN: FileCheck --check-prefix=TSV --input-file=%t.tsv %s
; RUN: env INSTR_FILTER=%S/Inputs/min-star.spec INSTR_REPORT=%t-star.tsv %instr_opt -disable-output %s
; RUN: FileCheck --check-prefix=STAR --input-file=%t-star.tsv %s

source_filename = "min.c"

declare void @llvm.dbg.value(metadata, metadata, metadata)

; 3 instructions: too small.
; CHECK-LABEL: define i32 @small(
; CHECK-NOT: __instr_
; CHECK: ret i32
define i32 @small(i32 %a) nounwind {
  %b = add i32 %a, 1
  %c = mul i32 %b, 3
  ret i32 %c
}

; 4 instructions: large enough.
; CHECK-LABEL: define i32 @big(
; CHECK: call void @__instr_enter
define i32 @big(i32 %a) nounwind {
  %b = add i32 %a, 1
  %c = mul i32 %b, 3
  %d = sub i32 %c, 7
  ret i32 %d
}

; 3 instructions plus debug intrinsics, which do not count: too small.
; CHECK-LABEL: define i32 @small_dbg(
; CHECK-NOT: __instr_
; CHECK: ret i32
define i32 @small_dbg(i32 %a) nounwind !dbg !10 {
  call void @llvm.dbg.value(metadata i32 %a, metadata !12, metadata !DIExpression()), !dbg !13
  %b = add i32 %a, 1
  call void @llvm.dbg.value(metadata i32 %b, metadata !12, metadata !DIExpression()), !dbg !13
  %c = mul i32 %b, 3
  ret i32 %c, !dbg !13
}

; Small, but named by an include rule.
; CHECK-LABEL: define void @keep_small(
; CHECK: call void @__instr_enter
define void @keep_small() nounwind {
  ret void
}

; Small, but main.
; CHECK-LABEL: define i32 @main(
; CHECK: call void @__instr_enter
define i32 @main() nounwind {
  ret i32 0
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "test", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "min.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !DISubroutineType(types: !{})
!4 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!10 = distinct !DISubprogram(name: "small_dbg", scope: !1, file: !1, line: 3, type: !3, scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)
!12 = !DILocalVariable(name: "a", scope: !10, file: !1, line: 3, type: !4)
!13 = !DILocation(line: 4, column: 1, scope: !10)

; TSV:      {{^}}exclude	size	small	small	{{.*}}	3	{{.*}}4{{.*}}
; TSV-NEXT: {{^}}include	default	big	big	{{.*}}	4	{{.*}}
; TSV-NEXT: {{^}}exclude	size	small_dbg	small_dbg	/src/min.c	3	{{.*}}
; TSV-NEXT: {{^}}include	name	keep_small	keep_small	{{.*}}	1	function keep_small {{.*}}
; TSV-NEXT: {{^}}include	{{[a-z-]+}}	main	main	{{.*}}	1	{{.*}}

; `include function *` is no exemption.
; STAR:      {{^}}exclude	size	small	small
; STAR-NEXT: {{^}}include	name	big	big
; STAR-NEXT: {{^}}exclude	size	small_dbg	small_dbg
; STAR-NEXT: {{^}}exclude	size	keep_small	keep_small
; STAR-NEXT: {{^}}include	{{[a-z-]+}}	main	main
