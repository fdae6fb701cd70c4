/* longjmp.c — the longjmp family, interposed in the shared runtime only: before jumping with
 * the C library's own function, each closes the calling thread's frames that the jump leaves
 * (those whose stack address lies below the target's) and marks the thread's stack as cut.
 *
 * The cursor also notices frames left by a jump from the stack address alone, at the next
 * enter (profile/cct.c), which covers exceptions caught by frames without hooks and the static
 * runtime; but a new frame deeper than a left one, or at exactly its address with another
 * region (which might be a callee whose hooks were inlined into the caller's frame), cannot be
 * told from a callee there. Reading the target's stack pointer from the jmp_buf (glibc on
 * x86-64: mangled with the thread's pointer guard) settles it at the jump; elsewhere the mark
 * settles the second case. Nothing of this is on the hot path. Not in the static runtime,
 * where the C library's archive defines the same names. */
#include "../core/event.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default"), noreturn, no_instrument_function))

typedef void (*jump_fn)(void *env, int val) __attribute__((noreturn));

static jump_fn real_longjmp, real__longjmp, real_siglongjmp, real_longjmp_chk;

static jump_fn lookup(const char *name)
{
    return (jump_fn)dlsym(RTLD_NEXT, name);
}

/* At load time: a jump out of a signal handler must not call dlsym. */
__attribute__((constructor)) static void resolve(void)
{
    real_longjmp = lookup("longjmp");
    real__longjmp = lookup("_longjmp");
    real_siglongjmp = lookup("siglongjmp");
    real_longjmp_chk = lookup("__longjmp_chk");
}

/* The stack pointer the jump restores, or 0 where the jmp_buf's layout is not known. */
static uintptr_t target_sp(const void *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
    /* __jmp_buf[6] is rsp, mangled: xor with the pointer guard (%fs:0x30), rotate left 17. */
    uintptr_t v = ((const uintptr_t *)env)[6], guard;
    __asm__("mov %%fs:0x30, %0" : "=r"(guard));
    return ((v >> 17) | (v << 47)) ^ guard;
#else
    (void)env;
    return 0;
#endif
}

static __attribute__((noreturn)) void jump(jump_fn fn, void *env, int val)
{
    instr_cct_jumped = 1;
    uintptr_t sp = target_sp(env);
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (sp > here) /* a plausible target: above this frame */
        instr_event_longjmp(sp);
    if (!fn)
        fn = real_siglongjmp ? real_siglongjmp : real_longjmp;
    if (!fn)
        abort(); /* no C library longjmp: cannot happen with glibc */
    fn(env, val);
}

EXPORT void longjmp(struct __jmp_buf_tag env[1], int val) { jump(real_longjmp, env, val); }
EXPORT void _longjmp(struct __jmp_buf_tag env[1], int val) { jump(real__longjmp, env, val); }
EXPORT void siglongjmp(sigjmp_buf env, int val) { jump(real_siglongjmp, env, val); }
EXPORT void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
    jump(real_longjmp_chk, env, val);
}
