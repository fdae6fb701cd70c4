/* glob.c — the pattern language of every spelling: fnmatch(3) without flags, so '*' also
 * matches '/', '(' and ':'. Loaders validate first, because fnmatch silently reads a
 * malformed pattern as a literal and a typo would then select nothing. */
#include "instr_filter.h"

#include <fnmatch.h>

int instr_glob_match(const char *pattern, const char *text)
{
    return fnmatch(pattern, text, 0) == 0;
}

/* Index just past the ']' closing the bracket expression that starts at p[i] == '[', or -1. */
static long bracket_end(const char *p, long i)
{
    long j = i + 1;
    if (p[j] == '!' || p[j] == '^')
        j++;
    if (p[j] == ']') /* a leading ']' is a member, not the end */
        j++;
    while (p[j] != '\0') {
        if (p[j] == ']')
            return j + 1;
        if (p[j] == '[' && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
            char kind = p[j + 1];
            long k = j + 2;
            while (p[k] != '\0' && !(p[k] == kind && p[k + 1] == ']'))
                k++;
            if (p[k] == '\0')
                return -1;
            j = k + 2;
            continue;
        }
        if (p[j] == '\\' && p[j + 1] != '\0')
            j++;
        j++;
    }
    return -1;
}

long instr_glob_check(const char *pattern, const char **what)
{
    for (long i = 0; pattern[i] != '\0'; i++) {
        if (pattern[i] == '\\') {
            if (pattern[i + 1] == '\0') {
                *what = "trailing '\\' escapes nothing; write '\\\\' for a literal backslash";
                return i;
            }
            i++;
        } else if (pattern[i] == '[') {
            long end = bracket_end(pattern, i);
            if (end < 0) {
                *what = "unterminated '[' character class; close it with ']' or write '\\[' "
                        "for a literal bracket";
                return i;
            }
            i = end - 1;
        }
    }
    return -1;
}
