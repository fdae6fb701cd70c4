/* libinstr_substrate_mpiprobe.so — a test double of interface version 4: writes, at the end,
 * mpiprobe.txt into the experiment directory with what it was given, in order:
 *   def comm <id> <name> group=<g> size=<n> rank=<r> leader=<l> seq=<s>[ remote=<group>]
 *            (remote: an inter-communicator's remote group, mpi_comm_remote_group)
 *   def group <id> <world ranks, comma-separated>
 *   def window <id> <name> comm=<c>
 *   icoll_begin|icoll_end <op> <comm> <root> <sent> <received> <request>
 *   pinit <send|recv> <partner> <comm> <tag> <bytes> <request>
 *   pstart|pfree <request>
 *   pcomplete <partner> <comm> <tag> <bytes> <request>
 *   coll_end <op> <comm>[ root=<r>][ sent=<s> recvd=<d>]   (a blocking collective: its
 *            communicator by definition; root when it has one, sizes when it has a root or
 *            moved bytes; op 17 and 18: a communicator made or freed, version 4)
 *   send|recv <partner> <comm> <tag> <bytes>   (blocking point-to-point)
 *   isend|irecv <partner> <comm> <tag> <bytes> <request>   (non-blocking: at the post, at the
 *            completion)
 * (the first 256 lines), and a line "bad_defs <n>" counting definitions announced whose
 * callback did not answer, or announced twice. */
#define _GNU_SOURCE
#include <instr/instr_substrate_plugin.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const instr_substrate_callbacks *cb;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char lines[256][160];
static unsigned nlines, bad_defs;
static unsigned char seen[3][256];

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
    pthread_mutex_lock(&lock);
    if (nlines < 256) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(lines[nlines++], sizeof lines[0], fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&lock);
}

static int32_t initialize(const instr_substrate_init *init)
{
    cb = init->cb;
    return cb->size >= sizeof *cb ? 0 : -1;
}

static void new_definition(uint32_t kind, uint32_t id)
{
    int k = kind == INSTR_SUBSTRATE_DEF_MPI_COMM    ? 0
            : kind == INSTR_SUBSTRATE_DEF_MPI_GROUP ? 1
            : kind == INSTR_SUBSTRATE_DEF_MPI_WINDOW ? 2
                                                    : -1;
    if (k < 0)
        return;
    if (id < 256 && seen[k][id]++)
        bad_defs++;
    if (k == 0) {
        instr_substrate_mpi_comm_def d;
        if (cb->mpi_comm_def(id, &d) != 0) {
            bad_defs++;
            return;
        }
        uint32_t remote = UINT32_MAX;
        char r[32] = "";
        if (cb->mpi_comm_remote_group(id, &remote) == 0)
            snprintf(r, sizeof r, " remote=%u", remote);
        put("def comm %u %s group=%u size=%u rank=%d leader=%d seq=%u%s", id, d.name, d.group,
            d.size, (int)d.rank, (int)d.leader, d.seq, r);
    } else if (k == 1) {
        instr_substrate_mpi_group_def g;
        if (cb->mpi_group_def(id, &g) != 0) {
            bad_defs++;
            return;
        }
        char r[128] = "";
        for (uint32_t i = 0; i < g.size; i++)
            snprintf(r + strlen(r), sizeof r - strlen(r), "%s%d", i ? "," : "",
                     (int)g.world_ranks[i]);
        put("def group %u %s", id, r);
    } else {
        instr_substrate_mpi_window_def w;
        if (cb->mpi_window_def(id, &w) != 0) {
            bad_defs++;
            return;
        }
        put("def window %u %s comm=%u", id, w.name, w.comm);
    }
}

static void icoll(const char *what, uint32_t op, uint64_t comm, int32_t root, uint64_t sent,
                  uint64_t recvd, uint64_t req)
{
    put("%s %u %llu %d %llu %llu %llu", what, op, (unsigned long long)comm, (int)root,
        (unsigned long long)sent, (unsigned long long)recvd, (unsigned long long)req);
}

static void on_icoll_begin(instr_substrate_location *loc, uint64_t t, uint32_t op,
                           uint64_t comm, int32_t root, uint64_t sent, uint64_t recvd,
                           uint64_t req)
{
    (void)loc, (void)t;
    icoll("icoll_begin", op, comm, root, sent, recvd, req);
}

