/* outputs.h — the job's profile files (outputs.c), each from the merged profile (model.h)
 * through an adaptor to the writer the profile of one process uses too. */
#ifndef INSTR_RT_JOB_OUTPUTS_H
#define INSTR_RT_JOB_OUTPUTS_H

#include "model.h"

#include "../util/writer.h"

#include <stddef.h>
#include <stdio.h>

/* profile.json (json_adaptor.c; ../profile/write_json.h); groups sorted by rank. */
void instr_job_json(instr_writer *f, const instr_job *j, const char *dir, int nranks);
/* profile.cubex (cube_adaptor.c; ../profile/cube.h): 0, or -1 without memory. */
int instr_job_cube(instr_writer *f, const instr_job *j);
/* profile.cubex of a job profile from the database's summary (j->summary): every rank's
 * values read from <dir>/profile.jdb (cube_from_jdb.c). 0, or -1 (after a message). */
int instr_job_cube_jdb(instr_writer *f, const instr_job *j, const char *dir);
/* profile.txt (text_adaptor.c; write_text.h): 0, or -1 without memory. */
int instr_job_txt(instr_writer *f, const instr_job *j, const char *dir, int nranks);
/* The job's memory recording (memory.c; docs/memory.md): its sums over the ranks that
 * recorded, the rank with the highest high-water mark and each rank's figures; nothing when
 * no rank recorded. profile.json: a top-level member after ",\n"; profile.txt: a section. */
void instr_job_memory_json(instr_writer *f, const instr_job *j);
void instr_job_memory_text(instr_writer *f, const instr_job *j);
/* The job's I/O recording (io.c; docs/io.md): per paradigm the sums over the ranks that
 * recorded, the slowest rank (most time in I/O) and each rank's figures. As for memory. */
void instr_job_io_json(instr_writer *f, const instr_job *j);
void instr_job_io_text(instr_writer *f, const instr_job *j);
/* The ranks of the job missing from the profile, e.g. "1, 3-5" ("" when none), cut with
 * ", ..." when out is full; how many into *n. Groups are sorted by rank. */
void instr_job_missing_ranks(const instr_job *j, int nranks, char *out, size_t size, int *n);

/* The files sections.c wrote at the job's top (kokkos.txt, ...), added to files. */
void instr_job_section_files(char *out, size_t size);

/* INSTR_RANK_FILES (outputs_rank_files.c): 1 when rank writes files of its own (rank-N/)
 * besides the job's; and for the job's line where those are ("" when no rank writes any). */
int instr_job_rank_files(int rank);
void instr_job_rank_files_text(char *out, size_t size, int nranks);

#endif
