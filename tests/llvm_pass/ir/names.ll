; Descriptor names and report signatures are the Itanium-demangled linkage names: templates,
; lambdas, operators, constructors, destructors; C names stay as they are (and are not fed to
; the demangler: "f" must not become "float").
; RUN: rm -f %t.tsv
; RUN: env INSTR_REPORT=%t.tsv %instr_opt -S %s | FileCheck %s
; RUN: cut -f3,4 %t.tsv | FileCheck --check-prefix=TSV %s

source_filename = "names.cpp"

; CHECK-DAG: c"void ns::apply<int>(int*, int)\00"
; CHECK-DAG: c"_ZN2ns5applyIiEEvPT_i\00"
; CHECK-DAG: c"ns::Grid::Grid(int, int)\00"
; CHECK-DAG: c"ns::Grid::~Grid()\00"
; CHECK-DAG: c"ns::Grid::operator()(int, int) const\00"
; CHECK-DAG: c"ns::Grid::operator=(ns::Grid const&)\00"
; CHECK-DAG: c"operator+(ns::Vec const&, ns::Vec const&)\00"
; CHECK-DAG: c"main::$_0::operator()(int) const\00"
; CHECK-DAG: c"run()::{lambda(int)#1}::operator()(int) const\00"
; CHECK-DAG: c"f\00"
; CHECK-NOT: c"float\00"

define weak_odr void @_ZN2ns5applyIiEEvPT_i(ptr %p, i32 %n) nounwind { ret void }
define void @_ZN2ns4GridC2Eii(ptr %this, i32 %a, i32 %b) nounwind { ret void }
define void @_ZN2ns4GridD2Ev(ptr %this) nounwind { ret void }
define i32 @_ZNK2ns4GridclEii(ptr %this, i32 %a, i32 %b) nounwind { ret i32 0 }
define ptr @_ZN2ns4GridaSERKS0_(ptr %this, ptr %o) nounwind { ret ptr %this }
define void @_ZplRKN2ns3VecES2_(ptr %a, ptr %b) nounwind { ret void }
define internal i32 @"_ZZ4mainENK3$_0clEi"(ptr %this, i32 %q) nounwind { ret i32 %q }
define linkonce_odr i32 @_ZZ3runvENKUliE_clEi(ptr %this, i32 %q) nounwind { ret i32 %q }
define void @f() nounwind { ret void }

; TSV:      {{^}}void ns::apply<int>(int*, int)	_ZN2ns5applyIiEEvPT_i{{$}}
; TSV-NEXT: {{^}}ns::Grid::Grid(int, int)	_ZN2ns4GridC2Eii{{$}}
; TSV-NEXT: {{^}}ns::Grid::~Grid()	_ZN2ns4GridD2Ev{{$}}
; TSV-NEXT: {{^}}ns::Grid::operator()(int, int) const	_ZNK2ns4GridclEii{{$}}
; TSV-NEXT: {{^}}ns::Grid::operator=(ns::Grid const&)	_ZN2ns4GridaSERKS0_{{$}}
; TSV-NEXT: {{^}}operator+(ns::Vec const&, ns::Vec const&)	_ZplRKN2ns3VecES2_{{$}}
; TSV-NEXT: {{^}}main::$_0::operator()(int) const	_ZZ4mainENK3$_0clEi{{$}}
; TSV-NEXT: {{^}}run()::{lambda(int)#1}::operator()(int) const	_ZZ3runvENKUliE_clEi{{$}}
; TSV-NEXT: {{^}}f	f{{$}}
