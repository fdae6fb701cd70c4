/* instr_filter.h — the selection-spec library.
 *
 * One rule model, four spellings (native .spec, YAML, Score-P filter files, TAU selection
 * files), one decision function. Linked into both compiler plugins and the runtime so that
 * every front end selects exactly the same functions. See docs/selection-specs.md.
 *
 * Ownership: an instr_filter owns its rules and every string they point to. Decisions point
 * into the filter that made them and are valid while that filter lives.
 * Thread safety: loading mutates; deciding is read-only and may run concurrently. */
#ifndef INSTR_FILTER_H
#define INSTR_FILTER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum instr_spec_format {
    INSTR_SPEC_AUTO = 0, /* detect from extension (.yaml/.yml) and content */
    INSTR_SPEC_NATIVE,
    INSTR_SPEC_YAML,
    INSTR_SPEC_SCOREP,
    INSTR_SPEC_TAU
} instr_spec_format;

typedef enum instr_rule_target {
    INSTR_TARGET_FILE,     /* glob on the defining file's absolute path */
    INSTR_TARGET_FUNCTION, /* glob on the demangled signature or the qualified name */
    INSTR_TARGET_MANGLED   /* glob on the linkage name */
} instr_rule_target;

typedef struct instr_rule {
    int include; /* 1 include, 0 exclude */
    instr_rule_target target;
    const char *pattern;
    /* TAU prototypes carry a parameter list, C functions have none: for a function whose
     * signature has no parameter list this pattern (the prototype's name part) is used.
     * NULL for every other spelling. */
    const char *c_name_pattern;
    const char *origin; /* spec file path as given, or the buffer name */
    unsigned line, column;
    /* A Score-P region rule: it also matches the name as Score-P's GCC plugin spells it
     * (instr_function_facts.tool_name). 0 for every other spelling. */
    int tool_spelling;
} instr_rule;

/* Built-in exclusions: applied before any rule, never overridable by a spec (except
 * `outlined`, which an include rule naming the function re-includes). The front end
 * reports the facts it knows as flags; the filter recognises the name-based ones itself. */
typedef enum instr_builtin {
    INSTR_BUILTIN_NONE = 0,
    INSTR_BUILTIN_DECLARATION,  /* no body here (declaration, available_externally) */
    INSTR_BUILTIN_ARTIFICIAL,   /* compiler-generated: artificial, thunks, static initialisers */
    INSTR_BUILTIN_RUNTIME,      /* instr's own functions and other tools' hooks */
    INSTR_BUILTIN_NON_HOST,     /* device code (nvptx, amdgcn, spir) */
    INSTR_BUILTIN_NAKED,        /* naked functions: no prologue to put a hook into */
    INSTR_BUILTIN_OUTLINED,     /* OpenMP outlined bodies; an explicit include rule overrides */
    INSTR_BUILTIN_COUNT
} instr_builtin;

#define INSTR_BUILTIN_FLAG(b) (1u << (unsigned)(b))

typedef struct instr_function_facts {
    const char *signature;    /* demangled, with parameters: "ns::A::f(int, double) const" */
    const char *name;         /* qualified, without parameters: "ns::A::f"; NULL: derived */
    const char *mangled;      /* linkage name; NULL or "" when unknown */
    const char *file;         /* absolute path of the defining file; NULL or "" when unknown */
    long instructions;        /* IR instructions / GIMPLE statements; < 0 when unknown */
    int is_main;
    unsigned builtin_flags;   /* INSTR_BUILTIN_FLAG(...) facts the front end knows */
    /* The name as GCC prints a declaration (what Score-P's GCC plugin records and
     * scorep-score shows): return type, parameters, "[with T = double]" for templates, e.g.
     * "MMD_float Neighbor::bindist(int, int, int)". Matched by Score-P region rules only.
     * NULL or "" when the front end does not know it. */
    const char *tool_name;
    /* The defining file with symbolic links resolved (realpath), when it differs from file;
     * file rules match either. NULL or "" when unknown or the same. */
    const char *resolved_file;
} instr_function_facts;

typedef enum instr_reason {
    INSTR_REASON_DEFAULT,          /* no rule matched: every function starts included */
    INSTR_REASON_FILE_RULE,        /* a file rule decided (always, when it excluded) */
    INSTR_REASON_FUNCTION_RULE,    /* a function or mangled rule decided */
    INSTR_REASON_MIN_INSTRUCTIONS, /* too small */
    INSTR_REASON_BUILTIN           /* a built-in exclusion */
} instr_reason;

typedef struct instr_decision {
    int include;
    instr_reason reason;
    const instr_rule *rule;       /* FILE_RULE, FUNCTION_RULE; else NULL */
    instr_builtin builtin;        /* BUILTIN; else INSTR_BUILTIN_NONE */
    long min_instructions;        /* MIN_INSTRUCTIONS: the threshold that applied */
    long instructions;            /* MIN_INSTRUCTIONS: the function's count */
    const char *min_origin;       /* MIN_INSTRUCTIONS: where the threshold was set */
    unsigned min_line;
} instr_decision;

