/* state.h — what the GOMP wrappers keep per thread: the task the thread runs (OMPT's data of
 * it, the model's handle of implicit and explicit tasks alike). */
#ifndef INSTR_RT_GOMP_STATE_H
#define INSTR_RT_GOMP_STATE_H

#include <omp-tools.h>

/* The task the calling thread runs: an implicit task of a team, an explicit task, or (NULL
 * outside every parallel region) the program's initial task. */
#define INSTR_GOMP_TLS __attribute__((tls_model("initial-exec")))
extern _Thread_local ompt_data_t *instr_gomp_task INSTR_GOMP_TLS;
ompt_data_t *instr_gomp_current_task(void);

#define INSTR_GOMP_RA __builtin_return_address(0)

#endif