static void on_icoll_end(instr_substrate_location *loc, uint64_t t, uint32_t op, uint64_t comm,
                         int32_t root, uint64_t sent, uint64_t recvd, uint64_t req)
{
    (void)loc, (void)t;
    icoll("icoll_end", op, comm, root, sent, recvd, req);
}

static void on_pinit(instr_substrate_location *loc, uint64_t t, uint32_t kind, int32_t partner,
                     uint64_t comm, int32_t tag, uint64_t bytes, uint64_t req)
{
    (void)loc, (void)t;
    put("pinit %s %d %llu %d %llu %llu", kind == INSTR_SUBSTRATE_PERSISTENT_SEND ? "send" : "recv",
        (int)partner, (unsigned long long)comm, (int)tag, (unsigned long long)bytes,
        (unsigned long long)req);
}

static void on_pstart(instr_substrate_location *loc, uint64_t t, uint64_t req)
{
    (void)loc, (void)t;
    put("pstart %llu", (unsigned long long)req);
}

static void on_pfree(instr_substrate_location *loc, uint64_t t, uint64_t req)
{
    (void)loc, (void)t;
    put("pfree %llu", (unsigned long long)req);
}

static void on_pcomplete(instr_substrate_location *loc, uint64_t t, int32_t partner,
                         uint64_t comm, int32_t tag, uint64_t bytes, uint64_t req)
{
    (void)loc, (void)t;
    put("pcomplete %d %llu %d %llu %llu", (int)partner, (unsigned long long)comm, (int)tag,
        (unsigned long long)bytes, (unsigned long long)req);
}

static void on_coll_end(instr_substrate_location *loc, uint64_t t, uint32_t op, uint64_t comm,
                        int32_t root, uint64_t sent, uint64_t recvd)
{
    (void)loc, (void)t;
    char r[24] = "", sz[64] = "";
    if (root != INSTR_SUBSTRATE_ROOT_NONE)
        snprintf(r, sizeof r, " root=%d", (int)root);
    if (root != INSTR_SUBSTRATE_ROOT_NONE || sent || recvd)
        snprintf(sz, sizeof sz, " sent=%llu recvd=%llu", (unsigned long long)sent,
                 (unsigned long long)recvd);
    put("coll_end %u %llu%s%s", op, (unsigned long long)comm, r, sz);
}

static void msg(const char *what, int32_t partner, uint64_t comm, int32_t tag, uint64_t bytes)
{
    put("%s %d %llu %d %llu", what, (int)partner, (unsigned long long)comm, (int)tag,
        (unsigned long long)bytes);
}

static void on_send(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                    int32_t tag, uint64_t bytes)
{
    (void)loc, (void)t;
    msg("send", partner, comm, tag, bytes);
}

static void on_recv(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                    int32_t tag, uint64_t bytes)
{
    (void)loc, (void)t;
    msg("recv", partner, comm, tag, bytes);
}

static void req_msg(const char *what, int32_t partner, uint64_t comm, int32_t tag,
                    uint64_t bytes, uint64_t req)
{
    put("%s %d %llu %d %llu %llu", what, (int)partner, (unsigned long long)comm, (int)tag,
        (unsigned long long)bytes, (unsigned long long)req);
}

static void on_isend(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                     int32_t tag, uint64_t bytes, uint64_t req)
{
    (void)loc, (void)t;
    req_msg("isend", partner, comm, tag, bytes, req);
}

static void on_irecv(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                     int32_t tag, uint64_t bytes, uint64_t req)
{
    (void)loc, (void)t;
    req_msg("irecv", partner, comm, tag, bytes, req);
}

static int32_t write_data(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/mpiprobe.txt", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f)
        return -1;
    for (unsigned i = 0; i < nlines; i++)
        fprintf(f, "%s\n", lines[i]);
    fprintf(f, "bad_defs %u\n", bad_defs);
    return fclose(f) == 0 ? 0 : -1;
}

INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static const instr_substrate_plugin_info info = {
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
        .initialize = initialize,
        .new_definition = new_definition,
        .write_data = write_data,
        .events = {.mpi_collective_end = on_coll_end, .mpi_send = on_send, .mpi_recv = on_recv,
                   .mpi_isend = on_isend, .mpi_irecv = on_irecv},
        .mpi = {.mpi_icollective_begin = on_icoll_begin, .mpi_icollective_end = on_icoll_end,
                .mpi_persistent_init = on_pinit, .mpi_persistent_start = on_pstart,
                .mpi_persistent_complete = on_pcomplete, .mpi_persistent_free = on_pfree},
    };
    return &info;
}