/* At most this many errors of one spec are listed; a last line counts the rest. */
#define INSTR_FILTER_MAX_ERRORS 20

typedef struct instr_filter_error {
    const char *origin; /* of the first error; for display only */
    unsigned line, column; /* of the first error */
    unsigned count;        /* errors found in the spec (all of them, listed or not) */
    /* complete and printable, one line per error: "path:line:col: error: what; hint",
     * no trailing newline */
    char message[8192];
} instr_filter_error;

/* The largest spec file any front end reads (bytes). */
#define INSTR_SPEC_MAX_BYTES (16UL << 20)

typedef struct instr_filter instr_filter;

instr_filter *instr_filter_new(void);
void instr_filter_free(instr_filter *filter);

/* Appends the rules of one spec (several specs append in order, as Score-P does).
 * Returns 0, or -1 with *err filled (every error of the spec, up to INSTR_FILTER_MAX_ERRORS);
 * on error the filter keeps the rules it had before.
 * load_file is the one reader of spec files for every front end: it refuses what is not a
 * regular file (FIFO, device, directory) without waiting for data, refuses files larger than
 * INSTR_SPEC_MAX_BYTES, and stops at the first control byte as the bytes arrive. */
int instr_filter_load_file(instr_filter *filter, const char *path, instr_spec_format format,
                           instr_filter_error *err);
int instr_filter_load_buffer(instr_filter *filter, const char *origin, const char *data,
                             size_t size, instr_spec_format format, instr_filter_error *err);

/* The format a spec is read as: by extension for YAML, else by content. */
instr_spec_format instr_spec_detect(const char *path, const char *data, size_t size);
const char *instr_spec_format_name(instr_spec_format format);

/* The message without the word "error: " after each location, for front ends whose own
 * diagnostics add it (clang's emitError). Returns the length it wanted. */
size_t instr_filter_error_plain(const instr_filter_error *err, char *buf, size_t size);

/* Warnings of the specs loaded so far (parts of a spec instr reads but cannot honour, such as
 * a TAU loop list): complete lines "path:line:col: warning: what instr does instead". */
size_t instr_filter_warning_count(const instr_filter *filter);
const char *instr_filter_warning(const instr_filter *filter, size_t index);

size_t instr_filter_rule_count(const instr_filter *filter);
const instr_rule *instr_filter_rule(const instr_filter *filter, size_t index);
/* < 0 when no spec set one. */
long instr_filter_min_instructions(const instr_filter *filter, const char **origin,
                                   unsigned *line);
/* 1 when no rule and no threshold is loaded: everything not built-in is included. */
int instr_filter_is_empty(const instr_filter *filter);

instr_decision instr_filter_decide(const instr_filter *filter, const instr_function_facts *f);

/* Decision as one line: "include|exclude <reason>", e.g.
 * "exclude function std::* (app.spec:3:18)" (the deciding rule, which starts with the verdict),
 * "exclude min-instructions 50 (app.spec:7): 12 instructions",
 * "exclude built-in artificial (...)" or "include default (no rule matched)".
 * Returns the length it wanted (snprintf style). */
size_t instr_decision_format(const instr_decision *d, char *buf, size_t size);
/* The short category a front end counts by: "default", "file", "name", "size", "built-in". */
const char *instr_reason_category(const instr_decision *d);

/* A rule in native spelling, e.g. "exclude function std::*"; patterns re-escaped so that the
 * line parses back to the same rule. */
size_t instr_rule_format(const instr_rule *rule, char *buf, size_t size);

const char *instr_builtin_name(instr_builtin b);        /* "artificial" */
const char *instr_builtin_description(instr_builtin b); /* one sentence for users */
/* The name globs that make a function the runtime's own or compiler-generated. NULL ends. */
const char *const *instr_builtin_name_patterns(instr_builtin b);

/* Qualified name without parameters (and without a template function's return type) from a
 * demangled signature: "void ns::f<int>(int) const" -> "ns::f<int>". Writes at most size
 * bytes, NUL-terminated; returns the length it wanted. */
size_t instr_signature_name(const char *signature, char *buf, size_t size);

/* The demangled name in the one spelling every front end uses: libiberty's (GCC, c++filt,
 * __cxa_demangle). LLVM's demangler writes some names differently; this rewrites them:
 *   'lambda'(int)  -> {lambda(int)#1}     'lambda0'(int) -> {lambda(int)#2}
 *   'unnamed'      -> {unnamed type#1}    'unnamed1'     -> {unnamed type#3}
 *   A<B<int>>      -> A<B<int> >          operator<<Key> -> operator< <Key>
 * Text already in libiberty's spelling comes back unchanged. Writes at most size bytes,
 * NUL-terminated; returns the length it wanted. */
size_t instr_demangled_normalize(const char *demangled, char *buf, size_t size);

/* fnmatch(3) without flags, after the pattern was validated by a loader. */
int instr_glob_match(const char *pattern, const char *text);
/* Offset of the first malformed part of a pattern (unterminated '[', trailing '\'), or -1. */
long instr_glob_check(const char *pattern, const char **what);

#ifdef __cplusplus
}
#endif
#endif
