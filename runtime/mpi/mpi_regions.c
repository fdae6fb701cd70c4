/* mpi_regions.c — one region per MPI call (name MPI_Send, ...), registered on the call's
 * first use so that the profile lists only the calls the program made. */
#include "mpi_wrap.h"
#include "../core/registry.h"

#include <pthread.h>

#define NONE UINT32_MAX /* decided: not recorded */

static uint32_t handles[INSTR_MPI_MAX_IDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const custom_names[] = {
    [INSTR_MPI_ID_INIT - INSTR_MPI_MAX_GENERATED] = "MPI_Init",
    [INSTR_MPI_ID_INIT_THREAD - INSTR_MPI_MAX_GENERATED] = "MPI_Init_thread",
    [INSTR_MPI_ID_FINALIZE - INSTR_MPI_MAX_GENERATED] = "MPI_Finalize",
    [INSTR_MPI_ID_FINALIZED - INSTR_MPI_MAX_GENERATED] = "MPI_Finalized",
    [INSTR_MPI_ID_ABORT - INSTR_MPI_MAX_GENERATED] = "MPI_Abort",
};

__attribute__((noinline, cold)) static uint32_t decide(unsigned id)
{
    const char *name = id < instr_mpi_ncalls ? instr_mpi_calls[id].name
                       : id >= INSTR_MPI_MAX_GENERATED && id < INSTR_MPI_MAX_IDS
                           ? custom_names[id - INSTR_MPI_MAX_GENERATED]
                           : NULL;
    pthread_mutex_lock(&lock);
    uint32_t h = __atomic_load_n(&handles[id], __ATOMIC_ACQUIRE);
    if (h == 0) {
        h = name ? instr_ext_region(name, INSTR_SOURCE_MPI) : 0;
        if (h == 0)
            h = NONE;
        __atomic_store_n(&handles[id], h, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return h == NONE ? 0 : h;
}

uint32_t instr_mpi_region(unsigned id)
{
    if (id >= INSTR_MPI_MAX_IDS)
        return 0;
    uint32_t h = __atomic_load_n(&handles[id], __ATOMIC_ACQUIRE);
    if (__builtin_expect(h == 0, 0))
        return decide(id);
    return h == NONE ? 0 : h;
}
