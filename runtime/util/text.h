/* text.h — showing text the runtime did not write itself (environment values and names,
 * region names, paths) without letting it forge lines or terminal sequences, and without
 * letting a long value push the variable's name and the advice out of a message. */
#ifndef INSTR_UTIL_TEXT_H
#define INSTR_UTIL_TEXT_H

#include "writer.h"

#include <stddef.h>
#include <stdio.h>

/* Length (1-4) of the well-formed UTF-8 sequence at p (shortest form, no surrogates, at
 * most U+10FFFF), or 0 when the byte at p does not start one. p is NUL-terminated. */
int instr_utf8_len(const unsigned char *p);

/* How one kind of output carries text (a message, JSON, XML): every writer walks the text
 * with instr_escape_one(), which keeps well-formed UTF-8 sequences as they are and asks the
 * escaper for the rest. */
#define INSTR_ESCAPED_MAX 16 /* room for any one escaped form */
typedef struct instr_escaper {
    /* The form of ASCII byte c (below 0x80) into out, and its length; 0: c as it is. */
    size_t (*ascii)(unsigned c, char *out);
    /* The form of byte c, which does not begin a well-formed UTF-8 sequence, into out, and
     * its length. */
    size_t (*invalid)(unsigned c, char *out);
    int c1; /* C1 controls (U+0080..U+009F): both their bytes given to `invalid` */
} instr_escaper;

/* Messages and text files (instr_wr_escaped); JSON and XML: json_str.h, xml_str.h. */
extern const instr_escaper instr_escaper_text;

/* The form of the character at p (NUL-terminated, *p not NUL) under e into out (at least
 * INSTR_ESCAPED_MAX bytes), its length into *len; returns how many bytes of p it covers. */
size_t instr_escape_one(const instr_escaper *e, const unsigned char *p, char *out, size_t *len);

/* s (NULL: "") written to w under e; instr_fputs_with: to a stdio stream (the tools; the
 * runtime writes only through writers, writer.h). */
void instr_wr_escaped_with(instr_writer *w, const char *s, const instr_escaper *e);
void instr_fputs_with(FILE *f, const char *s, const instr_escaper *e);

/* Writes s to w with what a terminal or a line-based reader would take for structure
 * escaped: C0 controls and DEL as \n \r \t or \xHH, C1 controls (U+0080..U+009F) and bytes
 * that are not well-formed UTF-8 as \xHH, and the backslash as \\. */
void instr_wr_escaped(instr_writer *w, const char *s);

/* s escaped as instr_wr_escaped() does, into out (cut only when out is full). Returns
 * out. */
const char *instr_escaped(char *out, size_t size, const char *s);

/* Room for any instr_quote() result. */
#define INSTR_QUOTE_SIZE 256

/* s quoted for a message: 'escaped text', shortened to its first bytes when long, as
 * 'AAAA…' (65536 bytes), so that a message always keeps the variable's name and the
 * advice. Returns out. */
const char *instr_quote(char out[INSTR_QUOTE_SIZE], const char *s);

#endif
