/* rtfilter.c — see rtfilter.h. Instruction counts are unknown at run time (-1), so
 * min-instructions rules never exclude here. */
#include "rtfilter.h"
#include "log.h"
#include "../util/text.h"

#include <string.h>

#ifdef INSTR_RT_HAVE_FILTER
#include "instr_filter.h"

static instr_filter *filter;

void instr_rtfilter_init(const char *path)
{
    if (!path)
        return;
    instr_filter *f = instr_filter_new();
    instr_filter_error err;
    memset(&err, 0, sizeof err);
    if (!f || instr_filter_load_file(f, path, INSTR_SPEC_AUTO, &err) != 0) {
        char q[INSTR_QUOTE_SIZE], msg[1024]; /* the spec's text may be in the message */
        instr_warn("INSTR_FILTERING_FILE=%s: %s; running without a run-time filter",
                   instr_quote(q, path),
                   instr_escaped(msg, sizeof msg, f ? err.message : "out of memory"));
        if (f)
            instr_filter_free(f);
        return;
    }
    for (size_t i = 0; i < instr_filter_warning_count(f); i++) {
        char msg[1024];
        instr_warn("INSTR_FILTERING_FILE: %s",
                   instr_escaped(msg, sizeof msg, instr_filter_warning(f, i)));
    }
    filter = f;
    char q[INSTR_QUOTE_SIZE];
    instr_info(1, "run-time filter: %zu rule(s) from %s", instr_filter_rule_count(f),
               instr_quote(q, path));
}

int instr_rtfilter_includes(const char *name, const char *mangled, const char *file)
{
    if (!filter)
        return 1;
    instr_function_facts facts;
    memset(&facts, 0, sizeof facts);
    facts.signature = name;
    facts.mangled = mangled;
    facts.file = file;
    facts.instructions = -1;
    facts.is_main = strcmp(name, "main") == 0;
    instr_decision d = instr_filter_decide(filter, &facts);
    if (instr_verbose >= 2) {
        char why[512], shown[512], reason[512];
        instr_decision_format(&d, why, sizeof why);
        instr_info(2, "run-time filter: %s: %s", instr_escaped(shown, sizeof shown, name),
                   instr_escaped(reason, sizeof reason, why));
    }
    return d.include;
}
#else
void instr_rtfilter_init(const char *path)
{
    char q[INSTR_QUOTE_SIZE];
    if (path)
        instr_warn("INSTR_FILTERING_FILE=%s: this runtime was built without filter/; running "
                   "without a run-time filter", instr_quote(q, path));
}

int instr_rtfilter_includes(const char *name, const char *mangled, const char *file)
{
    (void)name, (void)mangled, (void)file;
    return 1;
}
#endif
