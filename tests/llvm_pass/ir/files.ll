; The defining file is the absolute path from the function's debug info (directory joined
; with a relative file name, `..` removed; an absolute name kept), else the module's source
; file made absolute. line_begin is the DISubprogram's line, line_end the largest line of the
; function's own (not inlined) locations; both 0 without debug info.
; RUN: rm -f %t.tsv
; RUN: env INSTR_REPORT=%t.tsv %instr_opt -S %s | FileCheck %s
; RUN: cut -f4,5 %t.tsv | FileCheck --check-prefix=TSV %s

source_filename = "dir/mod.c"

; CHECK-DAG: @[[REL:.str.instr[.0-9]*]] = {{.*}} c"/home/u/proj/src/rel.c\00"
; CHECK-DAG: @[[ABS:.str.instr[.0-9]*]] = {{.*}} c"/opt/inc/abs.h\00"
; CHECK-DAG: @[[DOTS:.str.instr[.0-9]*]] = {{.*}} c"/home/u/include/dots.h\00"
; CHECK-DAG: @__instr_region.rel = {{.*}} ptr @[[REL]], i32 10, i32 14, ptr @rel }
; CHECK-DAG: @__instr_region.abs = {{.*}} ptr @[[ABS]], i32 20, i32 20, ptr @abs }
; CHECK-DAG: @__instr_region.dots = {{.*}} ptr @[[DOTS]], i32 30, i32 30, ptr @dots }
; CHECK-DAG: @__instr_region.nodebug = {{.*}}, i32 0, i32 0, ptr @nodebug }

define void @rel() nounwind !dbg !10 {
  call void @abs(), !dbg !20
  call void @abs(), !dbg !21
  ret void, !dbg !22
}
define void @abs() nounwind !dbg !11 {
  ret void
}
define void @dots() nounwind !dbg !12 {
  ret void
}
define void @nodebug() nounwind {
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "test", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "src/rel.c", directory: "/home/u/proj")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !DISubroutineType(types: !{})
!4 = !DIFile(filename: "/opt/inc/abs.h", directory: "/home/u/proj")
!5 = !DIFile(filename: "../include/dots.h", directory: "/home/u/proj")
!10 = distinct !DISubprogram(name: "rel", scope: !1, file: !1, line: 10, type: !3, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!11 = distinct !DISubprogram(name: "abs", scope: !4, file: !4, line: 20, type: !3, scopeLine: 20, spFlags: DISPFlagDefinition, unit: !0)
!12 = distinct !DISubprogram(name: "dots", scope: !5, file: !5, line: 30, type: !3, scopeLine: 30, spFlags: DISPFlagDefinition, unit: !0)
!20 = !DILocation(line: 12, column: 3, scope: !10)
!21 = !DILocation(line: 99, column: 3, scope: !11, inlinedAt: !23)
!22 = !DILocation(line: 14, column: 1, scope: !10)
!23 = !DILocation(line: 13, column: 3, scope: !10)

; TSV:      {{^}}rel	/home/u/proj/src/rel.c{{$}}
; TSV-NEXT: {{^}}abs	/opt/inc/abs.h{{$}}
; TSV-NEXT: {{^}}dots	/home/u/include/dots.h{{$}}
; TSV-NEXT: {{^}}nodebug	/{{.*}}/dir/mod.c{{$}}
