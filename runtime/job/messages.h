/* messages.h — an MPI job's message counts per call path: a table keyed by the call-tree
 * node of the thread that sent or received (messages.c), handed to the profile's writers
 * through instr_profile_set_messages (profile.h). */
#ifndef INSTR_RT_JOB_MESSAGES_H
#define INSTR_RT_JOB_MESSAGES_H

#include "../profile/profile.h"

#include <stdint.h>

/* Adds to the calling thread's innermost open call path (profile substrate): messages
 * (point to point) and collective operations taken part in, with their bytes. */
void instr_job_messages(uint64_t bytes_sent, uint64_t bytes_received, uint64_t sends,
                        uint64_t receives, uint64_t collectives);
/* The message counts of node n (bytes sent, bytes received, sends, receives, collectives)
 * into out: 1, or 0 when it has none (out unchanged). */
int instr_job_messages_of(const instr_pnode *n, uint64_t out[5]);

#endif
