"""job_output.py — what an MPI job prints and what it leaves at the top of its directory,
checked for check_mpi.py (docs/mpi.md "What a job prints", "The job's experiment directory"):

  stderr_problems   the exact instr lines on stderr: one summary from rank 0; the ranks' own
                    end lines only with INSTR_VERBOSE
  rank_problems     every rank's own rank-N/profile.json equals the job profile.json's values
                    of that rank, call path by call path (times, visits, messages)
  text_problems     the job's profile.txt: its flat profile, call tree and message table equal
                    the sums of the ranks' own profile.json
  collectives_expect  the exact collective operations and bytes of progs/collectives.c, per
                    rank, by construction
"""
import os
import re

MSG_FIELDS = ("messages_sent", "bytes_sent", "messages_received", "bytes_received",
              "collectives")
NODE_FIELDS = ("visits", "inclusive", "exclusive") + MSG_FIELDS
ALL_FORMATS = "profile.txt, profile.json, profile.cubex, profile.html"
# every file at the top of a job's directory, as the job's line names them
JOB_FILES = ALL_FORMATS + ", profile.jdb, instr.cfg"


def job_line(exp, np_, missing="", rank_files=True):
    """The job's one line; rank_files: INSTR_RANK_FILES=1, the line says where they are."""
    own = ("; the rank's own files in rank-0/" if np_ == 1
           else "; each rank's own files in rank-0/ to rank-%d/" % (np_ - 1))
    return "instr: MPI job of %d rank%s: %s written to %s%s%s" % (
        np_, "" if np_ == 1 else "s", JOB_FILES, exp, missing, own if rank_files else "")


def stderr_problems(stderr, exp, np_, verbose, trace, missing="", rank_files=True):
    """The instr lines of a job that ended well. Without INSTR_VERBOSE exactly the job's
    summary (and the trace's line with --trace); with INSTR_VERBOSE=1 also one end line per
    rank, naming it, besides the explanations every rank gives at start-up."""
    lines = [l for l in stderr.splitlines() if l.startswith("instr: ")]
    problems = []
    want = job_line(exp, np_, missing, rank_files)
    if lines.count(want) != 1:
        problems.append("the job's summary %r appears %d times (once expected)"
                        % (want, lines.count(want)))
    trace_lines = [l for l in lines if l.startswith("instr: trace: %s/traces.otf2: " % exp)]
    if len(trace_lines) != (1 if trace else 0):
        problems.append("%d trace summary lines, expected %d" % (len(trace_lines), int(trace)))
    rank_re = re.compile(r"^instr: rank (\d+): 1 thread, \d+ regions: profile\.txt, "
                         r"profile\.json, profile\.folded, profile\.cubex, profile\.html "
                         r"written to (.*)$")
    ranks = {}
    for l in lines:
        m = rank_re.match(l)
        if m:
            r = int(m.group(1))
            ranks[r] = ranks.get(r, 0) + 1
            if m.group(2) != "%s/rank-%d" % (exp, r):
                problems.append("rank %d says its files are in %s" % (r, m.group(2)))
    if verbose:
        if ranks != {r: 1 for r in range(np_)}:
            problems.append("INSTR_VERBOSE=1: end lines per rank %r, expected one each" % ranks)
    else:
        expected = 1 + (1 if trace else 0)
        if len(lines) != expected:
            problems.append("%d instr lines, expected %d:\n  %s"
                            % (len(lines), expected, "\n  ".join(lines)))
    if any(" 1 ranks" in l for l in lines):
        problems.append("\"1 ranks\" on stderr")
    return problems


def _paths(prof):
    reg = {r["id"]: r["name"] for r in prof["regions"]}
    out = {}
    for n in prof["tree"]:
        name = reg[n["region"]]
        out[n["id"]] = (name,) if n["parent"] is None else out[n["parent"]] + (name,)
    return out


def _add(to, key, entry):
    row = to.setdefault(key, dict.fromkeys(NODE_FIELDS, 0))
    for k in NODE_FIELDS:
        row[k] += entry.get(k, 0)


def per_rank_paths(job):
    """{rank: {call path: {field: value}}} from the job's profile.json."""
    group = {l["id"]: l["group"] for l in job["locations"]}
    paths = _paths(job)
    out = {}
    for n in job["tree"]:
        for l in n["locations"]:
            _add(out.setdefault(group[l["location"]], {}), paths[n["id"]], l)
    return out


def own_paths(rank_prof):
    """{call path: {field: value}} of a rank's own profile.json (its threads summed)."""
    paths = _paths(rank_prof)
    out = {}
    for n in rank_prof["tree"]:
        _add(out, paths[n["id"]], n)
    return out


