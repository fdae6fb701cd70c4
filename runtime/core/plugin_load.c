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

/* The dlopen handle of libinstr_<kind>_<name>.so, or NULL after a line. */
static void *open_plugin(const char *var, const char *kind, const char *name)
{
    char file[128], path[PATH_MAX];
    snprintf(file, sizeof file, "libinstr_%s_%s.so", kind, name);
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

const void *instr_plugin_load(const char *var, const char *kind, const char *name,
                              const char *entry, uint32_t vmin, uint32_t vmax, uint32_t *version)
{
    void *h = open_plugin(var, kind, name);
    if (!h)
        return NULL;
    char upper[16];
    size_t i = 0;
    for (; kind[i] && i + 1 < sizeof upper; i++)
        upper[i] = (char)toupper((unsigned char)kind[i]);
    upper[i] = '\0';
    const void *(*fn)(void);
    *(void **)&fn = dlsym(h, entry);
    if (!fn) {
        instr_warn("%s=%s: libinstr_%s_%s.so has no entry point %s() "
                   "(INSTR_%s_PLUGIN_ENTRY in instr_%s_plugin.h); left out",
                   var, name, kind, name, entry, upper, kind);
        return NULL;
    }
    const void *given = fn();
    if (!given) {
        instr_warn("%s=%s: the plugin's entry point returned no description; left out", var,
                   name);
        return NULL;
    }
    memcpy(version, given, sizeof *version); /* the description's first member */
    if (*version < vmin || *version > vmax) {
        instr_warn("%s=%s: the plugin was built for %s plugin interface version %u, this "
                   "runtime reads versions %u to %u; rebuild it against this "
                   "instr_%s_plugin.h; left out",
                   var, name, kind, *version, vmin, vmax, kind);
        return NULL;
    }
    return given;
}
