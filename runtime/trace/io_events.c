/* io_events.c — I/O recording (INSTR_IO) in the trace, as Score-P writes it (docs/io.md, "The
 * trace"): each recorded call is an Enter and a Leave of a region named after the function
 * (source "io", role FILE_IO), with OTF2's I/O events between them: IoCreateHandle for an
 * open that succeeded, IoDestroyHandle for a close, IoOperationBegin at the Enter's time and
 * IoOperationComplete at the Leave's for a read, a write or a flush (bytes requested and
 * transferred, matched by an id per location). The definitions: one IoParadigm per paradigm
 * (POSIX, ISOC, MPI-IO), one IoRegularFile per file and one IoHandle per file and paradigm
 * that a traced call used.
 *
 * The recorder appends compact records to the thread's own buffer: the call's values as
 * INSTR_TREC_ATTR records (attributes INSTR_TRACE_IO_ATTR0 and up, which the conversion hands
 * here through instr_trace_memory_attr), then the Enter and the Leave. The conversion writes
 * the I/O events with the Enter and Leave of an I/O region (instr_trace_io_emit, from its out
 * of line path for records with attributes).
 *
 * A non-blocking MPI-IO call (MPI_File_iread...) is an IoOperationBegin with the flag
 * NON_BLOCKING and an IoOperationIssued in its region; the wait or test that completes its
 * request writes IoOperationComplete (instr_trace_io_done, an MpiIsendComplete's way: the
 * thread's buffer converted first, then the record), a test that finds it incomplete
 * IoOperationTest. Matching ids are therefore handed out when the call is recorded.
 *
 * In an MPI job the refs are this rank's: instr_trace_io_blob gives its files and handles to
 * rank 0's unification (runtime/job/trace_unify.c), whose mapping table of I/O handles the
 * rank's local definitions carry; calls before MPI_Init are not in the trace. */
#include "trace.h"
#include "io_events.h"
#include "wire.h"
#include "../core/clock.h"
#include "../core/core.h"
#include "../core/registry.h"

static const instr_trace_io_files *io_files; /* NULL: I/O recording is off */

void instr_trace_io_enable(const instr_trace_io_files *files)
{
    __atomic_store_n(&io_files, files, __ATOMIC_RELEASE);
}

static instr_tloc *tloc(instr_location *loc)
{
    /* An MPI job before MPI_Init: its locations wait for the archive (not for I/O). */
    if (!loc || instr_state_get() != INSTR_STATE_RUNNING ||
        (instr_trace_job_pending && instr_trace_job_rank < 0))
        return NULL;
    int slot = instr_substrate_slot(&instr_trace_substrate);
    return slot < 0 ? NULL : loc->sub[slot];
}

int instr_trace_io_wanted(instr_location *loc) { return tloc(loc) != NULL; }

enum { A_HANDLE, A_OP, A_REQUESTED, A_BYTES };

/* A_OP's value: the op, failed, non-blocking, and the operation's matching id. */
#define OP_FAILED (1u << 8)
#define OP_NONBLOCKING (1u << 9)
#define OP_MATCH_SHIFT 16

