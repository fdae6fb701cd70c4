; Every exclusion reason: file rule, function (name) rule, mangled rule, and the built-in
; ones (available_externally, naked, artificial by debug info, thunk attribute, compiler-
; generated names, the runtime's own functions). Declarations get no line at all.
; RUN: rm -f %t.tsv
; RUN: env INSTR_FILTER=%S/Inputs/rules.spec INSTR_REPORT=%t.tsv %instr_opt -S %s | FileCheck %s
; RUN: FileCheck --check-prefix=TSV --input-file=%t.tsv %s
; RUN: env INSTR_FILTER=%S/Inputs/rules.spec INSTR_VERBOSE=1 %instr_opt -disable-output %s 2>&1 | FileCheck --check-prefix=VERBOSE %s
; The same through the -instr-* options.
; RUN: rm -f %t.cl.tsv
; RUN: %instr_opt_cl -instr-filter=%S/Inputs/rules.spec -instr-verbose -instr-report=%t.cl.tsv -disable-output %s 2>&1 | FileCheck --check-prefix=VERBOSE %s
; RUN: FileCheck --check-prefix=TSV --input-file=%t.cl.tsv %s

source_filename = "exclusions.cpp"

; Only `kept` gets a descriptor and hooks.
; CHECK: @__instr_region._Z4keptv = private global
; CHECK-NOT: @__instr_region.
; CHECK: @llvm.compiler.used = appending global [2 x ptr] [ptr @__instr_region._Z4keptv, ptr @__instr_link_check]

; CHECK-LABEL: define void @_Z4keptv()
; CHECK: call void @__instr_enter(ptr @__instr_region._Z4keptv)
define void @_Z4keptv() nounwind {
  ret void
}

; CHECK-LABEL: define void @_ZN2ns6skipmeEv()
; CHECK-NOT: __instr_
; CHECK: ret void
define void @_ZN2ns6skipmeEv() nounwind {
  ret void
}

; CHECK-LABEL: define void @_Z7mangledv()
; CHECK-NOT: __instr_
; CHECK: ret void
define void @_Z7mangledv() nounwind {
  ret void
}

; CHECK-LABEL: define void @_Z9indirfilev()
; CHECK-NOT: __instr_
; CHECK: ret void
define void @_Z9indirfilev() nounwind !dbg !10 {
  ret void
}

; CHECK-LABEL: define available_externally void @_Z5availv()
; CHECK-NOT: __instr_
; CHECK: ret void
define available_externally void @_Z5availv() nounwind {
  ret void
}

; CHECK-LABEL: define void @_Z5nakedv()
; CHECK-NOT: __instr_
; CHECK: unreachable
define void @_Z5nakedv() naked nounwind {
  call void asm sideeffect "ret", ""()
  unreachable
}

; CHECK-LABEL: define void @_Z10artificialv()
; CHECK-NOT: __instr_
; CHECK: ret void
define void @_Z10artificialv() nounwind !dbg !20 {
  ret void
}

; CHECK-LABEL: define void @_Z5thunkv()
; CHECK-NOT: __instr_
; CHECK: ret void
define void @_Z5thunkv() nounwind "thunk" {
  ret void
}

; CHECK-LABEL: define internal void @__cxx_global_var_init()
; CHECK-NOT: __instr_
; CHECK: ret void
define internal void @__cxx_global_var_init() nounwind {
  ret void
}

; CHECK-LABEL: define internal void @_GLOBAL__sub_I_exclusions.cpp()
; CHECK-NOT: __instr_
; CHECK: ret void
define internal void @_GLOBAL__sub_I_exclusions.cpp() nounwind {
  ret void
}

; CHECK-LABEL: define void @instr_region_count()
; CHECK-NOT: __instr_
; CHECK: ret void
define void @instr_region_count() nounwind {
  ret void
}

; CHECK-LABEL: define internal void @asan.module_ctor()
; CHECK-NOT: __instr_
; CHECK: ret void
define internal void @asan.module_ctor() nounwind {
  ret void
}

declare void @_Z8declaredv()

; Each excluded function still carries the decision, for a second run to see.
; CHECK: attributes {{.*}}"instr-decision"="exclude"

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, producer: "test", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "exclusions.cpp", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !DISubroutineType(types: !{})
!10 = distinct !DISubprogram(name: "indirfile", linkageName: "_Z9indirfilev", scope: !11, file: !11, line: 3, type: !3, scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DIFile(filename: "excluded_dir/h.h", directory: "/src")
!20 = distinct !DISubprogram(name: "artificial", linkageName: "_Z10artificialv", scope: !1, file: !1, line: 7, type: !3, scopeLine: 7, flags: DIFlagArtificial, spFlags: DISPFlagDefinition, unit: !0)

; One report line per defined function, in module order: decision, category, signature,
; mangled name, file, instructions, reason, module source file.
; TSV:      {{^}}include	default	kept()	_Z4keptv	{{/.*}}exclusions.cpp	1	default {{.*}}	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	name	ns::skipme()	_ZN2ns6skipmeEv	{{.*}}	1	function ns::skip* ({{.*}}rules.spec:3{{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	name	mangled()	_Z7mangledv	{{.*}}	1	mangled _Z7mangledv ({{.*}}rules.spec:4{{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	file	indirfile()	_Z9indirfilev	/src/excluded_dir/h.h	1	file */excluded_dir/* ({{.*}}rules.spec:2{{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	avail()	_Z5availv	{{.*}}	1	built-in declaration ({{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	naked()	_Z5nakedv	{{.*}}	2	built-in naked ({{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	artificial()	_Z10artificialv	/src/exclusions.cpp	1	built-in artificial ({{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	thunk()	_Z5thunkv	{{.*}}	1	built-in artificial ({{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	__cxx_global_var_init	__cxx_global_var_init	{{.*}}	1	built-in artificial ({{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	_GLOBAL__sub_I_exclusions.cpp	_GLOBAL__sub_I_exclusions.cpp	{{.*}}	1	built-in artificial ({{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	instr_region_count	instr_region_count	{{.*}}	1	built-in runtime ({{.*}})	exclusions.cpp{{$}}
; TSV-NEXT: {{^}}exclude	built-in	asan.module_ctor	asan.module_ctor	{{.*}}	1	built-in artificial ({{.*}})	exclusions.cpp{{$}}
; TSV-NOT: {{.}}

; VERBOSE: instr: exclusions.cpp: instrumented 1 of 12 functions (excluded: file 1, name 2, size 0, built-in 8)