def load_ranks(exp, np_, load):
    return {r: load(os.path.join(exp, "rank-%d" % r)) for r in range(np_)}


def top_problems(exp, trace):
    """Without INSTR_RANK_FILES: the job's directory holds its constant set of files (and the
    trace archive), no rank-N/."""
    want = set(JOB_FILES.split(", "))
    if trace:
        want |= {"traces.otf2", "traces.def", "traces"}
    got = set(os.listdir(exp))
    if got != want:
        return ["the job's directory holds %r, expected %r" % (sorted(got), sorted(want))]
    return []


def export_ranks(exp, np_, export, work, load):
    """Every rank's profile.json made on demand from the job's profile.jdb by instr-export
    --rank N, loaded."""
    import subprocess
    out = {}
    for r in range(np_):
        d = os.path.join(work, "export-rank-%d" % r)
        os.makedirs(d, exist_ok=True)
        p = subprocess.run([export, "--json", os.path.join(exp, "profile.jdb"), "--rank", str(r),
                            "-o", os.path.join(d, "profile.json")], capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise SystemExit("FAIL: instr-export --rank %d: %s" % (r, p.stderr))
        out[r] = load(d)
    return out


def rank_problems(job, ranks):
    problems = []
    job_ranks = per_rank_paths(job)
    for r, prof in ranks.items():
        own, merged = own_paths(prof), job_ranks.get(r, {})
        for path in sorted(set(own) | set(merged)):
            if own.get(path) != merged.get(path):
                problems.append("rank %d, %s: own profile %r, job profile %r"
                                % (r, " > ".join(path), own.get(path), merged.get(path)))
        # The node's message fields are the sums of its locations', and zero ones are left out.
        for n in prof["tree"] + prof["flat"]:
            for k in MSG_FIELDS:
                if k in n and n[k] == 0:
                    problems.append("rank %d: a zero %s is written" % (r, k))
    return problems


def _sums(ranks):
    """Sums over the ranks: per call path and per region name; the ranks that have each."""
    by_path, by_region, path_ranks, region_ranks = {}, {}, {}, {}
    for r, prof in ranks.items():
        for path, row in own_paths(prof).items():
            if not row["visits"]:
                continue
            _add(by_path, path, row)
            path_ranks.setdefault(path, set()).add(r)
        reg = {x["id"]: x["name"] for x in prof["regions"]}
        for f in prof["flat"]:
            _add(by_region, reg[f["region"]], f)
            region_ranks.setdefault(reg[f["region"]], set()).add(r)
    return by_path, by_region, path_ranks, region_ranks


def _section(lines, title):
    """The table lines of the section whose heading starts with title (after its column
    header line, up to the ' ------' line or a blank line)."""
    for i, l in enumerate(lines):
        if l.startswith(title):
            body = []
            for t in lines[i + 3:]:
                if not t.strip() or t.startswith(" ------"):
                    break
                body.append(t)
            return body
    return None


def text_problems(exp, np_, ranks, visits):
    """The job's profile.txt against the ranks' own profile.json and the known visits."""
    path = os.path.join(exp, "profile.txt")
    if not os.path.isfile(path):
        return ["%s missing" % path]
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    problems = []
    head = "  ranks        %d in the job, %d in this profile" % (np_, len(ranks))
    if not any(l == head or l.startswith(head + "; missing: ") for l in lines):
        problems.append("profile.txt has no line %r" % head)
    by_path, by_region, path_ranks, region_ranks = _sums(ranks)

    flat = _section(lines, "Flat profile")
    if flat is None:
        return problems + ["profile.txt has no flat profile"]
    seen = {}
    for l in flat:
        left, mid, name = l.split("|", 2)
        name = name.strip()
        seen[name] = int(left.split()[5])
        ranks_col, max_rank = int(mid.split()[0]), int(mid.split()[-1])
        if ranks_col != len(region_ranks.get(name, ())):
            problems.append("flat %s: %d ranks, the ranks' profiles have it on %d"
                            % (name, ranks_col, len(region_ranks.get(name, ()))))
        if max_rank not in region_ranks.get(name, ()):
            problems.append("flat %s: the greatest rank %d has no such region" % (name, max_rank))
    want = visits if visits is not None else seen
    if len(want) <= 25 and seen != want:
        problems.append("flat visits of profile.txt %r, expected %r" % (seen, want))
    for name, v in seen.items():
        if v != by_region.get(name, {}).get("visits"):
            problems.append("flat %s: %d visits, the ranks' sum is %r"
                            % (name, v, by_region.get(name, {}).get("visits")))

    tree = _section(lines, "Call tree")
    if not tree:
        return problems + ["profile.txt has no call tree"]
    stack = []
    for l in tree:
        left, mid, right = l.split("|", 2)
        depth = (len(right) - len(right.lstrip()) - 1) // 2
        stack = stack[:depth] + [right.strip()]
        p = tuple(stack)
        v = int(left.split()[-1])
        if v != by_path.get(p, {}).get("visits"):
            problems.append("tree %s: %d visits, the ranks' sum is %r"
                            % (" > ".join(p), v, by_path.get(p, {}).get("visits")))
        if int(mid.split()[0]) != len(path_ranks.get(p, ())):
            problems.append("tree %s: %s ranks, expected %d"
                            % (" > ".join(p), mid.split()[0], len(path_ranks.get(p, ()))))

    want_msgs = {p: tuple(row[k] for k in MSG_FIELDS) for p, row in by_path.items()
                 if any(row[k] for k in MSG_FIELDS)}
    got_msgs = {}
    for l in _section(lines, "Messages per call path") or []:
        nums, p = l.split("|", 1)
        got_msgs[tuple(x.strip() for x in p.split(" > "))] = tuple(int(x) for x in nums.split())
    if got_msgs != want_msgs:
        problems.append("profile.txt messages %r, the ranks' sums %r" % (got_msgs, want_msgs))
    return problems


# ---- progs/collectives.c by construction ----

COLLECTIVES = ["Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Scatter", "Allgather",
               "Alltoall", "Scan", "Reduce_scatter_block", "Ibcast", "Iallreduce"]


def _one_call(op, c, n, block):
    """(bytes sent, bytes received) of comm rank c of n in one call (docs/mpi.md: Score-P's
    convention; root 0)."""
    root = c == 0
    if op == "Barrier":
        return 0, 0
    if op in ("Bcast", "Ibcast", "Scatter"):
        return (n * block if root else 0), block
    if op in ("Reduce", "Gather"):
        return block, (n * block if root else 0)
    if op == "Scan":
        return (n - c) * block, (c + 1) * block
    return n * block, n * block  # Allreduce, Iallreduce, Allgather, Alltoall, RSB


def collectives_expect(np_):
    """{world rank: {MPI_X: (collectives, bytes sent, bytes received)}} for an even np: three
    rounds on MPI_COMM_WORLD, one on each half of MPI_Comm_split (even and odd ranks), one on
    the first half (MPI_Comm_create), and the final MPI_Reduce of a long to rank 0."""
    comms = [list(range(np_))] * 3 + [list(range(0, np_, 2)), list(range(1, np_, 2)),
                                      list(range(np_ // 2))]
    out = {r: {} for r in range(np_)}

    def add(r, op, sent, recvd):
        c, s, v = out[r].get("MPI_" + op, (0, 0, 0))
        out[r]["MPI_" + op] = (c + 1, s + sent, v + recvd)

    for members in comms:
        for c, r in enumerate(members):
            for op in COLLECTIVES:
                add(r, op, *_one_call(op, c, len(members), 4))
    for r in range(np_):
        add(r, "Reduce", *_one_call("Reduce", r, np_, 8))
    return out


def collectives_problems(job, ranks, np_):
    """Every rank's collectives and their bytes per MPI call, exactly, in its own profile.json
    and in the job's; no point-to-point message counts on them; the job's flat sums."""
    want = collectives_expect(np_)
    problems = []
    job_ranks = per_rank_paths(job)
    for r in range(np_):
        sources = {"rank-%d/profile.json" % r: own_paths(ranks[r]),
                   "the job's profile.json, rank %d" % r: job_ranks.get(r, {})}
        for where, paths in sources.items():
            got = {}
            for p, row in paths.items():
                if p[-1] in want[r]:
                    c, s, v = got.get(p[-1], (0, 0, 0))
                    got[p[-1]] = (c + row["collectives"], s + row["bytes_sent"],
                                  v + row["bytes_received"])
                    if row["messages_sent"] or row["messages_received"]:
                        problems.append("%s: %s counts point-to-point messages" % (where, p[-1]))
            if got != want[r]:
                problems.append("%s: (collectives, bytes sent, received) %r, expected %r"
                                % (where, got, want[r]))
    reg = {x["id"]: x["name"] for x in job["regions"]}
    flat = {reg[f["region"]]: f for f in job["flat"]}
    for name in want[0]:
        total = tuple(sum(want[r][name][i] for r in range(np_)) for i in range(3))
        f = flat.get(name, {})
        got = (f.get("collectives", 0), f.get("bytes_sent", 0), f.get("bytes_received", 0))
        if got != total:
            problems.append("job flat %s: %r, expected %r" % (name, got, total))
        if total[1] != total[2]:
            problems.append("by construction %s sends %d bytes and receives %d" % ((name,) + total[1:]))
    return problems
