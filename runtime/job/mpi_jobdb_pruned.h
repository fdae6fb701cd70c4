/* mpi_jobdb_pruned.h — the pruned section of the job database (jobdb_pruned.h) as the MPI
 * writer (mpi_jobdb.c) makes it, once rank 0 holds the summary: the set down the tree, each
 * rank's rows of it, their bytes up the tree and every rank's offset down again (an
 * exclusive prefix sum by subtrees, as the rows area's). */
#ifndef INSTR_RT_MPI_JOBDB_PRUNED_H
#define INSTR_RT_MPI_JOBDB_PRUNED_H

#include "jobdb_pruned.h"

#include <mpi.h>

typedef struct instr_mpi_pruned {
    int on;               /* on every rank alike: whether the file gets the section */
    uint32_t *set, nset;  /* the pruned set (every rank) */
    uint32_t *msg;        /* the broadcast the set is in */
    int lost;             /* this rank missed the decision (without memory for it): its writes
                             must count as failed, the file stays unfinished */
    instr_jdb_rows rows;  /* this rank's rows of it */
    uint64_t offset;      /* of this rank's pruned rows from the pruned rows' start */
    uint64_t total;       /* bytes of every rank's pruned rows */
} instr_mpi_pruned;

/* Collective over comm (the tree's messages with tag). sum: rank 0's finished summary of the
 * union u (NULL: no file is written; on other ranks ignored, as is u but for its columns);
 * rows: this rank's rows, union ids, sorted. Without memory anywhere the section is left out
 * (on every rank: pr->on 0); the rest of the file is not affected. */
void instr_mpi_jobdb_pruned(instr_mpi_pruned *pr, const uint64_t *sum, const instr_jdb_defs *u,
                            const instr_jdb_rows *rows, int rank, int size, MPI_Comm comm,
                            int tag);
void instr_mpi_jobdb_pruned_free(instr_mpi_pruned *pr);

#endif
