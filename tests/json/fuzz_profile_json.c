/* fuzz_profile_json.c — libFuzzer target for the readers of profile.json: instr-export's
 * (tools/instr-export/profile_read.c) and instr-score's (tools/instr-score/read_json.c), on
 * the JSON reader (tools/json). The input is the file's content. Each reader may refuse it,
 * with a message; neither may crash, read out of bounds or leak; what a reader accepts, its
 * queries walk (every node's call path, whose parents come before it). The readers' messages
 * go to stderr, which the test closes (-close_fd_mask=2: libFuzzer's and the sanitizers'
 * reports still come). */
#include "profile_read.h"
#include "score.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-profile-json.%d", (int)getpid());
        if (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0)
            abort();
        snprintf(file, sizeof file, "%s/profile.json", dir);
    }
    FILE *f = fopen(file, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    profile p;
    if (profile_read(&p, file) == 0) {
        size_t *path = malloc((p.tree->n + 1) * sizeof *path);
        for (size_t i = 0; path && i < p.tree->n; i++) {
            size_t n = profile_path(&p, i, path);
            if (n == 0 || n > p.tree->n || path[n - 1] != i)
                abort();
            (void)profile_node_name(&p, i);
        }
        free(path);
        profile_free(&p);
    }
    score_profile sp;
    char err[512];
    if (score_read_json(dir, &sp, err, sizeof err) == 0)
        score_free(&sp);
    return 0;
}
