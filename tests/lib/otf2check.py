"""Reading and checking instr's OTF2 traces (docs/tracing.md) in tests, through `otf2-print`.

Import from a test with:
    sys.path.insert(0, "<source>/tests/lib"); import otf2check as T
    tr = T.load("<experiment dir>")          # otf2-print -A -Werror <dir>/traces.otf2
    tr.problems() == []                       # list of problems, empty when fine
    tr.enters_by_region()["main"] == 1
    tr.regions[0]["file"], tr.locations[0]["events"], tr.flushes
    tr.metric_values[0]                      # [(timestamp, [(metric, value)])] per METRIC
    tr.attributes[(0, 5)]                    # {name: value} of location 0's event 5

load() raises TraceError when otf2-print fails or says anything on stderr, so a trace that
loads was read completely. Python 3 standard library only.
"""
import os
import re
import shutil
import subprocess


class TraceError(Exception):
    pass


OTF2_PRINT = os.environ.get("OTF2_PRINT") or shutil.which("otf2-print") or "otf2-print"
OTF2_MARKER = os.environ.get("OTF2_MARKER") or shutil.which("otf2-marker") or "otf2-marker"

_STRING = re.compile(r'^STRING\s+(\d+)\s+"(.*)"$')
_REGION = re.compile(r'^REGION\s+(\d+)\s+Name: ".*" <(\d+)> \(Aka\. ".*" <(\d+)>\), '
                     r'Descr\.: ".*" <(\d+)>, Role: (\w+), Paradigm: (\w+), Flags: (\w+), '
                     r'File: ".*" <(\d+)>, Begin: (\d+), End: (\d+)$')
_LOCATION = re.compile(r'^LOCATION\s+(\d+)\s+Name: ".*" <(\d+)>, Type: (\w+), '
                       r'# Events: (\d+), Group: ".*" <(\d+)>$')
_CLOCK = re.compile(r'^CLOCK_PROPERTIES\s+Ticks per Seconds: (\d+), Global Offset: (\d+), '
                    r'Length: (\d+)')
_EVENT = re.compile(r'^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$')
_REF = re.compile(r'<(\d+)>$')
_VALUE = re.compile(r'\("(.*?)" <\d+>; (\w+); ([^)]*)\)')


def anchor(path):
    """<dir>/traces.otf2 for an experiment directory, or the anchor file itself."""
    if os.path.isdir(path):
        path = os.path.join(path, "traces.otf2")
    if not os.path.isfile(path):
        raise TraceError("no OTF2 anchor file %s" % path)
    return path


def run_marker(path):
    """Runs otf2-marker on the archive; raises unless it reads it without complaint."""
    p = subprocess.run([OTF2_MARKER, anchor(path)], capture_output=True)
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0 or err.strip():
        raise TraceError("otf2-marker failed (%d): %s" % (p.returncode, err[:2000]))
    return p.stdout.decode(errors="replace")


class Trace:
    def __init__(self):
        self.strings = {}     # ref -> text
        self.regions = {}     # ref -> {name, canonical, description, role, paradigm, flags,
                              #         file, begin, end}
        self.locations = {}   # ref -> {name, type, events (from the definition), group}
        self.clock = None     # (ticks per second, global offset, length)
        self.events = {}      # location ref -> [(type, timestamp, region ref or None)]
        self.flushes = 0      # BUFFER_FLUSH records over all locations
        self.other = {}       # other event type -> count
        self.metric_values = {}  # location ref -> [(timestamp, [(member name, value)])],
                                 # one entry per METRIC record (value int or float)
        self.attributes = {}  # (location ref, index in events[loc]) -> {attribute name: value}

    def enters_by_region(self, location=None):
        """{region name: Enter records}, over all locations or one."""
        out = {}
        for loc, evs in self.events.items():
            if location is not None and loc != location:
                continue
            for typ, _, reg in evs:
                if typ == "ENTER":
                    name = self.regions[reg]["name"]
                    out[name] = out.get(name, 0) + 1
        return out

    def region_by_name(self, name):
        found = [r for r in self.regions.values() if r["name"] == name]
        if len(found) != 1:
            raise TraceError("%d regions named %r" % (len(found), name))
        return found[0]

    def total_events(self):
        return sum(len(e) for e in self.events.values())

    def problems(self):
        """Violations of what docs/tracing.md promises, as strings (empty when fine):
        per location, Enter/Leave balanced and properly nested, timestamps non-decreasing and
        inside the clock range, the definition's event count equal to the records read;
        every referenced region and location defined."""
        out = []
        if self.clock is None:
            out.append("no CLOCK_PROPERTIES definition")
        for loc, evs in sorted(self.events.items()):
            where = "location %d" % loc
            if loc not in self.locations:
                out.append("%s: events for an undefined location" % where)
                continue
            if self.locations[loc]["events"] != len(evs):
                out.append("%s: definition says %d events, %d read"
                           % (where, self.locations[loc]["events"], len(evs)))
            stack, last = [], None
            for i, (typ, ts, reg) in enumerate(evs):
                if last is not None and ts < last:
                    out.append("%s: event %d goes back in time (%d < %d)" % (where, i, ts, last))
                last = ts
                if self.clock and not (self.clock[1] <= ts <= self.clock[1] + self.clock[2]):
                    out.append("%s: event %d at %d outside the clock range %r"
                               % (where, i, ts, self.clock))
                if typ in ("ENTER", "LEAVE") and reg not in self.regions:
                    out.append("%s: event %d: undefined region %r" % (where, i, reg))
                if typ == "ENTER":
                    stack.append(reg)
                elif typ == "LEAVE":
                    if not stack:
                        out.append("%s: event %d: LEAVE %r with nothing open" % (where, i, reg))
                    elif stack[-1] != reg:
                        out.append("%s: event %d: LEAVE %r, innermost open is %r"
                                   % (where, i, reg, stack[-1]))
                        stack.pop()
                    else:
                        stack.pop()
                if len(out) > 50:
                    return out
            if stack:
                out.append("%s: %d region(s) never left: %r" % (where, len(stack), stack[-5:]))
        for loc, d in self.locations.items():
            if d["events"] and loc not in self.events:
                out.append("location %d: defined with %d events, none read" % (loc, d["events"]))
        return out


