/* profile_check.h — what both instr-export and instr-score take for a valid profile.json
 * (docs/profile-format.md), checked once, before either reads a value: every tree node's id
 * is its index, its region is one of `regions`, its parent is an earlier node (pre-order:
 * no node is its own parent and the parents form no cycle), and its counts are counts. */
#ifndef INSTR_PROFILE_CHECK_H
#define INSTR_PROFILE_CHECK_H

#include "json.h"

/* doc is an object with "format": "instr-profile" (each tool says so its own way when it is
 * not). 0, or -1 with why set to what is wrong and where, e.g. `tree[3].region 99 is not the
 * id of a region in "regions"` (the tool puts its name and the file in front). */
int instr_profile_check(const json_value *doc, char *why, size_t whysize);

#endif
