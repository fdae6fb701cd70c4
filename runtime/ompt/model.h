/* model.h — the OpenMP event model: what each construct's begin and end does to the calling
 * thread's regions, call path, trace, substrate plugins and critical path (callbacks.c).
 * Two event sources feed it with OMPT's types and meanings: the OMPT tool (tool.c, LLVM's
 * libomp calls these directly as its callbacks) and the GNU libgomp interposition
 * (runtime/gomp/), which makes the same calls around libgomp's GOMP_* entry points.
 * ompt_data_t objects stand for parallel regions and tasks: the caller keeps them alive and
 * at one address from a construct's begin to its end. */
#ifndef INSTR_RT_OMPT_MODEL_H
#define INSTR_RT_OMPT_MODEL_H

#include <omp-tools.h>

void instr_omp_on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data);
void instr_omp_on_parallel_begin(ompt_data_t *encountering_task_data,
                                 const ompt_frame_t *encountering_task_frame,
                                 ompt_data_t *parallel_data, unsigned int requested_parallelism,
                                 int flags, const void *codeptr_ra);
void instr_omp_on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                               int flags, const void *codeptr_ra);
void instr_omp_on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                ompt_data_t *task_data, unsigned int actual_parallelism,
                                unsigned int index, int flags);
void instr_omp_on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                              ompt_data_t *parallel_data, ompt_data_t *task_data,
                              const void *codeptr_ra);
void instr_omp_on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                   ompt_data_t *parallel_data, ompt_data_t *task_data,
                                   const void *codeptr_ra);
void instr_omp_on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                                ompt_wait_id_t wait_id, const void *codeptr_ra);
void instr_omp_on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                 const void *codeptr_ra);
void instr_omp_on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                 const void *codeptr_ra);
void instr_omp_on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                            const void *codeptr_ra);
void instr_omp_on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint,
                       ompt_data_t *parallel_data, ompt_data_t *task_data, uint64_t count,
                       const void *codeptr_ra);
void instr_omp_on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                         ompt_data_t *task_data, const void *codeptr_ra);
void instr_omp_on_task_create(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *new_task_data, int flags, int has_dependences,
                              const void *codeptr_ra);
void instr_omp_on_task_schedule(ompt_data_t *prior_task_data,
                                ompt_task_status_t prior_task_status,
                                ompt_data_t *next_task_data);
void instr_omp_on_task_dependence(ompt_data_t *src_task_data, ompt_data_t *sink_task_data);

/* Closes the thread's innermost open construct if it is of this kind (enum
 * instr_omp_construct): GOMP's single has no end call, its region ends at the thread's next
 * barrier or worksharing construct. */
void instr_omp_close_innermost(int construct);

/* 1 once the OMPT tool was initialised by the OpenMP runtime (tool.c). */
extern int instr_ompt_tool_active;

#endif