uint64_t instr_trace_io_call(instr_location *loc, const instr_trace_iocall *c)
{
    instr_tloc *s = tloc(loc);
    if (!s || !c->region || c->region > INSTR_TREC_ARG_MASK)
        return 0;
    uint64_t match = c->op >= INSTR_TRACE_IO_READ ? ++s->io_match : 0;
    uint64_t op = c->op | (c->failed ? OP_FAILED : 0) |
                  (c->nonblocking && c->op >= INSTR_TRACE_IO_READ ? OP_NONBLOCKING : 0) |
                  match << OP_MATCH_SHIFT;
    const uint32_t attr = (uint32_t)INSTR_TREC_ATTR << INSTR_TREC_KIND_SHIFT;
    instr_record_put(s, attr | (INSTR_TRACE_IO_ATTR0 + A_HANDLE), c->handle);
    instr_record_put(s, attr | (INSTR_TRACE_IO_ATTR0 + A_OP), op);
    instr_record_put(s, attr | (INSTR_TRACE_IO_ATTR0 + A_REQUESTED), c->requested);
    instr_record_put(s, attr | (INSTR_TRACE_IO_ATTR0 + A_BYTES), c->bytes);
    instr_record_put(s, (uint32_t)INSTR_TREC_ENTER << INSTR_TREC_KIND_SHIFT | c->region,
                     c->t_begin);
    instr_record_put(s, (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | c->region,
                     c->t_end > c->t_begin ? c->t_end : c->t_begin);
    return match;
}

void instr_trace_io_done(uint32_t loc_id, uint32_t handle, uint64_t match, int how,
                         uint64_t bytes)
{
    instr_location *loc = instr_core_location_self();
    instr_tloc *s = tloc(loc);
    if (!s || !match || loc->id != loc_id)
        return; /* another thread's operation: its matching id means nothing here */
    /* The thread's records so far go first, so that this one lands inside the wait's or
     * test's region. */
    instr_trace_drain(s);
    if (instr_trace_write_failed() || !instr_trace_writer_ready(s))
        return;
    uint64_t t = instr_clock_now();
    if (t < s->last)
        t = s->last;
    s->last = t;
    OTF2_ErrorCode rc;
    if (how == 1)
        rc = OTF2_EvtWriter_IoOperationTest(s->writer, NULL, t, handle, match);
    else
        rc = OTF2_EvtWriter_IoOperationComplete(s->writer, NULL, t, handle, bytes, match);
    if (rc != OTF2_SUCCESS)
        s->refused++;
}

/* ---- conversion ---- */

void instr_trace_io_attr(instr_tloc *s, uint32_t attr, uint64_t value)
{
    uint32_t a = attr - INSTR_TRACE_IO_ATTR0;
    if (a > A_BYTES)
        return;
    s->ioval[a] = value;
    s->aset |= INSTR_TRACE_IO_PENDING; /* the next Enter/Leave takes the out of line path */
}

int instr_trace_io_emit(instr_tloc *s, unsigned kind, uint32_t region, uint64_t t)
{
    const instr_region_info *r = instr_registry_get(region);
    if (!r || r->source != INSTR_SOURCE_IO)
        return 0; /* not an I/O region (an instrumented signal handler's in between): later */
    OTF2_IoHandleRef h = (OTF2_IoHandleRef)s->ioval[A_HANDLE];
    uint64_t v = s->ioval[A_OP], match = v >> OP_MATCH_SHIFT;
    unsigned op = (unsigned)(v & 0xff), failed = (v & OP_FAILED) != 0;
    unsigned nonblocking = (v & OP_NONBLOCKING) != 0;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    if (kind == INSTR_TREC_ENTER) {
        rc = OTF2_EvtWriter_Enter(s->writer, NULL, t, region - 1);
        if (rc == OTF2_SUCCESS && op >= INSTR_TRACE_IO_READ) {
            OTF2_IoOperationMode mode = op == INSTR_TRACE_IO_READ    ? OTF2_IO_OPERATION_MODE_READ
                                        : op == INSTR_TRACE_IO_WRITE ? OTF2_IO_OPERATION_MODE_WRITE
                                                                     : OTF2_IO_OPERATION_MODE_FLUSH;
            rc = OTF2_EvtWriter_IoOperationBegin(
                s->writer, NULL, t, h, mode,
                nonblocking ? OTF2_IO_OPERATION_FLAG_NON_BLOCKING : OTF2_IO_OPERATION_FLAG_NONE,
                s->ioval[A_REQUESTED], match);
        }
    } else {
        if (op >= INSTR_TRACE_IO_READ && nonblocking && !failed)
            rc = OTF2_EvtWriter_IoOperationIssued(s->writer, NULL, t, h, match);
        else if (op >= INSTR_TRACE_IO_READ)
            rc = OTF2_EvtWriter_IoOperationComplete(
                s->writer, NULL, t, h, failed ? OTF2_UNDEFINED_UINT64 : s->ioval[A_BYTES],
                match);
        else if (op == INSTR_TRACE_IO_CREATE && !failed)
            rc = OTF2_EvtWriter_IoCreateHandle(s->writer, NULL, t, h,
                                               OTF2_IO_ACCESS_MODE_READ_WRITE,
                                               OTF2_IO_CREATION_FLAG_NONE, OTF2_IO_STATUS_FLAG_NONE);
        else if (op == INSTR_TRACE_IO_DESTROY && !failed)
            rc = OTF2_EvtWriter_IoDestroyHandle(s->writer, NULL, t, h);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_Leave(s->writer, NULL, t, region - 1);
        s->aset &= ~INSTR_TRACE_IO_PENDING;
    }
    if (rc != OTF2_SUCCESS)
        return -1;
    return 1;
}

/* ---- definitions ---- */

OTF2_ErrorCode instr_trace_io_paradigm_defs(OTF2_GlobalDefWriter *w, instr_strtab *st)
{
    static const struct {
        const char *id, *name;
        OTF2_IoParadigmClass cls;
        OTF2_IoParadigmFlag flags;
    } par[3] = {
        {"POSIX", "POSIX I/O", OTF2_IO_PARADIGM_CLASS_SERIAL, OTF2_IO_PARADIGM_FLAG_OS},
        {"ISOC", "ISO C I/O", OTF2_IO_PARADIGM_CLASS_SERIAL, OTF2_IO_PARADIGM_FLAG_NONE},
        {"MPI-IO", "MPI I/O", OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_NONE},
    };
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (uint32_t p = 0; p < 3 && rc == OTF2_SUCCESS; p++)
        rc = OTF2_GlobalDefWriter_WriteIoParadigm(w, p, instr_strtab_ref(st, par[p].id),
                                                  instr_strtab_ref(st, par[p].name), par[p].cls,
                                                  par[p].flags, 0, NULL, NULL, NULL);
    return rc;
}

OTF2_ErrorCode instr_trace_io_defs(OTF2_GlobalDefWriter *w, instr_strtab *st)
{
    const instr_trace_io_files *f = __atomic_load_n(&io_files, __ATOMIC_ACQUIRE);
    if (!f || instr_trace_job_rank >= 0)
        return OTF2_SUCCESS;
    OTF2_ErrorCode rc = instr_trace_io_paradigm_defs(w, st);
    /* Scope: the node the process runs on (defs.c's system tree node 1). */
    uint32_t n = f->nfiles();
    for (uint32_t i = 0; i < n && rc == OTF2_SUCCESS; i++)
        rc = OTF2_GlobalDefWriter_WriteIoRegularFile(w, i, instr_strtab_ref(st, f->file_name(i)),
                                                     1);
    n = f->nhandles();
    for (uint32_t i = 0; i < n && rc == OTF2_SUCCESS; i++) {
        uint32_t file, p;
        f->handle(i, &file, &p);
        rc = OTF2_GlobalDefWriter_WriteIoHandle(w, i, instr_strtab_ref(st, f->file_name(file)),
                                                file, p, OTF2_IO_HANDLE_FLAG_NONE,
                                                OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE);
    }
    return rc;
}

void instr_trace_io_blob(wbuf *b)
{
    const instr_trace_io_files *f = __atomic_load_n(&io_files, __ATOMIC_ACQUIRE);
    uint32_t n = f ? f->nfiles() : 0;
    put32(b, n);
    for (uint32_t i = 0; i < n; i++)
        putstr(b, f->file_name(i));
    n = f ? f->nhandles() : 0;
    put32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t file, p;
        f->handle(i, &file, &p);
        put32(b, file);
        put32(b, p);
    }
}
