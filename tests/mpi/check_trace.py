"""check_trace.py — checks of an MPI job's OTF2 archive (docs/mpi.md, "Trace"), used by
check_mpi.py --trace. Reads the archive with otf2-print (tests/lib/otf2check.py for the
definitions, nesting, timestamps and event counts; the MPI records are parsed here).

check(exp, np_, visits, p2p_messages) fails (returns a list of problems) unless:
  - the archive reads completely with `otf2-print -A -Werror`; per location Enter/Leave are
    balanced and nested, timestamps monotone and inside the clock range, event counts match;
  - there is one location group per rank ("MPI Rank r"), and the Enter records per region
    equal the expected visits exactly (so the unified region definitions and each rank's
    mapping table are right);
  - every MpiSend/MpiIsend has its MpiRecv/MpiIrecv with the same sender, receiver,
    communicator, tag and length, and there are exactly p2p_messages of them; every Isend
    request completes once, every Irecv request is received once, on the same location;
  - blocking collectives: Begin/End alternate per location; per communicator every member
    location has the same sequence of (operation, root), as many members as the
    communicator's group; per instance the bytes sent equal the bytes received; the number
    of ends per operation equals the visits of its MPI region (CREATE_HANDLE: of the calls
    that make communicators and RMA windows, DESTROY_HANDLE: of MPI_Comm_free,
    MPI_Comm_disconnect and MPI_Win_free); nonblocking collectives:
    one request and one completion each, as many as their regions' visits (MPI_Comm_idup's
    as CREATE_HANDLE);
  - every location has two clock offsets (MPI_Init and the end), rank 0's are zero.
Python 3 standard library only.
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import otf2check as T  # noqa: E402

OPS = ("BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER",
       "ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE",
       "REDUCE_SCATTER", "SCAN", "EXSCAN", "REDUCE_SCATTER_BLOCK")
# The calls that make communicators (blocking; MPI_Comm_idup is a nonblocking one).
CREATES = ("MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type",
           "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Cart_create", "MPI_Cart_sub",
           "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent",
           "MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Comm_accept", "MPI_Comm_connect",
           "MPI_Comm_join", "MPI_Comm_spawn", "MPI_Comm_spawn_multiple", "MPI_Win_create",
           "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_create_dynamic")
# The calls that free them (DESTROY_HANDLE).
DESTROYS = ("MPI_Comm_free", "MPI_Comm_disconnect", "MPI_Win_free")
_REC = re.compile(r"^(MPI_\w+|NON_BLOCKING_COLLECTIVE_\w+)\s+(\d+)\s+(\d+)\s*(.*)$")
_FIELD = re.compile(r'(\w+): (?:(\d+) \("[^"]*" <(\d+)>\)|"[^"]*" <(\d+)>|(\w+))')
_GROUP = re.compile(r"^GROUP\s+(\d+)\s+Name: .*?, Type: (\w+), .*?, (\d+) Members")
_COMM = re.compile(r'^COMM\s+(\d+)\s+Name: "([^"]*)" <\d+>, Group: "[^"]*" <(\d+)>')
_LGROUP = re.compile(r'^LOCATION_GROUP\s+(\d+)\s+Name: "([^"]*)" <\d+>')
_OFFSET = re.compile(r"^CLOCK_OFFSET\s+(\d+)\s+Time: (\d+), Offset: ([+-]\d+)")


def fields(rest):
    """{'Receiver': location ref, 'Communicator': ref, 'Tag': n, ...} of one record."""
    out = {}
    for m in _FIELD.finditer(rest):
        key = m.group(1)
        if m.group(3) is not None:      # rank ("name" <location>)
            out[key] = int(m.group(3))
        elif m.group(4) is not None:    # "name" <ref>
            out[key] = int(m.group(4))
        else:
            v = m.group(5)
            out[key] = int(v) if v.isdigit() else v
    return out


def otf2_print(anchor, *opts):
    p = subprocess.run([T.OTF2_PRINT, *opts, anchor], capture_output=True)
    if p.returncode != 0 or p.stderr.strip():
        raise T.TraceError("otf2-print %s failed: %s" % (" ".join(opts), p.stderr[:2000]))
    return p.stdout.decode(errors="replace").splitlines()


def check(exp, np_, visits, p2p_messages):
    problems = []
    try:
        tr = T.load(exp)
        lines = otf2_print(T.anchor(exp), "-A", "-Werror")
        offsets_out = otf2_print(T.anchor(exp), "-C")
    except T.TraceError as e:
        return ["archive unreadable: %s" % e]
    problems += tr.problems()

    lgroups = {}
    groups, comms = {}, {}
    recs = []
    for line in lines:
        m = _LGROUP.match(line)
        if m:
            lgroups[int(m.group(1))] = m.group(2)
        m = _GROUP.match(line)
        if m:
            groups[int(m.group(1))] = (m.group(2), int(m.group(3)))
        m = _COMM.match(line)
        if m:
            comms[int(m.group(1))] = (m.group(2), int(m.group(3)))
        m = _REC.match(line)
        if m:
            recs.append((m.group(1), int(m.group(2)), int(m.group(3)), fields(m.group(4))))

    if lgroups != {r: "MPI Rank %d" % r for r in range(np_)}:
        problems.append("location groups %r, expected MPI Rank 0..%d" % (lgroups, np_ - 1))
    if sorted({l["group"] for l in tr.locations.values()}) != list(range(np_)):
        problems.append("locations are not spread over the %d ranks' groups" % np_)
    got = tr.enters_by_region()
    if got != visits:
        problems.append("Enter records per region differ from the visits (got, expected): %r"
                        % {k: (got.get(k), visits.get(k)) for k in set(got) | set(visits)
                           if got.get(k) != visits.get(k)})

    # Point to point: (sender location, receiver location, communicator, tag, length).
    sends, recvs = collections.Counter(), collections.Counter()
    isend_req, isend_done = collections.Counter(), collections.Counter()
    irecv_req, irecv_done = collections.Counter(), collections.Counter()
    for typ, loc, _, f in recs:
        if typ in ("MPI_SEND", "MPI_ISEND"):
            sends[(loc, f["Receiver"], f["Communicator"], f["Tag"], f["Length"])] += 1
            if typ == "MPI_ISEND":
                isend_req[(loc, f["Request"])] += 1
        elif typ in ("MPI_RECV", "MPI_IRECV"):
            recvs[(f["Sender"], loc, f["Communicator"], f["Tag"], f["Length"])] += 1
            if typ == "MPI_IRECV":
                irecv_done[(loc, f["Request"])] += 1
        elif typ == "MPI_ISEND_COMPLETE":
            isend_done[(loc, f["Request"])] += 1
        elif typ == "MPI_IRECV_REQUEST":
            irecv_req[(loc, f["Request"])] += 1
    if sends != recvs:
        problems.append("sends without their receive: %r; receives without their send: %r"
                        % (list((sends - recvs).items())[:5], list((recvs - sends).items())[:5]))
    if sum(sends.values()) != p2p_messages:
        problems.append("%d MpiSend/MpiIsend records, expected %d"
                        % (sum(sends.values()), p2p_messages))
    if isend_req != isend_done or any(v != 1 for v in isend_req.values()):
        problems.append("Isend requests and their completions differ")
    if irecv_req != irecv_done or any(v != 1 for v in irecv_req.values()):
        problems.append("Irecv requests and their receives differ")

    # Blocking collectives.
    seq = collections.defaultdict(list)     # location -> [(comm, op, root, sent, received)]
    open_ = collections.Counter()
    for typ, loc, _, f in recs:
        if typ == "MPI_COLLECTIVE_BEGIN":
            if open_[loc]:
                problems.append("location %d: MpiCollectiveBegin inside another" % loc)
            open_[loc] += 1
        elif typ == "MPI_COLLECTIVE_END":
            if not open_[loc]:
                problems.append("location %d: MpiCollectiveEnd without Begin" % loc)
            open_[loc] = 0
            seq[loc].append((f["Communicator"], f["Operation"], f["Root"], f["Sent"],
                             f["Received"]))
    if any(open_.values()):
        problems.append("collectives never ended: %r" % dict(open_))
    per_comm = collections.defaultdict(dict)  # comm -> location -> [(op, root, sent, recv)]
    for loc, s in seq.items():
        for comm, op, root, sent, rcvd in s:
            per_comm[comm].setdefault(loc, []).append((op, root, sent, rcvd))
    for comm, members in per_comm.items():
        if comm not in comms:
            problems.append("collective on undefined communicator %r" % comm)
            continue
        gtype, gsize = groups.get(comms[comm][1], ("?", -1))
        if len(members) != gsize:
            problems.append("communicator %s: %d member locations in collectives, group has %d"
                            % (comms[comm][0], len(members), gsize))
        ops = {loc: [(o, r) for o, r, _, _ in v] for loc, v in members.items()}
        if len({tuple(v) for v in ops.values()}) != 1:
            problems.append("communicator %s: members disagree on the collectives: %r"
                            % (comms[comm][0], ops))
            continue
        n = len(next(iter(ops.values())))
        for i in range(n):
            sent = sum(v[i][2] for v in members.values())
            rcvd = sum(v[i][3] for v in members.values())
            if sent != rcvd:
                problems.append("communicator %s, collective %d (%s): %d bytes sent, %d received"
                                % (comms[comm][0], i, ops[next(iter(ops))][i][0], sent, rcvd))
    ends = collections.Counter(op for s in seq.values() for _, op, _, _, _ in s)
    want = {r[4:].upper(): v for r, v in visits.items() if r[4:].upper() in OPS}
    # Communicators' and windows' creation and free: collectives CREATE_HANDLE and
    # DESTROY_HANDLE
    made = sum(v for r, v in visits.items() if r in CREATES)
    if made:
        want["CREATE_HANDLE"] = made
    freed = sum(v for r, v in visits.items() if r in DESTROYS)
    if freed:
        want["DESTROY_HANDLE"] = freed
    if dict(ends) != want:
        problems.append("MpiCollectiveEnd per operation %r, expected (region visits) %r"
                        % (dict(ends), want))
    nb_req = collections.Counter()
    nb_done = collections.Counter()
    nb_ops = collections.Counter()
    for typ, loc, _, f in recs:
        if typ == "NON_BLOCKING_COLLECTIVE_REQUEST":
            nb_req[(loc, f["Request"])] += 1
        elif typ == "NON_BLOCKING_COLLECTIVE_COMPLETE":
            nb_done[(loc, f["Request"])] += 1
            nb_ops[f["Operation"]] += 1
    want_nb = {r[5:].upper(): v for r, v in visits.items()
               if r.startswith("MPI_I") and r[5:].upper() in OPS}
    if visits.get("MPI_Comm_idup"):
        want_nb["CREATE_HANDLE"] = visits["MPI_Comm_idup"]
    if nb_req != nb_done or dict(nb_ops) != want_nb:
        problems.append("nonblocking collectives: %d requests, %d completions %r, expected %r"
                        % (sum(nb_req.values()), sum(nb_done.values()), dict(nb_ops), want_nb))

    # Clock offsets: two per location, zero on rank 0.
    offs = collections.defaultdict(list)
    for line in offsets_out:
        m = _OFFSET.match(line)
        if m:
            offs[int(m.group(1))].append(int(m.group(3)))
    for loc in tr.locations:
        if len(offs.get(loc, [])) != 2:
            problems.append("location %d: %d clock offsets, expected 2" % (loc,
                                                                           len(offs.get(loc, []))))
        elif loc >> 32 == 0 and offs[loc] != [0, 0]:
            problems.append("rank 0's clock offsets are %r, expected 0" % offs[loc])
    if not problems:
        print("trace: %d ranks, %d events, %d point-to-point messages matched, %d collective "
              "ends on %d communicators, clock offsets: as expected"
              % (np_, tr.total_events(), sum(sends.values()), sum(ends.values()), len(per_comm)))
    return problems
