; Hooks mode: one ABI v1 descriptor per function in section instr_regions (kept through
; llvm.compiler.used), the guarded enter after the entry block's allocas, a guarded exit
; before every ret. The guard: load the handle, compare with UINT32_MAX, branch to the call.
; The flags carry INSTR_ABI_VERSION in their top byte (INSTR_REGION_ABI_BITS, %abi_flags).
; RUN: %instr_opt -S %s | FileCheck -D#ABI_FLAGS=%abi_flags %s
; RUN: %instr_opt -S %s | %verify

source_filename = "hooks.c"

; CHECK: %instr.region = type { i32, i32, ptr, ptr, ptr, i32, i32, ptr }
; CHECK-DAG: @[[NAME:.str.instr[.0-9]*]] = private unnamed_addr constant [4 x i8] c"two\00"
; CHECK-DAG: @[[FILE:.str.instr[.0-9]*]] = private unnamed_addr constant {{.*}}hooks.c\00"
; CHECK-DAG: @__instr_region.two = private global %instr.region { i32 0, i32 [[#ABI_FLAGS]], ptr @[[NAME]], ptr @[[NAME]], ptr @[[FILE]], i32 0, i32 0, ptr @two }, section "instr_regions", align 8
; CHECK-DAG: @__instr_region.inl = private global %instr.region {{.*}} ptr @inl }, section "instr_regions", comdat($inl), align 8
; The link check (instr_abi.h, INSTR_LINK_CHECK_SYMBOL): one reference per module with hooks.
; CHECK-DAG: @__instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt = external constant i8
; CHECK-DAG: @__instr_link_check = private constant ptr @__instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt
; CHECK-DAG: @llvm.compiler.used = appending global [3 x ptr] [ptr @__instr_region.two, ptr @__instr_region.inl, ptr @__instr_link_check], section "llvm.metadata"

$inl = comdat any

; CHECK-LABEL: define i32 @two(i32 %x)
; CHECK-NEXT:  %slot = alloca i32
; CHECK-NEXT:  %instr.handle = load atomic i32, ptr {{.*}}@__instr_region.two{{.*}} monotonic, align 8
; CHECK-NEXT:  %instr.on = icmp ne i32 %instr.handle, -1
; CHECK-NEXT:  br i1 %instr.on, label %[[CALL:[0-9]+]], label %[[CONT:[0-9]+]], !prof ![[LIKELY:[0-9]+]]
; CHECK:       [[CALL]]:
; CHECK-NEXT:  call void @__instr_enter(ptr @__instr_region.two) #[[NOUNWIND:[0-9]+]]
; CHECK-NEXT:  br label %[[CONT]]
; CHECK:       [[CONT]]:
; CHECK-NEXT:  store i32 %x, ptr %slot
; CHECK:       icmp ne i32 %{{.*}}, -1
; CHECK:       call void @__instr_exit(ptr @__instr_region.two)
; CHECK-NEXT:  br label
; CHECK:       ret i32 1
; CHECK:       icmp ne i32 %{{.*}}, -1
; CHECK:       call void @__instr_exit(ptr @__instr_region.two)
; CHECK-NEXT:  br label
; CHECK:       ret i32 2
; CHECK-NOT:   __instr_
; CHECK:       }
define i32 @two(i32 %x) nounwind {
  %slot = alloca i32
  store i32 %x, ptr %slot
  %c = icmp eq i32 %x, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 2
}

; CHECK-LABEL: define linkonce_odr void @inl() {{.*}}comdat
; CHECK: call void @__instr_enter(ptr @__instr_region.inl)
; CHECK: call void @__instr_exit(ptr @__instr_region.inl)
define linkonce_odr void @inl() nounwind comdat {
  ret void
}

; The hooks are declared nounwind: they never throw.
; CHECK-DAG: declare void @__instr_enter(ptr) #[[NOUNWIND]]
; CHECK-DAG: declare void @__instr_exit(ptr) #[[NOUNWIND]]
; CHECK-DAG: attributes #[[NOUNWIND]] = { nounwind }
; CHECK-DAG: ![[LIKELY]] = !{!"branch_weights", i32 2000, i32 1}
; CHECK-DAG: !instr.instrumented = !{![[MARK:[0-9]+]]}
; CHECK-DAG: ![[MARK]] = !{!"hooks"}
