/* demangle.c — one spelling of demangled names for every front end (see instr_filter.h).
 *
 * The spelling is libiberty's, because GCC, c++filt and libstdc++'s __cxa_demangle (what
 * the runtime uses) all print it; only LLVM's demangler differs, in the ways rewritten
 * here. Names that differ because the compilers *mangle* differently (clang's "$_0" for a
 * lambda in a non-inline function, where GCC writes "{lambda(int)#1}") cannot be
 * reconciled from the text and are left alone; docs/selection-specs.md lists them. */
#include "filter_internal.h"

#include <string.h>

typedef struct out {
    char *buf;
    size_t size, len;
} out;

static void emit(out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++, o->len++)
        if (o->len + 1 < o->size)
            o->buf[o->len] = s[i];
}

static void emit_number(out *o, unsigned long v)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof digits);
    while (n)
        emit(o, &digits[--n], 1);
}

/* "'lambda'" or "'lambda<digits>'" (likewise 'unnamed') at s: its discriminator in
 * libiberty's numbering (#1 for none, #N+2 for digits N), and its length; 0 if not one. */
static size_t llvm_tag(const char *s, size_t avail, const char *word, unsigned long *number)
{
    size_t w = strlen(word);
    if (avail < w + 2 || s[0] != '\'' || memcmp(s + 1, word, w) != 0)
        return 0;
    size_t i = 1 + w;
    unsigned long v = 0;
    int digits = 0;
    while (i < avail && s[i] >= '0' && s[i] <= '9' && digits < 9) {
        v = v * 10 + (unsigned long)(s[i] - '0');
        i++;
        digits++;
    }
    if (i >= avail || s[i] != '\'')
        return 0;
    *number = digits ? v + 2 : 1;
    return i + 1;
}

/* Index of the ')' that closes the '(' at s[open], or 0. */
static size_t closing_paren(const char *s, size_t len, size_t open)
{
    int depth = 0;
    for (size_t i = open; i < len; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')' && --depth == 0)
            return i;
    }
    return 0;
}

size_t instr_demangled_normalize(const char *in, char *buf, size_t size)
{
    out o = {buf, size, 0};
    size_t len = strlen(in);
    for (size_t i = 0; i < len;) {
        unsigned long number;
        size_t n;
        if (in[i] == 'o' && len - i > 8 && memcmp(in + i, "operator", 8) == 0 &&
            (i == 0 || !signature_is_ident(in[i - 1])) && !signature_is_ident(in[i + 8])) {
            size_t sym = signature_operator_symbol(in + i + 8, len - i - 8);
            size_t after = i + 8 + sym;
            int all_less = sym > 0;
            for (size_t k = i + 8; k < after; k++)
                all_less = all_less && in[k] == '<';
            /* "operator<<Key>": the last '<' opens template arguments when an identifier
             * follows; libiberty separates it with a blank */
            if (all_less && after < len && in[after] != '(' && in[after] != '=' &&
                in[after] != ' ' && in[after] != '<') {
                emit(&o, in + i, 8 + sym - 1);
                emit(&o, " <", 2);
            } else {
                emit(&o, in + i, 8 + sym);
            }
            i = after;
        } else if ((n = llvm_tag(in + i, len - i, "lambda", &number)) != 0 && i + n < len &&
                   in[i + n] == '(' && closing_paren(in, len, i + n) != 0) {
            size_t close = closing_paren(in, len, i + n);
            emit(&o, "{lambda", 7);
            emit(&o, in + i + n, close + 1 - (i + n));
            emit(&o, "#", 1);
            emit_number(&o, number);
            emit(&o, "}", 1);
            i = close + 1;
        } else if ((n = llvm_tag(in + i, len - i, "unnamed", &number)) != 0) {
            emit(&o, "{unnamed type#", 14);
            emit_number(&o, number);
            emit(&o, "}", 1);
            i += n;
        } else if (in[i] == '>' && i + 1 < len && in[i + 1] == '>') {
            emit(&o, "> ", 2); /* closing two template argument lists */
            i++;
        } else {
            emit(&o, in + i, 1);
            i++;
        }
    }
    if (size > 0)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len;
}
