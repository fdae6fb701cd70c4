"""Reading and checking instr profiles (docs/profile-format.md) in tests.

Import from a test with:
    sys.path.insert(0, "<source>/tests/lib"); import profile as P
    prof = P.load(P.find_experiment(workdir))     # or P.load("<dir>/profile.json")
    P.visits_by_region(prof)["main"] == 1
    P.check_consistency(prof) == []               # list of problems, empty when fine

Python 3 standard library only.
"""
import glob
import json
import os

FORMAT = "instr-profile"
VERSION = 2


class ProfileError(Exception):
    pass


def find_experiments(directory):
    """Experiment directories (containing profile.json) directly under `directory`, sorted."""
    found = []
    for path in sorted(glob.glob(os.path.join(directory, "*"))):
        if os.path.isfile(os.path.join(path, "profile.json")):
            found.append(path)
    return found


def find_experiment(directory):
    """The one experiment directory under `directory`; raises unless there is exactly one."""
    found = find_experiments(directory)
    if len(found) != 1:
        raise ProfileError("expected one experiment directory with profile.json in %s, found %r"
                           % (directory, found))
    return found[0]


def load(path):
    """Loads profile.json from a file path or an experiment directory and checks format."""
    if os.path.isdir(path):
        path = os.path.join(path, "profile.json")
    with open(path, encoding="utf-8") as f:
        prof = json.load(f)
    if prof.get("format") != FORMAT:
        raise ProfileError("%s: format is %r, not %r" % (path, prof.get("format"), FORMAT))
    if prof.get("version") != VERSION:
        raise ProfileError("%s: version %r, this checker reads %r"
                           % (path, prof.get("version"), VERSION))
    return prof


def regions(prof):
    """{region id: region object}"""
    return {r["id"]: r for r in prof["regions"]}


def region_names(prof):
    """Set of display names of the regions that have at least one tree node."""
    reg = regions(prof)
    return {reg[n["region"]]["name"] for n in prof["tree"]}


def _short(name, short):
    # "ns::f(int)" -> "ns::f" when asked, so tests can be written against plain names.
    if short and "(" in name:
        return name[:name.index("(")]
    return name


def visits_by_region(prof, short=False, location=None):
    """{region name: total visits over all call paths}; `location` restricts to one location.
    short=True strips a C++ parameter list from the names."""
    reg = regions(prof)
    out = {}
    for n in prof["tree"]:
        name = _short(reg[n["region"]]["name"], short)
        v = _node_visits(n, location)
        if v:
            out[name] = out.get(name, 0) + v
    return out


def _node_visits(node, location):
    if location is None:
        return node["visits"]
    return sum(l["visits"] for l in node["locations"] if l["location"] == location)


def paths(prof, sep=";", short=False):
    """{node id: "main;solve;kernel"}"""
    reg = regions(prof)
    out = {}
    for n in prof["tree"]:
        name = _short(reg[n["region"]]["name"], short)
        out[n["id"]] = name if n["parent"] is None else out[n["parent"]] + sep + name
    return out


def visits_by_path(prof, sep=";", short=False):
    """{"main;solve;kernel": visits}"""
    p = paths(prof, sep, short)
    out = {}
    for n in prof["tree"]:
        out[p[n["id"]]] = out.get(p[n["id"]], 0) + n["visits"]
    return out


def node_by_path(prof, path, sep=";", short=False):
    p = paths(prof, sep, short)
    for n in prof["tree"]:
        if p[n["id"]] == path:
            return n
    return None


def locations_with_region(prof, name, short=False):
    """Set of location ids that visited region `name`."""
    reg = regions(prof)
    out = set()
    for n in prof["tree"]:
        if _short(reg[n["region"]]["name"], short) == name:
            out.update(l["location"] for l in n["locations"])
    return out


def check_consistency(prof):
    """Problems with the invariants promised by docs/profile-format.md, as strings."""
    problems = []
    tree = prof["tree"]
    reg = regions(prof)
    loc_ids = {l["id"] for l in prof["locations"]}
    group_ids = {g["id"] for g in prof["location_groups"]}
    for l in prof["locations"]:
        if l["group"] not in group_ids:
            problems.append("location %r: unknown group" % l["id"])
    child_incl = [0] * len(tree)
    for i, n in enumerate(tree):
        where = "node %d" % i
        if n["id"] != i:
            problems.append("%s: id %r is not its index" % (where, n["id"]))
        if n["region"] not in reg:
            problems.append("%s: unknown region %r" % (where, n["region"]))
        if n["parent"] is None:
            if n["depth"] != 0:
                problems.append("%s: root with depth %r" % (where, n["depth"]))
        else:
            if not (0 <= n["parent"] < i):
                problems.append("%s: parent %r does not come before it" % (where, n["parent"]))
                continue
            if n["depth"] != tree[n["parent"]]["depth"] + 1:
                problems.append("%s: depth %r, parent's %r" % (where, n["depth"],
                                                               tree[n["parent"]]["depth"]))
            child_incl[n["parent"]] += n["inclusive"]
        for rec, what in [(n, where)] + [(l, "%s location %r" % (where, l["location"]))
                                          for l in n["locations"]]:
            # per location, visits 0 only above work run for another thread (no own time)
            if rec["visits"] < 1 and not (rec is not n and rec["visits"] == 0 and
                                          rec["exclusive"] == 0):
                problems.append("%s: visits %r" % (what, rec["visits"]))
            if not (rec["inclusive"] >= rec["exclusive"] >= 0):
                problems.append("%s: inclusive %r < exclusive %r (or negative)"
                                % (what, rec["inclusive"], rec["exclusive"]))
            for k in ("inclusive", "exclusive"):
                if rec["min_" + k] > rec["max_" + k]:
                    problems.append("%s: min_%s > max_%s" % (what, k, k))
                if rec["max_" + k] > rec[k]:
                    problems.append("%s: max_%s > %s" % (what, k, k))
        if not n["locations"]:
            problems.append("%s: no location visited it" % where)
        for l in n["locations"]:
            if l["location"] not in loc_ids:
                problems.append("%s: unknown location %r" % (where, l["location"]))
        if sum(l["visits"] for l in n["locations"]) != n["visits"]:
            problems.append("%s: per-location visits do not sum to %r" % (where, n["visits"]))
        nloc = len(n["locations"])
        for k in ("inclusive", "exclusive"):
            s = sum(l[k] for l in n["locations"])
            if abs(s - n[k]) > nloc:
                problems.append("%s: per-location %s sum %r != %r" % (where, k, s, n[k]))
    for i, n in enumerate(tree):
        if child_incl[i] > n["inclusive"]:
            problems.append("node %d: children's inclusive %r > its inclusive %r"
                            % (i, child_incl[i], n["inclusive"]))
    return problems


def read_folded(path):
    """{"main;solve": microseconds} from profile.folded (a directory or the file)."""
    if os.path.isdir(path):
        path = os.path.join(path, "profile.folded")
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, value = line.rpartition(" ")
            out[stack] = out.get(stack, 0) + int(value)
    return out
