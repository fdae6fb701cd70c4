; INSTR_FILTER with each of the four spellings (native, YAML, Score-P, TAU) of one rule set
; selects the same functions.
; RUN: rm -f %t.*.tsv
; RUN: env INSTR_FILTER=%S/Inputs/same.spec INSTR_REPORT=%t.spec.tsv %instr_opt -disable-output %s
; RUN: env INSTR_FILTER=%S/Inputs/same.yaml INSTR_REPORT=%t.yaml.tsv %instr_opt -disable-output %s
; RUN: env INSTR_FILTER=%S/Inputs/same.scorep INSTR_REPORT=%t.scorep.tsv %instr_opt -disable-output %s
; RUN: env INSTR_FILTER=%S/Inputs/same.tau INSTR_REPORT=%t.tau.tsv %instr_opt -disable-output %s
; RUN: cut -f1,4 %t.spec.tsv > %t.spec.sel
; RUN: cut -f1,4 %t.yaml.tsv > %t.yaml.sel
; RUN: cut -f1,4 %t.scorep.tsv > %t.scorep.sel
; RUN: cut -f1,4 %t.tau.tsv > %t.tau.sel
; RUN: diff %t.spec.sel %t.yaml.sel
; RUN: diff %t.spec.sel %t.scorep.sel
; RUN: diff %t.spec.sel %t.tau.sel
; RUN: FileCheck --input-file=%t.spec.sel %s
; The spec list of INSTR_FILTER is colon-separated; the same rules from two files in a row
; select the same as well.
; RUN: env INSTR_FILTER=%S/Inputs/same.spec::%S/Inputs/same.yaml INSTR_REPORT=%t.two.tsv %instr_opt -disable-output %s
; RUN: cut -f1,4 %t.two.tsv > %t.two.sel
; RUN: diff %t.spec.sel %t.two.sel

source_filename = "app.cpp"

; CHECK:      {{^}}include	main{{$}}
; CHECK-NEXT: {{^}}include	_ZN3app3runEi{{$}}
; CHECK-NEXT: {{^}}exclude	_ZN3app6detail4packEv{{$}}
; CHECK-NEXT: {{^}}include	_ZN3app4GridC2Ei{{$}}
; CHECK-NEXT: {{^}}include	compute_a{{$}}
; CHECK-NEXT: {{^}}exclude	compute_ab{{$}}
; CHECK-NEXT: {{^}}exclude	_Z6helperv{{$}}
; CHECK-NEXT: {{^}}exclude	_ZN3app6vendorEv{{$}}
; CHECK-NOT:  {{.}}

define i32 @main(i32 %argc, ptr %argv) nounwind !dbg !10 {
  ret i32 0
}
define void @_ZN3app3runEi(i32 %n) nounwind !dbg !11 {
  ret void
}
define void @_ZN3app6detail4packEv() nounwind !dbg !12 {
  ret void
}
define void @_ZN3app4GridC2Ei(ptr %this, i32 %n) nounwind !dbg !13 {
  ret void
}
define void @compute_a() nounwind !dbg !14 {
  ret void
}
define void @compute_ab() nounwind !dbg !15 {
  ret void
}
define void @_Z6helperv() nounwind !dbg !16 {
  ret void
}
define void @_ZN3app6vendorEv() nounwind !dbg !17 {
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, producer: "test", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "src/app.cpp", directory: "/home/u/app")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !DISubroutineType(types: !{})
!4 = !DIFile(filename: "/home/u/app/vendor/lib.h", directory: "/home/u/app")
!10 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 1, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!11 = distinct !DISubprogram(name: "run", scope: !1, file: !1, line: 2, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!12 = distinct !DISubprogram(name: "pack", scope: !1, file: !1, line: 3, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!13 = distinct !DISubprogram(name: "Grid", scope: !1, file: !1, line: 4, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!14 = distinct !DISubprogram(name: "compute_a", scope: !1, file: !1, line: 5, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!15 = distinct !DISubprogram(name: "compute_ab", scope: !1, file: !1, line: 6, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!16 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 7, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!17 = distinct !DISubprogram(name: "vendor", scope: !4, file: !4, line: 8, type: !3, spFlags: DISPFlagDefinition, unit: !0)
