; C++ exceptions leave enter/exit balanced: calls that may unwind get a cleanup landing pad
; that calls the exit hook and resumes; existing landing pads become cleanups too (so the
; unwinder stops here also for exceptions this frame does not catch) and every resume gets
; an exit. Functions that cannot unwind (nounwind) get no landing pads.
; RUN: %instr_opt -S %s | FileCheck %s
; RUN: %instr_opt -S %s | %verify

source_filename = "eh.cpp"

@_ZTIi = external constant ptr

declare void @_Z5mayThrowv()
declare void @_Z7noThrowv() nounwind
declare i32 @__gxx_personality_v0(...)
declare i32 @llvm.eh.typeid.for(ptr) nounwind
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()
declare void @llvm.trap() noreturn nounwind

; No personality yet, a call that may throw: it becomes an invoke of the new cleanup pad.
; CHECK-LABEL: define void @_Z5outerv() {{.*}}personality ptr @__gxx_personality_v0
; CHECK:      call void @__instr_enter(ptr @__instr_region._Z5outerv)
; CHECK:      call void @_Z7noThrowv()
; CHECK-NEXT: invoke void @_Z5mayThrowv()
; CHECK-NEXT:   to label %{{.*}} unwind label %instr.cleanup
; CHECK:      call void @__instr_exit(ptr @__instr_region._Z5outerv)
; CHECK:      ret void
; CHECK:      instr.cleanup:
; CHECK-NEXT: %instr.lp = landingpad { ptr, i32 }
; CHECK-NEXT:   cleanup
; CHECK-NEXT: %instr.handle{{[0-9]*}} = load atomic i32
; CHECK:      call void @__instr_exit(ptr @__instr_region._Z5outerv)
; CHECK:      resume { ptr, i32 } %instr.lp
define void @_Z5outerv() {
  call void @_Z7noThrowv()
  call void @_Z5mayThrowv()
  call void @llvm.trap()
  ret void
}

; A function with a catch-only landing pad: the pad becomes a cleanup too; the path that
; resumes (exception not caught here) gets an exit; the catch path returns through the
; normal exit. The call outside the try also gets the new cleanup pad.
; CHECK-LABEL: define i32 @_Z7catcherv() {{.*}}personality ptr @__gxx_personality_v0
; CHECK:       invoke void @_Z5mayThrowv()
; CHECK-NEXT:    to label %{{.*}} unwind label %lpad
; CHECK:       lpad:
; CHECK-NEXT:  %lp = landingpad { ptr, i32 }
; CHECK-NEXT:    cleanup
; CHECK-NEXT:    catch ptr @_ZTIi
; CHECK:       catch:
; CHECK:       invoke void @__cxa_end_catch()
; CHECK-NEXT:    to label %{{.*}} unwind label %instr.cleanup
; CHECK:       call void @__instr_exit(ptr @__instr_region._Z7catcherv)
; CHECK-NEXT:  br label
; CHECK:       ret i32 %r
; CHECK:       call void @__instr_exit(ptr @__instr_region._Z7catcherv)
; CHECK-NEXT:  br label
; CHECK:       resume { ptr, i32 } %lp
; CHECK:       instr.cleanup:
; CHECK-NEXT:  %instr.lp = landingpad { ptr, i32 }
; CHECK-NEXT:    cleanup
; CHECK:       call void @__instr_exit(ptr @__instr_region._Z7catcherv)
; CHECK:       resume { ptr, i32 } %instr.lp
define i32 @_Z7catcherv() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @_Z5mayThrowv() to label %done unwind label %lpad
lpad:
  %lp = landingpad { ptr, i32 } catch ptr @_ZTIi
  %sel = extractvalue { ptr, i32 } %lp, 1
  %tid = call i32 @llvm.eh.typeid.for(ptr @_ZTIi)
  %match = icmp eq i32 %sel, %tid
  br i1 %match, label %catch, label %rethrow
catch:
  %exn = extractvalue { ptr, i32 } %lp, 0
  %obj = call ptr @__cxa_begin_catch(ptr %exn) nounwind
  call void @__cxa_end_catch()
  br label %done
done:
  %r = phi i32 [ 0, %entry ], [ 1, %catch ]
  ret i32 %r
rethrow:
  resume { ptr, i32 } %lp
}

; nounwind: nothing can leave by unwinding, no landing pad is added.
; CHECK-LABEL: define void @_Z6quietv()
; CHECK-NOT:   personality
; CHECK-NOT:   landingpad
; CHECK-NOT:   invoke
; CHECK:       ret void
; CHECK-NEXT:  }
define void @_Z6quietv() nounwind {
  call void @_Z5mayThrowv()
  ret void
}
