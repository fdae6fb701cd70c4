/* demangle.c — __cxa_demangle, found lazily with dlsym(RTLD_DEFAULT): a C++ program always has
 * libstdc++ (or libc++abi) loaded, a C program has nothing to demangle; the runtime itself
 * stays C and links no C++ library. The demangler allocates its result (and its work) with
 * malloc: the name is copied into the runtime's memory and the demangler's block freed at
 * once (docs/runtime.md, "The runtime's memory"). */
#include "symbols.h"
#include "../util/pages.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

char *instr_demangle(const char *mangled)
{
    static demangle_fn fn;
    static int looked;
    if (!mangled || strncmp(mangled, "_Z", 2) != 0)
        return NULL;
    if (!looked) {
        /* Through a union: ISO C has no conversion from void * to a function pointer. */
        union { void *p; demangle_fn f; } u;
        u.p = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        fn = u.f;
        looked = 1;
    }
    if (!fn)
        return NULL;
    int status = -1;
    char *out = fn(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return instr_mem_from_libc(out, strlen(out));
}
