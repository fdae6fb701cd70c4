/* spec_text.h — lines and whitespace-separated tokens of the line-based spellings
 * (native, Score-P, TAU): CRLF, '#' comments, '\' escapes and "quoted" patterns. */
#ifndef INSTR_SPEC_TEXT_H
#define INSTR_SPEC_TEXT_H

#include "instr_filter.h"

#include <stddef.h>

typedef struct spec_reader {
    const char *data;
    size_t size, pos;
    unsigned line;
} spec_reader;

typedef struct spec_line {
    const char *text; /* without its line ending */
    size_t len;
    unsigned number;  /* 1-based */
} spec_line;

typedef struct spec_token {
    const char *text; /* raw: escapes kept, so fnmatch sees them; quotes removed */
    size_t len;
    unsigned column;  /* 1-based, of the token's first character */
} spec_token;

void spec_reader_init(spec_reader *r, const char *data, size_t size);
/* 1 and *line filled, or 0 at the end of the data. */
int spec_next_line(spec_reader *r, spec_line *line);

/* Next token of a line from *pos; 1 found, 0 at the end of the line or at a comment,
 * -1 on a malformed token (err filled). Quotes are honoured when allow_quotes. */
int spec_next_token(const spec_line *line, size_t *pos, int allow_quotes, spec_token *tok,
                    const char *origin, instr_filter_error *err);

/* Next token of a Score-P line: no quotes, and a '\' at the end of the line stays in the
 * token (Score-P reads it as a literal backslash). 1 found, 0 at the end or a comment. */
int spec_next_scorep_token(const spec_line *line, size_t *pos, spec_token *tok);

int spec_token_is(const spec_token *tok, const char *word);

/* The line without leading and trailing blanks; *column is the 1-based start. */
spec_line spec_line_trim(const spec_line *line, unsigned *column);

#endif
