/* write.c — critical-path.json (schema in docs/critical-path.md) and the summary on stderr,
 * written by rank 0 at the end of an MPI job from the path every rank agreed on in
 * MPI_Finalize and every rank's own totals, or at the end of a program that is no MPI job
 * from its main thread's path. */
#include "critpath.h"
#include "critpath_thread.h"
#include "../metrics/metrics.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/signals.h"
#include "../util/json_str.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct named {
    const instr_cp_entry *e;
    uint64_t ns;       /* the entry's, or a region's total over its ranks */
    char *name, *file; /* pointers into a copy of the names text; "" when unknown */
} named;

static int by_time(const void *a, const void *b)
{
    const named *x = a, *y = b;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* The name and file of key in names ("<key hex> <name>\t<file>\n" lines, split in place
 * beforehand by split_lines: every line ends in a NUL, the tab is a NUL too). */
static void lookup(char *names, size_t len, uint64_t key, named *out)
{
    out->name = "";
    out->file = "";
    char want[20];
    snprintf(want, sizeof want, "%016llx ", (unsigned long long)key);
    for (char *p = names; p < names + len; p += strlen(p) + 1) {
        char *file = p + strlen(p) + 1; /* after the tab's NUL */
        if (strlen(p) > 17 && memcmp(p, want, 17) == 0) {
            out->name = p + 17;
            out->file = file < names + len ? file : "";
            return;
        }
        if (file < names + len)
            p = file;
    }
}

/* Every line "<key> <name>\t<file>\n" becomes "<key> <name>\0<file>\0". */
static void split_lines(char *names, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (names[i] == '\n' || names[i] == '\t')
            names[i] = '\0';
}

static double sec(uint64_t ns) { return (double)ns / 1e9; }
static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

/* The index among the path's metrics of the first whose name is one of `names`, or -1. */
static int path_metric(const char *const *names)
{
    for (uint32_t m = 0; m < instr_cp_nmetrics; m++)
        for (const char *const *n = names; *n; n++)
            if (strcmp(instr_metrics_sync[instr_cp_metric_index[m]].name, *n) == 0)
                return (int)m;
    return -1;
}

/* Instructions per cycle along the path, when both counters are dependent metrics (perf's or
 * PAPI's names); 0 when not. */
static int path_ipc(const instr_cp_record *path, double *ipc)
{
    static const char *const ins[] = {"instructions", "PAPI_TOT_INS", NULL};
    static const char *const cyc[] = {"cycles", "cpu-cycles", "PAPI_TOT_CYC", NULL};
    int i = path_metric(ins), c = path_metric(cyc);
    if (i < 0 || c < 0 || path->metric[c] == 0)
        return 0;
    *ipc = (double)path->metric[i] / (double)path->metric[c];
    return 1;
}

int instr_cp_write_json(int mpi_job, int nranks, const instr_cp_process *procs,
                        const instr_cp_record *path, const char *names, size_t names_len,
                        int regions_k)
{
    uint32_t n = path->n > INSTR_CP_MAX_REGIONS ? INSTR_CP_MAX_REGIONS : path->n;
    char *text = instr_mem_alloc(names_len + 1);
    named *rows = instr_mem_calloc(n ? n : 1, sizeof *rows);
    named *totals = instr_mem_calloc(n ? n : 1, sizeof *totals);
    uint32_t ntotals = 0;
    if (!text || !rows || !totals) {
        instr_mem_free(text);
        instr_mem_free(rows);
        instr_mem_free(totals);
        instr_warn("critical path: out of memory: critical-path.json is not written");
        return -1;
    }
    if (names_len)
        memcpy(text, names, names_len);
    text[names_len] = '\0';
    split_lines(text, names_len);
    for (uint32_t i = 0; i < n; i++) {
        rows[i].e = &path->e[i];
        rows[i].ns = path->e[i].ns;
        lookup(text, names_len, path->e[i].key, &rows[i]);
        uint32_t t = 0;
        while (t < ntotals && totals[t].e->key != path->e[i].key)
            t++;
        if (t == ntotals)
            totals[ntotals++] = rows[i];
        else
            totals[t].ns += rows[i].ns;
    }
    instr_sort(rows, n, sizeof *rows, by_time);
    instr_sort(totals, ntotals, sizeof *totals, by_time);

    /* POP metrics as OTF-CPT defines them from the critical path: runtime T is the path of
     * computation plus MPI; the ideal runtime (an infinitely fast network) the path of useful
     * computation. */
    double sum = 0, max = 0;
    for (int r = 0; r < nranks; r++) {
        double u = sec(procs[r].useful_ns);
        sum += u;
        if (u > max)
            max = u;
    }
    double avg = nranks ? sum / nranks : 0, T = sec(path->total_ns), cpu = sec(path->useful_ns);
    double lb = ratio(avg, max), ser = ratio(max, cpu), transfer = ratio(cpu, T);
    double comm = ratio(max, T), pe = ratio(avg, T);

    instr_io_guard g;
    instr_io_guard_begin(&g);
    instr_outfile o;
    int rc = mpi_job ? instr_out_open_job(&o, "critical-path.json")
                     : instr_out_open(&o, "critical-path.json");
    if (rc == 0) {
        instr_writer *f = o.f;
        instr_wr_printf(f, "{\n  \"format\": \"instr-critical-path\",\n  \"version\": 1,\n");
        instr_wr_printf(f, "  \"ranks\": %d,\n  \"regions_k\": %d,\n", nranks, regions_k);
        instr_wr_printf(f, "  \"application\": {\"useful_s\": %.9f, \"omp_s\": %.9f, \"total_s\": %.9f},\n",
                cpu, sec(path->omp_ns), T);
        /* The dependent metrics along the useful path (INSTR_CRITICAL_PATH_METRICS). */
        instr_wr_printf(f, "  \"metrics\": [");
        for (uint32_t m = 0; m < instr_cp_nmetrics; m++) {
            const instr_metric *mt = &instr_metrics_sync[instr_cp_metric_index[m]];
            instr_wr_printf(f, "%s\n    {\"name\": ", m ? "," : "");
            instr_wr_json_str(f, mt->name);
            instr_wr_printf(f, ", \"unit\": ");
            instr_wr_json_str(f, mt->unit ? mt->unit : "");
            instr_wr_printf(f, ", \"source\": ");
            instr_wr_json_str(f, mt->source ? mt->source : "");
            instr_wr_printf(f, ", \"value\": ");
            instr_metric_fprint(f, mt->value_type, path->metric[m], 0);
            instr_wr_printf(f, "}");
        }
        instr_wr_printf(f, "%s],\n", instr_cp_nmetrics ? "\n  " : "");
        double ipc;
        if (path_ipc(path, &ipc))
            instr_wr_printf(f, "  \"derived\": [{\"name\": \"ipc\", \"value\": %.6f}],\n", ipc);
        instr_wr_printf(f, "  \"processes\": [");
        for (int r = 0; r < nranks; r++)
            instr_wr_printf(f, "%s\n    {\"rank\": %d, \"useful_s\": %.9f, \"mpi_s\": %.9f, "
                       "\"total_s\": %.9f, \"syncs\": %llu}",
                    r ? "," : "", r, sec(procs[r].useful_ns), sec(procs[r].mpi_ns),
                    sec(procs[r].total_ns), (unsigned long long)procs[r].syncs);
        instr_wr_printf(f, "\n  ],\n");
        instr_wr_printf(f, "  \"pop\": {\"parallel_efficiency\": %.6f, \"load_balance\": %.6f, "
                   "\"communication_efficiency\": %.6f, \"serialisation_efficiency\": %.6f, "
                   "\"transfer_efficiency\": %.6f},\n",
                pe, lb, comm, ser, transfer);
        instr_wr_printf(f, "  \"regions\": [");
        for (uint32_t i = 0; i < n; i++) {
            instr_wr_printf(f, "%s\n    {\"name\": ", i ? "," : "");
            instr_wr_json_str(f, rows[i].name);
            instr_wr_printf(f, ", \"file\": ");
            instr_wr_json_str(f, rows[i].file);
            instr_wr_printf(f, ", \"rank\": %d, \"time_s\": %.9f, \"fraction\": %.6f}",
                    rows[i].e->rank, sec(rows[i].ns), ratio(sec(rows[i].ns), cpu));
        }
        instr_wr_printf(f, "\n  ],\n  \"region_totals\": [");
        for (uint32_t i = 0; i < ntotals; i++) {
            instr_wr_printf(f, "%s\n    {\"name\": ", i ? "," : "");
            instr_wr_json_str(f, totals[i].name);
            instr_wr_printf(f, ", \"file\": ");
            instr_wr_json_str(f, totals[i].file);
            instr_wr_printf(f, ", \"time_s\": %.9f, \"fraction\": %.6f}", sec(totals[i].ns),
                    ratio(sec(totals[i].ns), cpu));
        }
        instr_wr_printf(f, "\n  ],\n  \"other_s\": %.9f,\n  \"outside_regions_s\": %.9f\n}\n",
                sec(path->other_ns), sec(path->outside_ns));
        rc = instr_out_close(&o);
    }
    if (rc != 0) {
        instr_experiment_report_failures();
        instr_warn("critical path: critical-path.json is not written");
    }
    instr_io_guard_end(&g);

    if (instr_verbose >= 0) {
        char over[32] = "of this process";
        if (mpi_job)
            snprintf(over, sizeof over, "over %d rank%s", nranks, nranks == 1 ? "" : "s");
        instr_warn("critical path %s: %.6f s useful computation, %.6f s with OpenMP "
                   "synchronisation, %.6f s with OpenMP and MPI; "
                   "load balance %.3f x communication efficiency %.3f (serialisation %.3f x "
                   "transfer %.3f) = parallel efficiency %.3f%s",
                   over, cpu, sec(path->omp_ns), T, lb, comm, ser, transfer, pe,
                   rc == 0 ? "; regions in critical-path.json" : "");
        for (uint32_t m = 0; m < instr_cp_nmetrics; m++) {
            const instr_metric *mt = &instr_metrics_sync[instr_cp_metric_index[m]];
            char v[64] = "?";
            instr_writer mf;
            if (instr_writer_open_mem(&mf) == 0) {
                instr_metric_fprint(&mf, mt->value_type, path->metric[m], 0);
                char *text = instr_writer_take(&mf, NULL);
                if (text)
                    snprintf(v, sizeof v, "%s", text);
                instr_mem_free(text);
            }
            instr_warn("  on the path: %s = %s %s", mt->name, v, mt->unit ? mt->unit : "");
        }
        double ipc;
        if (path_ipc(path, &ipc))
            instr_warn("  on the path: IPC = %.3f (instructions / cycles)", ipc);
        for (uint32_t i = 0; i < n && i < 5; i++)
            instr_warn("  %5.1f%% of the path: %s on rank %d",
                       100.0 * ratio(sec(rows[i].ns), cpu),
                       rows[i].name[0] ? rows[i].name : "?", rows[i].e->rank);
    }
    instr_mem_free(text);
    instr_mem_free(rows);
    instr_mem_free(totals);
    return rc;
}
