/* spec_text.c — see spec_text.h. */
#include "spec_text.h"

#include "filter_internal.h"

#include <string.h>

void spec_reader_init(spec_reader *r, const char *data, size_t size)
{
    r->data = data;
    r->size = size;
    r->pos = 0;
    r->line = 0;
}

int spec_next_line(spec_reader *r, spec_line *line)
{
    if (r->pos >= r->size)
        return 0;
    const char *start = r->data + r->pos;
    const char *nl = memchr(start, '\n', r->size - r->pos);
    size_t len = nl ? (size_t)(nl - start) : r->size - r->pos;
    r->pos += len + (nl ? 1 : 0);
    if (len > 0 && start[len - 1] == '\r') /* CRLF files from Windows editors */
        len--;
    line->text = start;
    line->len = len;
    line->number = ++r->line;
    return 1;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

int spec_next_token(const spec_line *line, size_t *pos, int allow_quotes, spec_token *tok,
                    const char *origin, instr_filter_error *err)
{
    size_t i = *pos;
    while (i < line->len && is_blank(line->text[i]))
        i++;
    if (i >= line->len || line->text[i] == '#') {
        *pos = line->len;
        return 0;
    }
    unsigned column = (unsigned)i + 1;
    if (allow_quotes && line->text[i] == '"') {
        size_t begin = ++i;
        while (i < line->len && line->text[i] != '"') {
            if (line->text[i] == '\\' && i + 1 < line->len)
                i++;
            i++;
        }
        if (i >= line->len) {
            filter_error(err, origin, line->number, column,
                         "unterminated quoted pattern; add the closing '\"'");
            return -1;
        }
        tok->text = line->text + begin;
        tok->len = i - begin;
        tok->column = column + 1;
        *pos = i + 1;
        if (tok->len == 0) {
            filter_error(err, origin, line->number, column,
                         "empty quoted pattern; write a pattern between the quotes");
            return -1;
        }
        return 1;
    }
    size_t begin = i;
    while (i < line->len && !is_blank(line->text[i]) && line->text[i] != '#') {
        if (line->text[i] == '\\') {
            if (i + 1 >= line->len) {
                filter_error(err, origin, line->number, (unsigned)i + 1,
                             "'\\' at the end of the line escapes nothing; write '\\\\' for a "
                             "literal backslash");
                return -1;
            }
            i++;
        }
        i++;
    }
    tok->text = line->text + begin;
    tok->len = i - begin;
    tok->column = column;
    *pos = i;
    return 1;
}

int spec_next_scorep_token(const spec_line *line, size_t *pos, spec_token *tok)
{
    size_t i = *pos;
    while (i < line->len && is_blank(line->text[i]))
        i++;
    if (i >= line->len || line->text[i] == '#') {
        *pos = line->len;
        return 0;
    }
    size_t begin = i;
    while (i < line->len && !is_blank(line->text[i]) && line->text[i] != '#')
        i += line->text[i] == '\\' && i + 1 < line->len ? 2 : 1;
    tok->text = line->text + begin;
    tok->len = i - begin;
    tok->column = (unsigned)begin + 1;
    *pos = i;
    return 1;
}

int spec_token_is(const spec_token *tok, const char *word)
{
    size_t n = strlen(word);
    return tok->len == n && memcmp(tok->text, word, n) == 0;
}

spec_line spec_line_trim(const spec_line *line, unsigned *column)
{
    spec_line out = *line;
    size_t b = 0, e = line->len;
    while (b < e && is_blank(line->text[b]))
        b++;
    while (e > b && is_blank(line->text[e - 1]))
        e--;
    out.text = line->text + b;
    out.len = e - b;
    *column = (unsigned)b + 1;
    return out;
}
