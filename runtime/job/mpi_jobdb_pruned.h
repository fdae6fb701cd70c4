/* mpi_jobdb_pruned.h — the pruned section of the job database (jobdb_pruned.h) as the MPI
 * writer (mpi_jobdb.c) makes it, once rank 0 holds the summary: the set down the tree, each
 * rank's rows of it and their bytes up the tree; every rank's offset then comes down with the
 * rows area's (mpi_jobdb.c, place_subtrees: an exclusive prefix sum by subtrees, both in one
 * crossing of the tree). */
#ifndef INSTR_RT_MPI_JOBDB_PRUNED_H
#define INSTR_RT_MPI_JOBDB_PRUNED_H

#include "jobdb_pruned.h"

#include <mpi.h>

typedef struct instr_mpi_pruned {
    int on;               /* on every rank alike: whether the file gets the section */
    uint32_t *set, nset;  /* the pruned set (every rank) */
    uint32_t *msg;        /* the broadcast the set is in */
    instr_jdb_rows rows;  /* this rank's rows of it */
    uint64_t offset;      /* of this rank's pruned rows from the pruned rows' start */
    uint64_t total;       /* bytes of every rank's pruned rows */
    /* after instr_mpi_jobdb_pruned_up, for the offsets' way down: */
    int ok;                   /* this rank has its rows of the set */
    uint64_t bytes;           /* their bytes */
    uint64_t subtree_ok;      /* every rank of this rank's subtree has (rank 0: every rank) */
    uint64_t subtree_bytes;   /* the subtree's bytes (rank 0: the section's rows, all ranks) */
    uint64_t child_bytes[32]; /* each child's subtree's, in instr_job_tree_children's order */
} instr_mpi_pruned;

/* Collective over comm (the tree's messages with tag): the set from rank 0 down the tree, and
 * the bytes of each subtree's rows of it up. sum: rank 0's finished summary of the union u
 * (NULL: no file is written; on other ranks ignored, as is u but for its columns); rows: this
 * rank's rows, union ids, sorted. */
void instr_mpi_jobdb_pruned_up(instr_mpi_pruned *pr, const uint64_t *sum, const instr_jdb_defs *u,
                               const instr_jdb_rows *rows, int rank, int size, MPI_Comm comm,
                               int tag);
/* What came down the tree with this rank's rows' offset: whether the file gets the section
 * (rank 0's subtree_ok: without memory anywhere it is left out on every rank, the rest of the
 * file not affected), its rows' bytes and this rank's offset among them. */
void instr_mpi_jobdb_pruned_placed(instr_mpi_pruned *pr, int on, uint64_t total, uint64_t offset);
void instr_mpi_jobdb_pruned_free(instr_mpi_pruned *pr);

#endif