def load(path):
    """Reads the archive with `otf2-print -A -Werror` (anchor, definitions, events); a Trace. Raises TraceError if otf2-print fails,
    writes to stderr, or prints something this parser does not know."""
    p = subprocess.run([OTF2_PRINT, "-A", "-Werror", anchor(path)], capture_output=True)
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0 or err.strip():
        raise TraceError("otf2-print failed (%d): %s" % (p.returncode, err[:2000]))
    tr = Trace()
    section = None
    pending_regions = []
    pending_locations = []
    last_event = None
    for line in p.stdout.decode(errors="replace").splitlines():
        if line.startswith("=== Global Definitions"):
            section = "defs"
            continue
        if line.startswith("=== Events"):
            section = "events"
            continue
        if line.startswith("Content of OTF2 anchor file"):
            section = "anchor"
            continue
        if (not line.strip() or line.startswith("===") or line.startswith("---")
                or line.startswith("Definition ") or line.startswith("Event ")):
            continue
        if section == "defs":
            m = _STRING.match(line)
            if m:
                tr.strings[int(m.group(1))] = m.group(2)
                continue
            m = _REGION.match(line)
            if m:
                pending_regions.append(m.groups())
                continue
            m = _LOCATION.match(line)
            if m:
                pending_locations.append(m.groups())
                continue
            m = _CLOCK.match(line)
            if m:
                tr.clock = tuple(int(x) for x in m.groups())
            continue
        if section == "events":
            if line.lstrip().startswith("ADDITIONAL ATTRIBUTES:"):
                if last_event is None:
                    raise TraceError("attributes before any event: %r" % line)
                tr.attributes[last_event] = {
                    name: float(v) if kind == "DOUBLE" else
                    int(v, 0) if kind.startswith(("UINT", "INT")) else v
                    for name, kind, v in _VALUE.findall(line)}
                continue
            m = _EVENT.match(line)
            if not m:
                raise TraceError("cannot parse event line %r" % line)
            typ, loc, ts, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
            reg = None
            if typ in ("ENTER", "LEAVE"):
                r = _REF.search(rest)
                if not r:
                    raise TraceError("no region in %r" % line)
                reg = int(r.group(1))
            elif typ == "BUFFER_FLUSH":
                tr.flushes += 1
            else:
                tr.other[typ] = tr.other.get(typ, 0) + 1
            if typ == "METRIC":
                vals = [(name, float(v) if kind == "DOUBLE" else int(v))
                        for name, kind, v in _VALUE.findall(rest)]
                tr.metric_values.setdefault(loc, []).append((ts, vals))
            tr.events.setdefault(loc, []).append((typ, ts, reg))
            last_event = (loc, len(tr.events[loc]) - 1)
    s = tr.strings
    for (ref, name, canon, descr, role, paradigm, flags, file, begin, end) in pending_regions:
        tr.regions[int(ref)] = {
            "name": s[int(name)], "canonical": s[int(canon)], "description": s[int(descr)],
            "role": role, "paradigm": paradigm, "flags": flags, "file": s[int(file)],
            "begin": int(begin), "end": int(end)}
    for (ref, name, typ, events, group) in pending_locations:
        tr.locations[int(ref)] = {"name": s[int(name)], "type": typ, "events": int(events),
                                  "group": int(group)}
    return tr
