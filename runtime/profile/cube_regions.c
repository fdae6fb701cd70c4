/* cube_regions.c — a region's attributes in profile.cubex as Score-P's CUBE4 writer gives them
 * (docs/profile-format.md, "profile.cubex"), so that the tools that classify call paths by
 * them (Cube's Score-P remapping, scorep.spec, as Scalasca and the Cube GUI's derived
 * metrics use it) see instr's profile as Score-P's:
 * - mod: the region's source file; for the regions of a library, the name Score-P's adapter
 *   gives their source file: "MPI" (MPI calls, MPI-IO included), "MEMORY" (the malloc
 *   family), "KOKKOS", and for I/O recording's functions "POSIX I/O" and "ISO C I/O";
 * - paradigm: Score-P's paradigm names (mpi, openmp, user, compiler, sampling, memory, io,
 *   kokkos, openacc);
 * - role: Score-P's region type names (function, user, point2point, barrier, one2all, ...). */
#include "cube.h"

#include <string.h>

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* MPI calls: the region type Score-P's MPI adapter gives the call of that name. */
static const char *mpi_role(const char *name)
{
    static const struct { const char *prefix, *role; } roles[] = {
        {"MPI_Barrier", "barrier"},       {"MPI_Ibarrier", "barrier"},
        {"MPI_Bcast", "one2all"},         {"MPI_Ibcast", "one2all"},
        {"MPI_Scatter", "one2all"},       {"MPI_Iscatter", "one2all"},
        {"MPI_Gather", "all2one"},        {"MPI_Igather", "all2one"},
        {"MPI_Reduce_scatter", "all2all"}, {"MPI_Ireduce_scatter", "all2all"},
        {"MPI_Reduce", "all2one"},        {"MPI_Ireduce", "all2one"},
        {"MPI_Allgather", "all2all"},     {"MPI_Iallgather", "all2all"},
        {"MPI_Allreduce", "all2all"},     {"MPI_Iallreduce", "all2all"},
        {"MPI_Alltoall", "all2all"},      {"MPI_Ialltoall", "all2all"},
        {"MPI_Scan", "other collective"}, {"MPI_Iscan", "other collective"},
        {"MPI_Exscan", "other collective"}, {"MPI_Iexscan", "other collective"},
        {"MPI_Neighbor_", "other collective"}, {"MPI_Ineighbor_", "other collective"},
        {"MPI_Win_", "rma"},              {"MPI_Put", "rma"},
        {"MPI_Get", "rma"},               {"MPI_Accumulate", "rma"},
    };
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
        if (starts(name, roles[i].prefix))
            return strcmp(roles[i].prefix, "MPI_Get") == 0 && starts(name, "MPI_Get_")
                       ? "function" /* MPI_Get_count, MPI_Get_processor_name, ... */
                       : roles[i].role;
    if (strlen(name) > 4 && !starts(name, "MPI_File") && !starts(name, "MPI_Type") &&
        !strstr(name, "_init")) {
        static const char *const p2p[] = {"send", "recv", "Send", "Recv", "probe",
                                          "Probe", "Start"};
        for (size_t i = 0; i < sizeof p2p / sizeof *p2p; i++)
            if (strstr(name + 4, p2p[i]))
                return "point2point";
    }
    return "function";
}

/* I/O recording's functions (runtime/interpose/io.c): reads and writes move data, the others
 * (open, close, seek, flush, dup, unlink) are metadata. */
static const char *io_role(const char *name)
{
    static const char *const data[] = {"read", "write", "put", "get", "printf"};
    for (size_t i = 0; i < sizeof data / sizeof *data; i++)
        if (strstr(name, data[i]))
            return "file_io";
    return "file_io metadata";
}

/* ISO C's functions among I/O recording's (the others are POSIX's). */
static int is_iso_c_io(const char *name)
{
    static const char *const fns[] = {
        "fopen", "fopen64", "fdopen", "fclose", "fread", "fwrite", "fputs", "puts",
        "fputc", "putc", "fgets", "fgetc", "getc", "fprintf", "vfprintf", "printf",
        "fflush", "fseek", "fseeko", "fseeko64", "__fprintf_chk", "__vfprintf_chk",
        "__printf_chk", "__fgets_chk", "__fread_chk"};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        if (strcmp(name, fns[i]) == 0)
            return 1;
    return 0;
}

static const char *memory_role(const char *name)
{
    if (strcmp(name, "free") == 0 || strstr(name, "delete"))
        return "deallocate";
    if (starts(name, "realloc"))
        return "reallocate";
    return "allocate";
}

