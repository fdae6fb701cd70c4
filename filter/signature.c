/* signature.c — the qualified name inside a demangled signature.
 *
 * Itanium demanglers print "[return type ]qualified::name[<targs>](params)[ qualifiers]".
 * The return type appears for template functions only; the name may itself contain
 * parentheses and spaces ("(anonymous namespace)::f", "{lambda(int)#1}", "operator()",
 * "operator new", "operator unsigned long"), and '<' '>' appear unbalanced in operator names. */
#include "filter_internal.h"

#include <string.h>

int signature_is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

/* Length of the operator symbol at s (after "operator"), so that its '(' '<' '[' are not
 * taken as brackets. Named operators (new, delete, conversions) are identifiers anyway. */
size_t signature_operator_symbol(const char *s, size_t avail)
{
    if (avail >= 2 && (memcmp(s, "()", 2) == 0 || memcmp(s, "[]", 2) == 0))
        return 2;
    size_t n = 0;
    while (n < avail && strchr("+-*/%^&|~!=<>,", s[n]) != NULL && s[n] != '\0')
        n++;
    return n;
}

size_t signature_split(const char *sig, size_t len, size_t *name_begin)
{
    int depth = 0;
    size_t params = len, boundary = 0;
    int in_operator = 0; /* no name boundary between "operator" and its '(' */
    for (size_t i = 0; i < len; i++) {
        char c = sig[i];
        if (c == 'o' && len - i >= 8 && memcmp(sig + i, "operator", 8) == 0 &&
            (i == 0 || !signature_is_ident(sig[i - 1])) &&
            (i + 8 >= len || !signature_is_ident(sig[i + 8]))) {
            i += 8;
            size_t n = signature_operator_symbol(sig + i, len - i);
            i += n;
            if (depth == 0)
                in_operator = 1;
            i--; /* the loop's increment */
            continue;
        }
        switch (c) {
        case '(':
            if (depth == 0) {
                /* "(anonymous namespace)::" is part of the name, not a parameter list */
                size_t j = i;
                int d = 0;
                for (; j < len; j++) {
                    if (sig[j] == '(') d++;
                    else if (sig[j] == ')' && --d == 0) break;
                }
                if (j + 2 < len && sig[j + 1] == ':' && sig[j + 2] == ':') {
                    i = j;
                    break;
                }
                /* the first top-level group is the parameter list; what follows it is
                 * qualifiers and "[clone .cold]" suffixes ("void (*f())(int)" is not
                 * handled: no demangler output we meet looks like that) */
                if (params == len)
                    params = i;
                in_operator = 0;
            }
            depth++;
            break;
        case '<': case '{': case '[':
            depth++;
            break;
        case ')': case '>': case '}': case ']':
            if (depth > 0)
                depth--;
            break;
        case ' ':
            if (depth == 0 && !in_operator && params == len)
                boundary = i + 1;
            break;
        default:
            break;
        }
    }
    *name_begin = boundary <= params ? boundary : 0;
    return params;
}

size_t instr_signature_name(const char *signature, char *buf, size_t size)
{
    size_t len = strlen(signature), begin;
    size_t end = signature_split(signature, len, &begin);
    size_t n = end - begin;
    if (size > 0) {
        size_t copy = n < size - 1 ? n : size - 1;
        memcpy(buf, signature + begin, copy);
        buf[copy] = '\0';
    }
    return n;
}
