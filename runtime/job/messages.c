/* messages.c — message counts per call-tree node (messages.h): a table keyed by the node's
 * address (MPI calls are rare next to function calls, so one mutex is fine). */
#include "messages.h"
#include "../core/event.h"
#include "../util/hash.h"
#include "../util/table.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct msgrec {
    const instr_pnode *node; /* NULL: free */
    uint64_t bytes_sent, bytes_received, sends, receives, collectives;
} msgrec;

static msgrec *msgs;
static size_t msgs_cap, msgs_n;
static pthread_mutex_t msgs_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t ptr_slot(const void *p) { return (size_t)instr_hash_mix((uintptr_t)p); }

static size_t rec_hash(const void *slot) { return ptr_slot(((const msgrec *)slot)->node); }
static int rec_live(const void *slot) { return ((const msgrec *)slot)->node != NULL; }

static msgrec *msg_find(const instr_pnode *n, int create)
{
    if (create && 2 * (msgs_n + 1) > msgs_cap &&
        instr_table_grow(&msgs, &msgs_cap, sizeof *msgs, 256, rec_hash, rec_live) != 0)
        return NULL;
    if (!msgs_cap)
        return NULL;
    size_t j = ptr_slot(n) & (msgs_cap - 1);
    while (msgs[j].node && msgs[j].node != n)
        j = (j + 1) & (msgs_cap - 1);
    if (msgs[j].node)
        return &msgs[j];
    if (!create)
        return NULL;
    msgs[j].node = n;
    msgs_n++;
    return &msgs[j];
}

static void messages_add(const instr_pnode *n, instr_msg_counts *to);

void instr_job_messages(uint64_t bytes_sent, uint64_t bytes_received, uint64_t sends,
                        uint64_t receives, uint64_t collectives)
{
    instr_location *loc = instr_tls_loc;
    int slot = instr_substrate_slot(&instr_profile_substrate);
    if (!loc || slot < 0 || instr_state_get() != INSTR_STATE_RUNNING)
        return;
    instr_pstate *s = loc->sub[slot];
    const instr_pnode *n = s ? instr_cct_current(s) : NULL;
    if (!n)
        return;
    pthread_mutex_lock(&msgs_lock);
    if (!msgs_cap) /* the first count: the profile's writers ask from now on */
        instr_profile_set_messages(messages_add);
    msgrec *m = msg_find(n, 1);
    if (m) {
        m->bytes_sent += bytes_sent;
        m->bytes_received += bytes_received;
        m->sends += sends;
        m->receives += receives;
        m->collectives += collectives;
    }
    pthread_mutex_unlock(&msgs_lock);
}

static void messages_add(const instr_pnode *n, instr_msg_counts *to)
{
    pthread_mutex_lock(&msgs_lock);
    const msgrec *m = msgs_n ? msg_find(n, 0) : NULL;
    if (m) {
        to->sent += m->sends;
        to->bytes_sent += m->bytes_sent;
        to->received += m->receives;
        to->bytes_received += m->bytes_received;
        to->collectives += m->collectives;
    }
    pthread_mutex_unlock(&msgs_lock);
}

int instr_job_messages_of(const instr_pnode *n, uint64_t out[5])
{
    pthread_mutex_lock(&msgs_lock);
    const msgrec *m = msg_find(n, 0);
    if (m) {
        out[0] = m->bytes_sent;
        out[1] = m->bytes_received;
        out[2] = m->sends;
        out[3] = m->receives;
        out[4] = m->collectives;
    }
    pthread_mutex_unlock(&msgs_lock);
    return m != NULL;
}
