/* fuzz_env.c — libFuzzer target for the runtime's environment parser (runtime/core/config.c)
 * and the escaping of untrusted text (runtime/util/text.c).
 *
 * The input is an environment: "NAME=value" entries separated by newlines (a NUL byte ends
 * the input); the first byte's low bit is AT_SECURE. Every entry's value also goes through
 * the size and boolean parsers, the nearest-name search and both escapers. The runtime's log
 * is replaced by a test double (below) that checks what a message must be: one line, no
 * control bytes, the "instr: " voice, never longer than the log's line. */
#include "../../runtime/core/config.h"
#include "../../runtime/core/log.h"
#include "../../runtime/util/text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- test double for runtime/core/log.c: checks every message instead of printing it */
int instr_verbose = 0;

static void check_message(const char *fmt, va_list ap)
{
    char buf[4096];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0 || (size_t)n >= sizeof buf - 16)
        abort(); /* a message that log.c would cut */
    for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            abort(); /* a raw control byte: a forged line or a terminal sequence */
}

void instr_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    check_message(fmt, ap);
    va_end(ap);
}

void instr_info(int level, const char *fmt, ...)
{
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    check_message(fmt, ap);
    va_end(ap);
}

/* ---- the target */

static void check_escaped(const char *s)
{
    char q[INSTR_QUOTE_SIZE], e[512];
    instr_quote(q, s);
    if (strlen(q) >= INSTR_QUOTE_SIZE)
        abort();
    instr_escaped(e, sizeof e, s);
    for (const unsigned char *p = (const unsigned char *)e; *p;) {
        int n = instr_utf8_len(p);
        if (n == 0 || *p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] < 0xa0))
            abort(); /* escaped text is clean UTF-8 without controls */
        p += n;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int secure = data[0] & 1;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    size_t n = 1;
    for (char *p = text; *p; p++)
        n += *p == '\n';
    char **envp = calloc(n + 1, sizeof *envp);
    if (!envp) {
        free(text);
        return 0;
    }
    size_t k = 0;
    for (char *p = text, *line; (line = strsep(&p, "\n")) != NULL;)
        envp[k++] = line;
    envp[k] = NULL;

    instr_config_read_from(envp, secure);
    for (size_t i = 0; i < k; i++) {
        const char *eq = strchr(envp[i], '=');
        const char *value = eq ? eq + 1 : envp[i];
        uint64_t bytes;
        int b;
        if (instr_parse_size(value, &bytes) == 0 && bytes == 0 && strpbrk(value, "123456789"))
            abort(); /* a non-zero number read as zero: an overflow let through */
        instr_parse_bool(value, &b);
        instr_config_nearest(envp[i]);
        check_escaped(envp[i]);
    }
    for (int i = 0; i < instr_config_count(); i++)
        check_escaped(instr_config_value(i));
    free(envp);
    free(text);
    return 0;
}
