/* xml_str.c — a string as XML text (the CUBE writer's names and descriptions). */
#include "xml_str.h"
#include "text.h"

#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* The five special characters as entities; controls that XML 1.0 cannot carry as U+FFFD. */
static size_t xml_ascii(unsigned c, char *out)
{
    const char *e = c == '&'    ? "&amp;"
                    : c == '<'  ? "&lt;"
                    : c == '>'  ? "&gt;"
                    : c == '"'  ? "&quot;"
                    : c == '\'' ? "&apos;"
                    : c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? REPLACEMENT
                                                                       : NULL;
    if (!e)
        return 0;
    size_t n = strlen(e);
    memcpy(out, e, n);
    return n;
}

/* Bytes that are not well-formed UTF-8 as U+FFFD. */
static size_t xml_invalid(unsigned c, char *out)
{
    (void)c;
    memcpy(out, REPLACEMENT, 3);
    return 3;
}

const instr_escaper instr_escaper_xml = {xml_ascii, xml_invalid, 0};

void instr_wr_xml_str(instr_writer *w, const char *s) { instr_wr_escaped_with(w, s, &instr_escaper_xml); }
