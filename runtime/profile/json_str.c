/* json_str.c — a string as a JSON string literal, shared by the profile writers and the tools
 * that write JSON (instr-export). */
#include "json_str.h"
#include "../core/text.h"

/* Always valid UTF-8 (RFC 8259): a byte that does not belong to a well-formed UTF-8 sequence
 * becomes U+FFFD, the replacement character (docs/profile-format.md). */
void instr_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        int n = instr_utf8_len(p);
        if (n == 0) {
            fputs("\\ufffd", f);
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, (size_t)n, f);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}