/* Kokkos's regions by the kind their mangled name starts with (runtime/kokkos/regions.c), as
 * the trace's roles (runtime/trace/defs.c). */
static const char *kokkos_role(const char *mangled)
{
    if (starts(mangled, "Kokkos::parallel_"))
        return "loop";
    if (starts(mangled, "Kokkos::fence "))
        return "barrier";
    if (starts(mangled, "Kokkos::deep_copy "))
        return "data transfer";
    return "code";
}

/* OpenACC's constructs by name (runtime/openacc/regions.c), as the trace's roles. */
static const char *openacc_role(const char *name)
{
    static const struct { const char *prefix, *role; } roles[] = {
        {"!$acc parallel", "parallel"},        {"!$acc kernels", "parallel"},
        {"!$acc serial", "parallel"},          {"!$acc enter data", "data transfer"},
        {"!$acc exit data", "data transfer"},  {"!$acc update", "data transfer"},
        {"!$acc enqueue upload", "data transfer"},
        {"!$acc enqueue download", "data transfer"},
        {"!$acc wait", "barrier"},
    };
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
        if (starts(name, roles[i].prefix))
            return roles[i].role;
    return "code";
}

/* Score-P's region roles for the OpenMP adapter's regions, from the construct's name
 * ("!$omp for @f.c:28", runtime/ompt/names.c); the first prefix that matches decides.
 * Waiting parts ("(wait)") have their construct's role. Score-P has no role for taskgroup,
 * teams, the initial task, reduction and scope: those are "artificial". */
static const char *openmp_role(const char *name)
{
    static const struct { const char *prefix, *role; } roles[] = {
        {"!$omp parallel", "parallel"},
        {"!$omp implicit task", "task"},
        {"!$omp implicit barrier", "implicit barrier"},
        {"!$omp barrier (runtime)", "implicit barrier"},
        {"!$omp barrier", "barrier"},
        {"!$omp for", "loop"},
        {"!$omp loop", "loop"},
        {"!$omp taskloop", "loop"},
        {"!$omp distribute", "loop"},
        {"!$omp sections", "sections"},
        {"!$omp section", "section"},
        {"!$omp workshare", "workshare"},
        {"!$omp single", "single"},
        {"!$omp master", "master"},
        {"!$omp masked", "master"},
        {"!$omp critical", "critical"},
        {"!$omp atomic", "atomic"},
        {"!$omp ordered", "ordered"},
        {"!$omp taskwait", "taskwait"},
        {"!$omp task (create)", "task create"},
        {"!$omp taskgroup", "artificial"},
        {"!$omp task", "task"},
        {"omp_", "wrapper"}, /* the lock routines */
    };
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
        if (starts(name, roles[i].prefix))
            return roles[i].role;
    return "artificial";
}

void instr_cube_region_attrs(const instr_cube_region *r, instr_cube_attrs *out)
{
    const char *source = r->source ? r->source : "";
    const char *name = r->name ? r->name : "";
    const char *mangled = r->mangled ? r->mangled : "";
    out->mod = r->file ? r->file : "";
    out->paradigm = "compiler";
    out->role = "function";
    if (strcmp(source, "mpi") == 0 || (strcmp(source, "io") == 0 && starts(name, "MPI_File"))) {
        /* MPI-IO's calls are MPI's (Score-P's MPI adapter defines them). */
        out->mod = "MPI";
        out->paradigm = "mpi";
        out->role = strcmp(source, "io") == 0 ? io_role(name) : mpi_role(name);
    } else if (strcmp(source, "io") == 0) {
        out->mod = is_iso_c_io(name) ? "ISO C I/O" : "POSIX I/O";
        out->paradigm = "io";
        out->role = io_role(name);
    } else if (strcmp(source, "memory") == 0) {
        out->mod = "MEMORY";
        out->paradigm = "memory";
        out->role = memory_role(name);
    } else if (strcmp(source, "openmp") == 0) {
        out->paradigm = "openmp";
        out->role = openmp_role(name);
    } else if (strcmp(source, "kokkos") == 0) {
        out->mod = "KOKKOS";
        out->paradigm = "kokkos";
        out->role = kokkos_role(mangled);
    } else if (strcmp(source, "openacc") == 0) {
        out->paradigm = "openacc";
        out->role = openacc_role(name);
    } else if (strcmp(source, "manual") == 0) {
        out->paradigm = "user";
        out->role = "user";
    } else if (strcmp(source, "sampled") == 0) {
        out->paradigm = "sampling";
    }
}
