/* plugin_load.c — see plugin_load.h. */
#include "plugin_load.h"
#include "config.h"
#include "log.h"
#include "../util/text.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int instr_plugin_name_ok(const char *var, const char *name)
{
    size_t len = strlen(name);
    int ok = len > 0 && len < 48;
    for (size_t i = 0; ok && i < len; i++)
        ok = isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-';
    if (!ok) {
        char q[INSTR_QUOTE_SIZE];
        instr_warn("%s: %s is not a plugin name (letters, digits, '_' and '-', at most 47): "
                   "left out",
                   var, instr_quote(q, name));
    }
    return ok;
}

void *instr_plugin_open(const char *var, const char *prefix, const char *name)
{
    char file[128], path[PATH_MAX];
    snprintf(file, sizeof file, "lib%s%s.so", prefix, name);
    const char *dirs = instr_env("INSTR_PLUGIN_PATH");
    for (const char *p = dirs; p && *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len && len + 1 + strlen(file) < sizeof path) {
            snprintf(path, sizeof path, "%.*s/%s", (int)len, p, file);
            if (access(path, F_OK) == 0) {
                void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
                if (!h)
                    instr_warn("%s=%s: %s cannot be loaded: %s; the run goes on without it",
                               var, name, path, dlerror());
                return h;
            }
        }
        p = e ? e + 1 : NULL;
    }
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        char q[INSTR_QUOTE_SIZE];
        instr_warn("%s=%s: %s was not found in INSTR_PLUGIN_PATH=%s nor in the library path "
                   "(%s); set INSTR_PLUGIN_PATH to the directory that holds it; the run goes "
                   "on without it",
                   var, name, file, instr_quote(q, dirs ? dirs : ""), dlerror());
    }
    return h;
}

void instr_plugin_var(char *out, size_t size, const char *infix, const char *name)
{
    int k = snprintf(out, size, "INSTR_%s", infix);
    for (size_t i = 0; name[i] && k >= 0 && (size_t)k + 1 < size; i++)
        out[k++] = name[i] == '-' ? '_' : (char)toupper((unsigned char)name[i]);
    if (k >= 0 && (size_t)k < size)
        out[k] = '\0';
}
