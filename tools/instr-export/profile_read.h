/* profile_read.h — a profile.json (of a process or an MPI job) read for the exporters that
 * start from a profile: its call paths with their regions and locations (docs/profile-format.md). */
#ifndef INSTR_EXPORT_PROFILE_READ_H
#define INSTR_EXPORT_PROFILE_READ_H

#include "json.h"

typedef struct profile {
    json_value doc;
    const json_value *tree;      /* array of nodes, pre-order */
    const json_value *locations; /* array */
    const char **region_name;    /* by region id; NULL for ids not defined */
    uint64_t nregion_ids;
    int32_t *parent;             /* per node: index of the parent, -1 for roots */
    uint64_t total;              /* inclusive ns of all roots */
} profile;

/* Reads and checks path; 0, or 1 after a message on stderr naming the file and what is
 * wrong. */
int profile_read(profile *p, const char *path);
void profile_free(profile *p);
/* Region display name of node i. */
const char *profile_node_name(const profile *p, size_t i);
/* The call path of node i, outermost first, into out (node indices); returns its length.
 * out has room for p->tree->n entries: a parent comes before its child (profile_read), so
 * no path is longer. */
size_t profile_path(const profile *p, size_t i, size_t *out);

#endif
