/* experiment.h — the experiment directory: one per run, never overwriting an existing one,
 * and never a way for another user to make the runtime write somewhere else.
 *
 * Default name instr-<YYYYMMDD_HHMMSS>-<pid> in the current directory, or
 * INSTR_EXPERIMENT_DIRECTORY. When the name exists already, ".1", ".2", ... is appended until
 * mkdir(2) succeeds (mkdir is atomic, so two processes never share one). A forked child
 * writes into <parent's directory>/fork-<pid>, created only when the child writes.
 *
 * While the run records, the directory is private (mode 0700: only the running user can
 * enter it), held open as a directory descriptor (opened with O_NOFOLLOW and checked to be
 * the user's own), and every file in it is created relative to that descriptor with
 * O_EXCL|O_NOFOLLOW under a temporary name (<name>.partial), renamed to its final name only
 * when it is complete. At the end the directory is published: its mode becomes what the
 * umask allows, as for any directory the user makes (docs/security.md). */
#ifndef INSTR_RT_EXPERIMENT_H
#define INSTR_RT_EXPERIMENT_H

#include "../util/writer.h"

#include <stdint.h>
#include <stdio.h>

/* In an MPI job (libinstr-rt-mpi loaded) at start-up, instead of instr_experiment_create():
 * the directory is made in MPI_Init by instr_experiment_join(); if that never happens,
 * instr_experiment_prepare() creates one as usual. */
void instr_experiment_defer(void);
/* Every process of a job: <jobdir>/<sub> becomes this process's directory. own_now: created
 * now (made unique like any experiment directory) with instr.cfg in it; 0: created only when
 * something is written into it (a rank without files of its own, docs/mpi.md). The process
 * that made jobdir (rank 0) writes the job's instr.cfg there. 0, or -1 after a message. */
int instr_experiment_join(const char *jobdir, const char *sub, int own_now);
/* 1 when this process joined its job without files of its own (join's own_now 0), also
 * after something else made its directory. */
int instr_experiment_own_deferred(void);
/* Makes a deferred directory now (a no-op otherwise): 0, or -1 after a message. */
int instr_experiment_materialize(void);
/* 1 when join wrote the job's instr.cfg (rank 0). */
int instr_experiment_job_config_written(void);
/* At start-up (rank 0 of a job: in MPI_Init). 0, or -1 after one message saying why and what
 * happens instead. */
int instr_experiment_create(void);
/* Absolute path, or NULL when there is none. */
const char *instr_experiment_dir(void);
/* A path that reaches the experiment directory (job directory for job) through its open
 * descriptor (/proc/thread-self/fd/N), for libraries that create files by path (OTF2): whatever
 * happens to the directory's name meanwhile, they write into the directory made here.
 * Falls back to the plain path where /proc is not mounted. NULL when there is none. */
const char *instr_experiment_io_path(void);
const char *instr_experiment_job_io_path(const char *jobdir);
/* In a forked child: the next instr_experiment_prepare() creates <dir>/fork-<pid>. */
void instr_experiment_forked(int pid);
/* At the end, before writing: creates a forked child's directory. 0, or -1 (message given). */
int instr_experiment_prepare(void);
/* When this process's own files are written: makes its directory readable as the umask
 * allows. Idempotent. */
void instr_experiment_publish_own(void);
/* At the very end (atexit, after an MPI job's last step): the same, and the job's directory
 * in the process that made it (rank 0). Idempotent. */
void instr_experiment_publish(void);

/* A file being written into the experiment directory. */
typedef struct instr_outfile {
    instr_writer w; /* buffered in the runtime's pages, no stdio (util/writer.h) */
    instr_writer *f; /* &w, what the writers take */
    int dfd, fd;
    int err;             /* first errno of a failed write, 0 */
    uint64_t bytes;      /* what the writer produced */
    char name[64];
} instr_outfile;

/* Creates <name>.partial in the experiment directory (in the job directory with _job; the
 * path given must be the job directory this process joined or created). 0, or -1 after
 * noting the failure (instr_experiment_failures). */
int instr_out_open(instr_outfile *o, const char *name);
int instr_out_open_job(instr_outfile *o, const char *name);
/* Flushes and publishes the file under its final name. 0; or -1 when anything failed: the
 * partial file is removed (a truncated file never carries a final name) and the loss is
 * noted. */
int instr_out_close(instr_outfile *o);

/* A file that each process writes of its own (kokkos.txt). Outside an MPI job as
 * instr_out_open/close. In a job the text is kept in memory, and at the job's end rank 0
 * writes every rank's into one file of that name at the job's top (runtime/job/sections.c,
 * docs/mpi.md); a rank that INSTR_RANK_FILES names also writes its own now, and one that ends
 * alone writes its own then (instr_experiment_rank_sections_own). Same returns. */
int instr_out_open_rank(instr_outfile *o, const char *name);
int instr_out_close_rank(instr_outfile *o);
/* The job's end: this process's kept files as "<name>\n<length>\n<text>" one after the
 * other (*out from instr_mem_alloc, NULL when none); their length. Files opened later go to
 * the process's own directory. */
size_t instr_experiment_rank_sections(char **out);
/* A rank that ends alone: its kept files into its own directory. */
void instr_experiment_rank_sections_own(void);

/* Adds name to the list of files written (", "-separated, in files of size bytes) that the
 * end-of-run line shows: a substrate's write() gets the list. */
void instr_files_add(char *files, size_t size, const char *name);

/* Notes a file (or archive) that could not be written: reported in one line per
 * experiment by instr_experiment_report_failures(). */
void instr_experiment_note_failure(const char *what, int err, uint64_t bytes);
/* The one line: what could not be written, why (errno text) and how much was lost.
 * Returns how many failures there were. */
int instr_experiment_report_failures(void);

/* Writes instr.cfg: every INSTR_* variable with its effective value and origin. */
int instr_experiment_write_config(void);

#endif
