/* real.c — libgomp's entry points behind the wrappers, and whether the wrappers record.
 *
 * Each wrapped name is looked up once, at start-up, as the next definition after
 * libinstr-rt (dlvsym(RTLD_NEXT) with libgomp's symbol version, so an old compatibility
 * version is never picked), never on the event path. They record only when
 *   - events are wanted (INSTR_ENABLE_PROFILING or a trace),
 *   - GOMP_parallel of the process is this library's (libinstr-rt comes before libgomp in
 *     the program's search order: the instr wrapper links it before the compiler driver
 *     adds -lgomp), and
 *   - the OpenMP runtime is GNU libgomp: LLVM's libomp defines GOMP_* too, but it also has
 *     OMPT (__kmpc_fork_call tells it apart), through which its constructs are recorded. */
#include "gomp.h"
#include "../core/event.h"
#include "../core/log.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

struct instr_gomp_real instr_gomp_real;
int instr_gomp_on;
static int on_libgomp;

extern void instr_gomp_parallel_own(void (*)(void *), void *, unsigned, unsigned); /* parallel.c */

static int names_openmp_runtime(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libgomp", 7) == 0 || strncmp(base, "libomp", 6) == 0 ||
        strncmp(base, "libiomp", 7) == 0)
        *(int *)found = 1;
    return *(int *)found;
}

void instr_gomp_resolve(void)
{
    static int done;
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
        return;
    /* No OpenMP runtime loaded: nothing to find, and a dlsym that fails allocates from malloc
     * (dlerror's state), in the program's heap (docs/runtime.md, "The runtime's memory"). */
    int loaded = 0;
    dl_iterate_phdr(names_openmp_runtime, &loaded);
    if (!loaded)
        return;
    struct instr_gomp_real r = {0};
#define INSTR_GOMP_LOOKUP(ret, name, version, params)                                         \
    {                                                                                         \
        void *p = dlvsym(RTLD_NEXT, #name, version);                                          \
        if (!p)                                                                               \
            p = dlsym(RTLD_NEXT, #name);                                                      \
        *(void **)&r.name = p;                                                                \
    }
    INSTR_GOMP_FUNCTIONS(INSTR_GOMP_LOOKUP)
#undef INSTR_GOMP_LOOKUP
    /* Several threads may race here before start-up: they all store the same values. */
    instr_gomp_real = r;
    void *first = dlsym(RTLD_DEFAULT, "GOMP_parallel");
    int reached = first == (void *)instr_gomp_parallel_own;
    /* libgomp after libinstr-rt, or before it (then the calls do not reach the wrappers) */
    on_libgomp = (r.GOMP_parallel || !reached) && !dlsym(RTLD_DEFAULT, "__kmpc_fork_call");
    int on = on_libgomp && reached && r.GOMP_parallel && instr_events_wanted();
    /* Every wrapped function must be there to record (a libgomp older than the compiler is
     * served by forwarding what there is). */
#define INSTR_GOMP_CHECK(ret, name, version, params) on = on && r.name;
    INSTR_GOMP_FUNCTIONS(INSTR_GOMP_CHECK)
#undef INSTR_GOMP_CHECK
    instr_gomp_on = on;
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    if (on)
        instr_info(1, "OpenMP: recording the constructs of GNU libgomp through its GOMP_* "
                      "entry points");
}

int instr_gomp_on_libgomp(void)
{
    instr_gomp_resolve();
    return on_libgomp;
}

int instr_gomp_recording(void)
{
    instr_gomp_resolve();
    return instr_gomp_on;
}

__attribute__((constructor)) static void start(void) { instr_gomp_resolve(); }
