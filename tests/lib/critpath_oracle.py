"""critpath_oracle.py — the critical path of an MPI job computed post mortem from its OTF2
trace, to check the on-the-fly result of INSTR_CRITICAL_PATH=1 (docs/critical-path.md).

    import critpath_oracle as O
    o = O.compute("<experiment dir>")
    # {"useful_s": s, "regions": {name: s}, "pairs": {(name, rank): s}, "ranks": n,
    #  "locations": threads}

A replay of every location's events in order, independent of the runtime's code: the time
between two events of a location is useful computation unless an MPI region is open, and is
charged to the innermost open non-MPI region ("" when none) on the location's rank. Each location carries its path
(length and time per region); a receive (MPI_RECV, MPI_IRECV) takes the longer of its own and
the one its send (MPI_SEND, MPI_ISEND: same sender, receiver, communicator and tag, in order)
had; the k-th blocking collective of a communicator (MPI_COLLECTIVE_BEGIN/END) gives every
member the longest of the members' paths at their begins; leaving MPI_Init and the end of
the trace (MPI_Finalize) give every location the longest of all.
OpenMP (one team of constant size per process, every thread in every parallel region): a
worker is on no clock outside its implicit tasks and starts its j-th from the path the
master had at its j-th THREAD_FORK; the k-th "!$omp barrier"/"!$omp implicit barrier" of
every thread of a process gives each the longest of the team's paths at their begins (the
join is the implicit barrier); time inside barriers and mutex, taskwait or taskgroup waits
is not useful.
Mutexes: the k-th acquisition of a process's critical sections (the end of a "(wait)"
region, in time order) takes the path of the (k-1)-th release (the end of the held region
that follows the k-1-th acquisition on its thread); all critical sections of a process are
one mutex, all ordered regions one, all locks one (the trace does not say which mutex).
Explicit tasks: the k-th creation of a site ("!$omp task (create) @site", in time order)
is the task of the k-th execution of that site ("!$omp task @site"); a task starts from its
creator's path at its creation and runs on the path of its own (time in it is useful even
inside a barrier or a wait); "!$omp taskwait" ends with the longest of the waiting task's
path and those of the children it created before; "!$omp taskgroup (wait)" the same with
their descendants; a barrier ends with the tasks that completed in it too. Dependences
(depend clauses) are not in the trace and not replayed. A program that is no MPI job is
one process, rank 0. A location that waits for a send,
a collective, a release or a task not replayed yet is resumed later. Nonblocking collectives, one-sided
communication and receives the trace does not record (persistent, matched) are not
replayed: use it on programs without them. Python 3 standard library only.
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import otf2check as T  # noqa: E402

_EVENT = re.compile(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$")
_FIELD = re.compile(r'(\w+): (?:(\d+) \("[^"]*" <(\d+)>\)|"[^"]*" <(\d+)>|(\w+))')
_GROUP = re.compile(r"^GROUP\s+(\d+)\s+Name: .*?, Type: (\w+), .*?, (\d+) Members")
_COMM = re.compile(r'^COMM\s+(\d+)\s+Name: "([^"]*)" <\d+>, Group: "[^"]*" <(\d+)>')
_LGROUP = re.compile(r'^LOCATION_GROUP\s+(\d+)\s+Name: "MPI Rank (\d+)" <\d+>')


_TASK = "!$omp implicit task"
_BARRIER = ("!$omp barrier", "!$omp implicit barrier")
_MUTEX = ("!$omp critical", "!$omp ordered", "omp_set_lock", "!$omp atomic")
_TASKWAIT, _GROUPWAIT = "!$omp taskwait", "!$omp taskgroup (wait)"
_CREATE, _EXPLICIT = "!$omp task (create)", "!$omp task"


def _construct(region_name):
    """("!$omp critical (wait)", " @f.c:12") from "!$omp critical (wait) @f.c:12"."""
    i = region_name.find(" @")
    return (region_name, "") if i < 0 else (region_name[:i], region_name[i:])


def _is_wait(region_name):
    c = _construct(region_name)[0]
    return c in (_TASKWAIT, _GROUPWAIT) or (c.endswith(" (wait)") and c[:-7] in _MUTEX)


class OracleError(Exception):
    pass


def _fields(rest):
    out = {}
    for m in _FIELD.finditer(rest):
        if m.group(3) is not None:
            out[m.group(1)] = int(m.group(3))
        elif m.group(4) is not None:
            out[m.group(1)] = int(m.group(4))
        else:
            v = m.group(5)
            out[m.group(1)] = int(v) if v.isdigit() else v
    return out


def _print(anchor, *opts):
    p = subprocess.run([T.OTF2_PRINT, *opts, anchor], capture_output=True)
    if p.returncode != 0:
        raise OracleError("otf2-print %s failed: %s" % (" ".join(opts), p.stderr[:2000]))
    return p.stdout.decode(errors="replace").splitlines()


def _longer(a, b):
    return a if a[0] >= b[0] else b


def _tasks(events, name, locs, rank):
    """Explicit tasks from the trace: "tid" {(loc, index of a creation's or an execution's
    Enter): task}, "end" {(loc, index of an execution's Leave)}, "created_at" {task: (loc,
    index)}, "children" {parent task or ("implicit", loc): [task]}, "in_barrier" {(rank, k):
    tasks that completed before the end of the k-th barrier of their thread}."""
    creates, execs = collections.defaultdict(list), collections.defaultdict(list)
    for l in locs:
        for i, (typ, ts, x) in enumerate(events[l]):
            if typ != "ENTER":
                continue
            c, site = _construct(name[x])
            if c == _CREATE:
                creates[(rank[l], site)].append((ts, l, i))
            elif c == _EXPLICIT:
                execs[(rank[l], site)].append((ts, l, i))
    tid = {}
    for key in creates:
        for k, (a, b) in enumerate(zip(sorted(creates[key]), sorted(execs.get(key, ())))):
            tid[(a[1], a[2])] = tid[(b[1], b[2])] = key + (k,)
    out = {"tid": tid, "end": set(), "created_at": {}, "children": collections.defaultdict(list),
           "in_barrier": collections.defaultdict(list)}
    for l in locs:
        stack, depth, bars, level = [], [], 0, 0  # running tasks, the depth each began at
        for i, (typ, ts, x) in enumerate(events[l]):
            if typ == "ENTER":
                c = _construct(name[x])[0]
                if (l, i) in tid and c == _CREATE:
                    t = tid[(l, i)]
                    out["created_at"][t] = (l, i)
                    out["children"][stack[-1] if stack else ("implicit", l)].append(t)
                elif (l, i) in tid and c == _EXPLICIT:
                    stack.append(tid[(l, i)])
                    depth.append(level)
                level += 1
            elif typ == "LEAVE":
                level -= 1
                if stack and depth[-1] == level:
                    out["end"].add((l, i))
                    out["in_barrier"][(rank[l], bars)].append(stack.pop())
                    depth.pop()
                elif name[x].startswith(_BARRIER):
                    bars += 1
    return out


def _mutexes(events, name, locs, rank):
    """Acquisitions and releases of mutexes: "acquisition" {(loc, index of the Leave of a
    "(wait)" region): (rank, kind, k)}, the k-th acquisition of that kind in the process by
    time; "release" {(loc, index of the Leave of the held region that follows it): the
    same}."""
    acq = collections.defaultdict(list)
    for l in locs:
        for i, (typ, ts, x) in enumerate(events[l]):
            c = _construct(name[x])[0] if typ == "LEAVE" else ""
            if c.endswith(" (wait)") and c[:-7] in _MUTEX:
                acq[(rank[l], c[:-7])].append((ts, l, i))
    out = {"acquisition": {}, "release": {}}
    for (r, kind), lst in acq.items():
        for k, (_, l, i) in enumerate(sorted(lst)):
            out["acquisition"][(l, i)] = (r, kind, k)
            for j in range(i + 1, len(events[l])):
                typ, _, x = events[l][j]
                if typ == "LEAVE" and _construct(name[x])[0] == kind:
                    out["release"][(l, j)] = (r, kind, k)
                    break
    return out


def compute(exp):
    tr = T.load(exp)  # definitions (regions, clock); raises when the archive is broken
    anchor = T.anchor(exp)
    hz = tr.clock[0]
    members = {}
    groups = {}
    rank_of_group = {}
    for line in _print(anchor, "-G"):
        m = _LGROUP.match(line)
        if m:
            rank_of_group[int(m.group(1))] = int(m.group(2))
        m = _GROUP.match(line)
        if m:
            groups[int(m.group(1))] = int(m.group(3))
        m = _COMM.match(line)
        if m:
            members[int(m.group(1))] = int(m.group(3))
    members = {c: groups.get(g, 0) for c, g in members.items()}
    events = collections.defaultdict(list)
    for line in _print(anchor):
        m = _EVENT.match(line)
        if not m or m.group(1) in ("BUFFER_FLUSH",):
            continue
        typ, loc, ts, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if typ in ("ENTER", "LEAVE"):
            ref = int(re.search(r"<(\d+)>$", rest).group(1))
            events[loc].append((typ, ts, ref))
        elif typ in ("THREAD_FORK", "THREAD_JOIN"):
            events[loc].append((typ, ts, None))
        elif typ.startswith("MPI_") or typ.startswith("NON_BLOCKING"):
            events[loc].append((typ, ts, _fields(rest)))
    locs = sorted(events)
    name = {r: tr.regions[r]["name"] for r in tr.regions}
    # A process's master thread: the one that forks or calls MPI_Init; the others (OpenMP
    # workers) are on no clock outside their implicit tasks.
    masters = {l for l in locs if any(e[0] == "THREAD_FORK" or (
        e[0] == "ENTER" and name[e[2]] in ("MPI_Init", "MPI_Init_thread")) for e in events[l])}
    init_locs = {l for l in locs if any(e[0] == "ENTER" and name[e[2]] in (
        "MPI_Init", "MPI_Init_thread") for e in events[l])}
    st = {l: {"i": 0, "t": None, "mpi": 0, "stack": [], "path": (0.0, {}), "coll": {},
              "begin": None, "wait": None, "omp": 0, "idle": l not in masters and masters,
              "tasks": 0, "bars": 0, "ctx": [], "tstack": [],
              # a program that is no MPI job has no rank groups: its process is rank 0
              "rank": rank_of_group.get(tr.locations.get(l, {}).get("group"),
                                        -1 if rank_of_group else 0)}
          for l in locs}
    tasks = _tasks(events, name, locs, {l: st[l]["rank"] for l in locs})
    mutex = _mutexes(events, name, locs, {l: st[l]["rank"] for l in locs})
    created, final, released = {}, {}, {}
    team = collections.Counter(s["rank"] for s in st.values())
    forks = collections.defaultdict(list)   # rank -> master's path at each fork
    bars = collections.defaultdict(dict)    # (rank, k) -> {loc: path at the k-th barrier}
    sends = collections.defaultdict(collections.deque)
    colls = collections.defaultdict(dict)   # (comm, k) -> {loc: path at begin}
    inits = {}                              # loc -> path on entering MPI_Init

    def charge(s, ts):
        if (s["t"] is not None and ts > s["t"] and s["mpi"] == 0 and s["omp"] == 0
                and not s["idle"]):
            dt = (ts - s["t"]) / hz
            name = tr.regions[s["stack"][-1]]["name"] if s["stack"] else ""
            key = (name, s["rank"])
            length, regs = s["path"]
            regs = dict(regs)
            regs[key] = regs.get(key, 0.0) + dt
            s["path"] = (length + dt, regs)
        s["t"] = ts if s["t"] is None else max(s["t"], ts)

    def waited_for(l, s, group):
        """The tasks a taskwait (group False) or taskgroup (True) at location l's current
        event waits for: the current task's children created before, (their descendants)."""
        cur = s["tstack"][-1] if s["tstack"] else ("implicit", l)
        out = [t for t in tasks["children"].get(cur, ()) if tasks["created_at"][t][0] == l and
               tasks["created_at"][t][1] < s["i"]]
        if group:
            todo = list(out)
            while todo:
                more = tasks["children"].get(todo.pop(), ())
                out.extend(more)
                todo.extend(more)
        return out

    def join(s, ts, paths):
        charge(s, ts)
        for p in paths:
            s["path"] = _longer(s["path"], p)

    def step(l):
        """Replays location l's next event; False when it must wait."""
        s = st[l]
        typ, ts, x = events[l][s["i"]]
        key = (l, s["i"])
        if typ == "ENTER" and key in tasks["tid"] and _construct(name[x])[0] == _EXPLICIT:
            tid = tasks["tid"][key]
            if tid not in created:
                return False
            charge(s, ts)
            s["ctx"].append((s["path"], s["omp"]))
            s["path"], s["omp"] = created[tid], 0
            s["tstack"].append(tid)
            s["stack"].append(x)
        elif typ == "LEAVE" and s["tstack"] and key in tasks["end"]:
            charge(s, ts)
            final[s["tstack"].pop()] = s["path"]
            s["path"], s["omp"] = s["ctx"].pop()
            if s["stack"]:
                s["stack"].pop()
        elif typ == "LEAVE" and _construct(name[x])[0] in (_TASKWAIT, _GROUPWAIT):
            wait = waited_for(l, s, _construct(name[x])[0] == _GROUPWAIT)
            if any(t not in final for t in wait):
                return False
            join(s, ts, [final[t] for t in wait])
            s["omp"] -= 1
        elif typ == "LEAVE" and key in mutex["acquisition"]:
            k = mutex["acquisition"][key]
            if k[2] > 0 and (k[0], k[1], k[2] - 1) not in released:
                return False
            join(s, ts, [released[(k[0], k[1], k[2] - 1)]] if k[2] > 0 else [])
            s["omp"] -= 1
        elif typ == "LEAVE" and key in mutex["release"]:
            charge(s, ts)
            released[mutex["release"][key]] = s["path"]
            if s["stack"]:
                s["stack"].pop()
        elif typ == "MPI_RECV" or typ == "MPI_IRECV":
            key = (x["Sender"], l, x["Communicator"], x["Tag"])
            if not sends[key]:
                return False
            charge(s, ts)
            s["path"] = _longer(s["path"], sends[key].popleft())
        elif typ == "MPI_COLLECTIVE_END":
            if s["wait"] is None:
                k = s["coll"].get(x["Communicator"], 0)
                s["coll"][x["Communicator"]] = k + 1
                s["wait"] = (x["Communicator"], k)
                colls[s["wait"]][l] = s["begin"]
            group = colls[s["wait"]]
            if len(group) < members.get(s["wait"][0], 0):
                return False
            charge(s, ts)
            for p in group.values():
                s["path"] = _longer(s["path"], p)
            s["wait"] = None
        elif typ == "ENTER" and s["idle"] and name[x].startswith(_TASK):
            if len(forks[s["rank"]]) <= s["tasks"]:
                return False
            s["path"] = _longer(s["path"], forks[s["rank"]][s["tasks"]])
            s["tasks"] += 1
            s["idle"], s["t"] = False, ts
            s["stack"].append(x)
        elif typ == "LEAVE" and name[x].startswith(_BARRIER):
            group = bars[(s["rank"], s["bars"])]
            done = tasks["in_barrier"].get((s["rank"], s["bars"]), ())
            if len(group) < team[s["rank"]] or any(t not in final for t in done):
                return False
            join(s, ts, list(group.values()) + [final[t] for t in done])
            s["bars"] += 1
            s["omp"] -= 1
        elif typ == "LEAVE" and tr.regions[x]["name"] in ("MPI_Init", "MPI_Init_thread"):
            if len(inits) < len(init_locs):
                return False
            charge(s, ts)
            for p in inits.values():
                s["path"] = _longer(s["path"], p)
            s["mpi"] -= 1
        else:
            charge(s, ts)
            if typ == "THREAD_FORK":
                forks[s["rank"]].append(s["path"])
            elif typ == "ENTER" and key in tasks["tid"]:  # a creation
                created[tasks["tid"][key]] = s["path"]
                s["stack"].append(x)
            elif typ == "ENTER" and name[x].startswith(_BARRIER):
                bars[(s["rank"], s["bars"])][l] = s["path"]
                s["omp"] += 1
            elif typ == "ENTER" and _is_wait(name[x]):
                s["omp"] += 1
            elif typ == "LEAVE" and name[x].startswith(_TASK) and l not in masters and masters:
                s["idle"] = True
                if s["stack"]:
                    s["stack"].pop()
            elif typ == "ENTER":
                if tr.regions[x]["paradigm"] == "MPI":
                    s["mpi"] += 1
                    if tr.regions[x]["name"] in ("MPI_Init", "MPI_Init_thread"):
                        inits[l] = s["path"]
                else:
                    s["stack"].append(x)
            elif typ == "LEAVE":
                if tr.regions[x]["paradigm"] == "MPI":
                    s["mpi"] -= 1
                elif s["stack"]:
                    s["stack"].pop()
            elif typ in ("MPI_SEND", "MPI_ISEND"):
                sends[(l, x["Receiver"], x["Communicator"], x["Tag"])].append(s["path"])
            elif typ == "MPI_COLLECTIVE_BEGIN":
                s["begin"] = s["path"]
        s["i"] += 1
        return True

    while True:
        progress, done = False, True
        for l in locs:
            while st[l]["i"] < len(events[l]) and step(l):
                progress = True
            if st[l]["i"] < len(events[l]):
                done = False
        if done:
            break
        if not progress:
            raise OracleError("replay stuck: %r" % {l: events[l][st[l]["i"]] for l in locs
                                                    if st[l]["i"] < len(events[l])})
    final = (0.0, {})
    for l in locs:
        final = _longer(final, st[l]["path"])
    regions = collections.defaultdict(float)
    for (name, _), t in final[1].items():
        regions[name] += t
    return {"useful_s": final[0], "regions": dict(regions), "pairs": final[1],
            "ranks": len(team), "locations": len(locs)}
