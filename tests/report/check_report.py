#!/usr/bin/env python3
"""check_report.py — profile.html and instr-export, checked the way a user meets them.

  check_report.py CASE --bin <tests/report build dir> --export <instr-export> --work DIR
                  [--instr <instr> --mpicc <mpicc> --mpirun <mpirun>] --lib <tests/lib>

Cases:
  html_single   a 3-thread run's profile.html in headless Chromium: one frame per call path,
                one table row per region, the spread over the threads, no network request,
                a screenshot (DIR/profile.png)
  html_metrics  a run with rusage metrics: the flat profile's metric columns per region and
                the hover text of every call path (real mouse events through the DevTools
                protocol) against profile.json
  html_interactions
                profile.html with real mouse and key events: click to zoom and select, click
                a caller, reset zoom, search, sort the flat profile
  formats       INSTR_PROFILING_FORMAT picks the files; a bad word is named and ignored
  aggregate     a 12,000-path, 1,000-thread profile: what is too small is aggregated, every
                path accounted for, the table and the spread stay bounded
  html_heat     the heat demo's profile.html (GCC plugin through the wrapper)
  html_mpi      the MPI job's profile.html (4 ranks, 2 threads each): spread per rank
  chrome_threads, chrome_mpi
                instr-export --chrome round-trips the trace: complete events per location
                and region equal the Enter records, every MPI message one matched flow
  speedscope_install
                set-up: npm installs the pinned speedscope into the build tree (skips when
                npm or the registry is missing, and the speedscope cases skip with the reason)
  speedscope    instr-export --speedscope and --chrome of a run loaded into speedscope in
                headless Chromium (DevTools protocol): no error, the title, the profiles, the
                sandwich view's times against the file, every frame painted in the chart
  metric_exports
                a traced run with rusage metrics: --folded --metric NAME for each metric,
                --chrome's counters against otf2-print's METRIC records
  speedscope_mpi
                the MPI job's --speedscope (a profile per rank and thread) and --chrome,
                checked and loaded into speedscope
  memory        instr-export --chrome on a trace and on one 10x longer: peak memory printed
                and required to stay flat
Exit 77 (skipped) with a message when Chromium, MPI, OTF2 tools or speedscope are missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import browser  # noqa: E402

MPIRUN_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def skip(msg):
    print("SKIP: " + msg, flush=True)
    sys.exit(browser.SKIP)


def expect(cond, msg):
    if not cond:
        fail(msg)


def run(cmd, env=None, cwd=None, timeout=300):
    print("$ " + " ".join(cmd), flush=True)
    full = dict(os.environ)
    full.update(env or {})
    p = subprocess.run(cmd, env=full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    if p.returncode != 0:
        fail("%s exited %d:\n%s%s" % (cmd[0], p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def need_chromium():
    c = browser.find()
    if not c:
        skip("chromium is not installed (Debian: apt-get install chromium; "
             "scripts/install-deps.sh does it): the browser checks did not run")
    return c


def render(args, html, name):
    """DOM of html in headless Chromium, after checking that it made no network request."""
    shot = os.path.join(args.work, name + ".png")
    dom, reqs = browser.render(need_chromium(), "file://" + os.path.abspath(html), args.work,
                               screenshot=shot)
    expect(not reqs, "%s requested %r: the page must not touch the network" % (html, reqs))
    expect(os.path.getsize(shot) > 1000, "screenshot %s is empty" % shot)
    print("screenshot: %s" % shot)
    d = browser.Dom(dom)
    expect(d.by_id("flame") is not None, "no #flame in the rendered page")
    expect(d.by_id("summary")[2].strip(), "the summary is empty: the page's script did not run")
    return d


def frames(d):
    """(call paths drawn with their own frame, in aggregated frames) as the DOM says them, and
    the number of frame elements that stand for a call path."""
    attrs = d.by_id("flame")[1]
    own = [e for e in d.with_class("frame") if "ancestor" not in e[1]["class"]
           and e[1].get("data-node", "-1") != "-1"]
    return int(attrs["data-frames"]), int(attrs["data-aggregated"]), len(own)


def experiment(work):
    exps = [os.path.join(work, e) for e in os.listdir(work) if e.startswith("instr-")]
    expect(len(exps) == 1, "experiments in %s: %r" % (work, exps))
    return exps[0]


# ---- profile.html of one process

def case_html_single(args):
    chromium = need_chromium()
    # The network check must be able to fail: a page that loads an image is caught.
    bait = os.path.join(fresh(os.path.join(args.work, "bait")), "bait.html")
    with open(bait, "w") as f:
        f.write('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"></body></html>')
    _, reqs = browser.render(chromium, "file://" + bait, os.path.dirname(bait))
    expect(reqs == ["http://127.0.0.1:9/x.png"], "the network check missed a page's request: %r"
           % reqs)
    run([os.path.join(args.bin, "report_tree")], cwd=fresh(os.path.join(args.work, "run")))
    exp = experiment(os.path.join(args.work, "run"))
    prof = json.load(open(os.path.join(exp, "profile.json")))
    tree = prof["tree"]
    total = sum(n["inclusive"] for n in tree if n["parent"] is None)
    expect(len(tree) == 7, "report_tree has 7 call paths, the profile %d" % len(tree))
    # Every call path has a few per cent of the program's work, but the times are
    # wall-clock: on a loaded machine a thread that waits long for a core can make another
    # path's share tiny (0.2 % was seen), and the page rightly folds a path narrower than 2
    # pixels into a "[N small]" frame. So: every path of at least 1 % of the run has a frame
    # of its own, and every path is either drawn or in an aggregated frame.
    big = {n["id"] for n in tree if n["inclusive"] >= total / 100}
    if len(big) < len(tree):
        print("call paths below 1 %% of this run (a thread waited for a core?): %r"
              % [(n["id"], n["inclusive"], total) for n in tree if n["id"] not in big])
    d = render(args, os.path.join(exp, "profile.html"), "profile")
    drawn, aggregated, elements = frames(d)
    print("frames drawn %d, aggregated %d, frame elements %d; call paths %d, %d of them at "
          "least 1 %% of the run" % (drawn, aggregated, elements, len(tree), len(big)))
    own = {int(e[1]["data-node"]) for e in d.with_class("frame")
           if "ancestor" not in e[1]["class"] and e[1].get("data-node", "-1") != "-1"}
    expect(big <= own, "icicle: call paths %r of at least 1 %% of the run have no frame of "
           "their own" % sorted(big - own))
    expect(drawn + aggregated == len(tree) and elements == drawn and len(own) == drawn,
           "icicle: %d frames drawn, %d aggregated, %d elements; expected the %d call paths "
           "drawn or aggregated, each drawn one an element" % (drawn, aggregated, elements,
                                                               len(tree)))
    rows = d.with_class("name")
    rows = [r for r in rows if r[0] == "td"]
    names = sorted(r[2] for r in rows)
    want = sorted(r["name"] for r in prof["regions"]
                  if any(f["region"] == r["id"] for f in prof["flat"]))
    print("table rows: %r" % names)
    expect(names == want, "flat table rows %r, expected the regions %r" % (names, want))
    # The hottest root is selected: its spread over the threads that ran it.
    spread = d.by_id("spread")
    root = tree[0]
    expect(int(spread[1].get("data-locations", -1)) == len(root["locations"]),
           "spread lists %s locations, the hottest root ran on %d"
           % (spread[1].get("data-locations"), len(root["locations"])))
    expect("Threads (%d of %d)" % (len(root["locations"]), len(prof["locations"])) in spread[2],
           "spread text: %r" % spread[2][:300])
    expect("outlier" in spread[2], "the spread names no outlier: %r" % spread[2][:300])


def case_html_heat(args):
    """The heat demo (examples/heat) built with the GCC plugin through the wrapper."""
    need_chromium()
    if not args.instr:
        skip("the instr wrapper is not built: the heat demo's report was not checked")
    work = fresh(args.work)
    exe = os.path.join(work, "heat")
    run([args.instr, "gcc", "-O2", os.path.join(args.source, "examples", "heat", "heat.c"),
         "-o", exe, "-lm"], cwd=work)
    run([exe], cwd=work)
    exp = experiment(work)
    prof = json.load(open(os.path.join(exp, "profile.json")))
    d = render(args, os.path.join(exp, "profile.html"), "heat")
    drawn, aggregated, elements = frames(d)
    print("heat: call paths %d, drawn %d, aggregated %d" % (len(prof["tree"]), drawn, aggregated))
    expect(drawn + aggregated == len(prof["tree"]) and elements == drawn and drawn >= 2,
           "drawn %d + aggregated %d != %d call paths (elements %d)"
           % (drawn, aggregated, len(prof["tree"]), elements))
    rows = sorted(r[2] for r in d.with_class("name") if r[0] == "td")
    names = {r["id"]: r["name"] for r in prof["regions"]}
    expect(rows == sorted(names[f["region"]] for f in prof["flat"]),
           "table rows %r" % rows)
    expect("update_row" in rows, "update_row is not in the flat profile: %r" % rows)


def case_formats(args):
    tree = os.path.join(args.bin, "report_tree")
    cases = [("json,txt", {"profile.json", "profile.txt"}, None),
             ("html", {"profile.html"}, None),
             ("none", set(), None),
             ("all", {"profile.json", "profile.txt", "profile.folded", "profile.html", "profile.cubex"}, None),
             ("json, bogus ,html", {"profile.json", "profile.html"}, "bogus")]
    for i, (value, files, bad) in enumerate(cases):
        work = fresh(os.path.join(args.work, "f%d" % i))
        p = run([tree], env={"INSTR_PROFILING_FORMAT": value}, cwd=work)
        exp = experiment(work)
        got = {f for f in os.listdir(exp) if f.startswith("profile.")}
        expect(got == files, "INSTR_PROFILING_FORMAT=%r wrote %r, expected %r" % (value, got, files))
        warned = [l for l in p.stderr.splitlines() if "INSTR_PROFILING_FORMAT" in l]
        if bad:
            expect(len(warned) == 1 and bad in warned[0] and "json, txt, folded, cubex, html"
                   in warned[0], "warning for %r: %r" % (value, warned))
            print("warning: " + warned[0])
        else:
            expect(not warned, "INSTR_PROFILING_FORMAT=%r warned: %r" % (value, warned))
        cfg = open(os.path.join(exp, "instr.cfg")).read()
        expect("INSTR_PROFILING_FORMAT" in cfg, "instr.cfg does not record INSTR_PROFILING_FORMAT")


# ---- profile.html through the DevTools protocol: metrics, hover

def open_page(chromium, html, work):
    """A cdp.Browser showing profile.html, after its script finished drawing."""
    import cdp
    b = cdp.Browser(chromium, work)
    try:
        b.navigate("file://" + os.path.abspath(html))
        b.wait_for("document.body.dataset.ready == '1'", "profile.html drew its views")
    except cdp.Error as e:
        b.close()
        fail("%s in headless Chromium: %s" % (html, e))
    return b


FLAT_HEADS = """Array.from(document.querySelectorAll('#flat thead th')).map(th =>
  [th.textContent, th.dataset.metric || '', th.dataset.kind || ''])"""
FLAT_ROWS = """Array.from(document.querySelectorAll('#flat tbody tr')).map(tr =>
  Array.from(tr.cells).map(td => td.textContent))"""
TIP = "document.getElementById('tip').hidden ? null : document.getElementById('tip').textContent"


def region_metrics(prof):
    """{region name: {metric: (inclusive, exclusive)}} as the flat profile should show them:
    exclusive summed over the region's call paths, inclusive over its outermost ones."""
    names = {r["id"]: r["name"] for r in prof["regions"]}
    metrics = [m["name"] for m in prof["metrics"]]
    tree = prof["tree"]
    out = {}
    for n in tree:
        outer, p = True, n["parent"]
        while p is not None:
            outer = outer and tree[p]["region"] != n["region"]
            p = tree[p]["parent"]
        r = out.setdefault(names[n["region"]], {m: (0, 0) for m in metrics})
        for i, m in enumerate(metrics):
            inc, exc = r[m]
            r[m] = (inc + (n["metrics"]["inclusive"][i] if outer else 0),
                    exc + n["metrics"]["exclusive"][i])
    return out


def case_html_metrics(args):
    """A run with two rusage metrics: profile.html shows them per region in the flat profile
    and per call path on hover (profile.json version 2 keeps them in node.metrics)."""
    chromium = need_chromium()
    work = fresh(os.path.join(args.work, "run"))
    run([os.path.join(args.bin, "report_tree")],
        env={"INSTR_METRIC_RUSAGE": "ru_minflt,ru_utime"}, cwd=work)
    exp = experiment(work)
    prof = json.load(open(os.path.join(exp, "profile.json")))
    metrics = [m["name"] for m in prof.get("metrics", [])]
    expect(metrics == ["ru_minflt", "ru_utime"], "metrics in profile.json: %r" % metrics)
    want = region_metrics(prof)
    expect(any(v[0] or v[1] for r in want.values() for v in r.values()),
           "every metric is 0 in every region: nothing to check the page against")
    b = open_page(chromium, os.path.join(exp, "profile.html"), args.work)
    with b:
        heads = b.evaluate(FLAT_HEADS)
        rows = b.evaluate(FLAT_ROWS)
        col = {(h[1], h[2]): i for i, h in enumerate(heads) if h[1]}
        print("flat columns: %r" % [h[0] for h in heads])
        for m in metrics:
            for kind in ("inclusive", "exclusive"):
                expect((m, kind) in col, "the flat profile has no column for %s %s: %r"
                       % (m, kind, [h[0] for h in heads]))
        expect(len(col) == 2 * len(metrics), "metric columns %r" % sorted(col))
        expect(sorted(r[0] for r in rows) == sorted(want), "flat rows %r" % [r[0] for r in rows])
        for r in rows:
            for m in metrics:
                got = (r[col[(m, "inclusive")]], r[col[(m, "exclusive")]])
                expect(got == tuple(str(v) for v in want[r[0]][m]),
                       "flat profile, %s, %s: shows inclusive %s, exclusive %s; profile.json "
                       "gives %r" % (r[0], m, got[0], got[1], want[r[0]][m]))
        print("flat profile: %s per region as profile.json: %s" % (", ".join(metrics), ", ".join(
            "%s %s" % (k, "/".join("%d:%d" % v for v in want[k].values())) for k in sorted(want))))
        # Hover every call path's frame: its metrics, inclusive and exclusive.
        names = {r["id"]: r["name"] for r in prof["regions"]}
        for n in prof["tree"]:
            b.hover('#flame .frame[data-node="%d"]' % n["id"])
            tip = b.evaluate(TIP)
            expect(tip and tip.split("\n")[0] == names[n["region"]],
                   "hovering call path %d (%s) shows %r" % (n["id"], names[n["region"]], tip))
            for i, m in enumerate(prof["metrics"]):
                line = "%s: inclusive %s, exclusive %s" % (m["name"], n["metrics"]["inclusive"][i],
                                                           n["metrics"]["exclusive"][i])
                expect(any(l.startswith(line) for l in tip.split("\n")),
                       "hovering %s: no line %r in %r" % (names[n["region"]], line, tip))
        print("hover: metrics of all %d call paths shown; e.g.\n  %s"
              % (len(prof["tree"]), tip.replace("\n", "\n  ")))
        expect(not b.problems(), "profile.html reported: %r" % b.problems())
        expect(not b.requests(), "profile.html requested %r" % b.requests())


FLAME = """(() => { const f = document.getElementById('flame'), W = f.clientWidth;
  return {focus: +f.dataset.focus, frames: +f.dataset.frames, width: W,
    own: Array.from(f.querySelectorAll('.frame')).filter(e => !e.classList.contains('ancestor')
      && !e.classList.contains('agg') && e.dataset.node != '-1').map(e => [+e.dataset.node,
      e.getBoundingClientRect().width, e.classList.contains('selected'), e.classList.contains('match')]),
    ancestors: Array.from(f.querySelectorAll('.frame.ancestor')).map(e => +e.dataset.node),
    spread: +document.getElementById('spread').dataset.locations,
    info: document.getElementById('search-info').textContent}; })()"""


def case_html_interactions(args):
    """profile.html used as a user does, with real mouse and key events through the DevTools
    protocol: click a frame (zoom and select), click its caller, reset; search; sort the flat
    profile by a column and back."""
    chromium = need_chromium()
    work = fresh(os.path.join(args.work, "run"))
    run([os.path.join(args.bin, "report_tree")], cwd=work)
    exp = experiment(work)
    prof = json.load(open(os.path.join(exp, "profile.json")))
    tree = prof["tree"]
    names = {r["id"]: r["name"] for r in prof["regions"]}
    kids = {}
    for n in tree:
        kids.setdefault(n["parent"], []).append(n["id"])

    def subtree(i):
        return 1 + sum(subtree(k) for k in kids.get(i, []))

    solve = [n for n in tree if names[n["region"]] == "solve"]
    expect(len(solve) == 1 and kids.get(solve[0]["id"]), "report_tree has one solve with callees")
    solve = solve[0]
    with open_page(chromium, os.path.join(exp, "profile.html"), args.work) as b:
        f0 = b.evaluate(FLAME)
        expect(f0["focus"] == -1 and f0["frames"] == len(tree), "at the start: %r" % f0)
        # Click solve: it fills the width, its callers stay above, its subtree is drawn.
        b.click('#flame .frame[data-node="%d"]:not(.ancestor)' % solve["id"])
        f = b.evaluate(FLAME)
        own = {e[0]: e for e in f["own"]}
        expect(f["focus"] == solve["id"] and f["frames"] == subtree(solve["id"]) == len(own),
               "after clicking solve (%d call paths below it): %r" % (subtree(solve["id"]), f))
        expect(abs(own[solve["id"]][1] - f["width"]) <= 1 and own[solve["id"]][2],
               "the zoomed frame is %.1f of %d pixels wide, selected %r"
               % (own[solve["id"]][1], f["width"], own[solve["id"]][2]))
        expect(f["ancestors"][-1] == solve["parent"], "callers above solve: %r" % f["ancestors"])
        expect(f["spread"] == len(solve["locations"]), "the spread shows %d locations, solve ran "
               "on %d" % (f["spread"], len(solve["locations"])))
        print("click solve: zoomed (%d frames), callers %r above, selected" % (f["frames"], f["ancestors"]))
        # Click the caller above: zoom out one level.
        b.click('#flame .frame.ancestor[data-node="%d"]' % solve["parent"])
        f = b.evaluate(FLAME)
        expect(f["focus"] == solve["parent"] and f["frames"] == subtree(solve["parent"]),
               "after clicking the caller: %r" % f)
        b.click("#reset")
        f = b.evaluate(FLAME)
        expect(f["focus"] == -1 and f["frames"] == len(tree), "after reset zoom: %r" % f)
        print("click the caller, then reset zoom: %d frames again" % f["frames"])
        # Search: the frames whose name holds the text are marked; the line says how many
        # call paths and what share of the time (outermost matches only).
        b.type_text("#search", "KERN")
        f = b.evaluate(FLAME)
        hits = [n for n in tree if "kern" in names[n["region"]].lower()]
        marked = sorted(e[0] for e in f["own"] if e[3])
        expect(marked == sorted(n["id"] for n in hits), "search 'KERN' marked %r, expected %r"
               % (marked, [n["id"] for n in hits]))
        total = sum(n["inclusive"] for n in tree if n["parent"] is None)
        share = 100.0 * sum(n["inclusive"] for n in hits) / total   # no kernel calls kernel
        info = f["info"].split()
        expect(len(info) >= 5 and info[0] == str(len(hits)) and abs(float(info[4]) - share) <= 0.051,
               "search line %r, expected %d call paths, %.1f %%" % (f["info"], len(hits), share))
        print("search 'KERN': %s" % f["info"])
        # Sort: a column's header sorts by it, descending; again, ascending.
        heads = b.evaluate(FLAT_HEADS)
        col = [h[0] for h in heads].index("exclusive")
        for clicks, desc in ((1, True), (2, False)):
            if clicks == 1:
                b.click("#flat thead th:nth-child(%d)" % (col + 2))   # away from the default
            b.click("#flat thead th:nth-child(%d)" % (col + 1))
            rows = [r[0] for r in b.evaluate(FLAT_ROWS)]
            want = [names[x["region"]] for x in sorted(prof["flat"], key=lambda x: x["exclusive"],
                                                       reverse=desc)]
            expect(rows == want, "sorted by exclusive time, %s: %r, expected %r"
                   % ("descending" if desc else "ascending", rows, want))
        b.click("#flat thead th:nth-child(1)")
        rows = [r[0] for r in b.evaluate(FLAT_ROWS)]
        expect(rows == sorted(rows), "sorted by name: %r" % rows)
        print("sort: exclusive descending, ascending, by name: as profile.json orders them")
        expect(not b.problems(), "profile.html reported: %r" % b.problems())


# ---- many call paths and locations

def synthetic(nodes, nlocs, nregions):
    """A profile.json with `nodes` call paths over `nregions` regions on `nlocs` threads: a
    few heavy paths and a long tail of tiny ones, as real codes have."""
    regions = [{"id": r + 1, "name": "region_%d" % r, "mangled": "region_%d" % r, "file": "",
                "line_begin": 0, "line_end": 0, "source": "hooks", "object": ""}
               for r in range(nregions)]
    tree, kids = [], {}
    for i in range(nodes):
        parent = None if i == 0 else (i - 1) // 8   # an 8-ary tree, put in pre-order below
        tree.append({"id": i, "parent": parent, "region": i % nregions + 1})
    # children lists, then pre-order ids
    for n in tree:
        if n["parent"] is not None:
            kids.setdefault(n["parent"], []).append(n["id"])
    order, stack = [], [0]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(kids.get(i, [])))
    new = {old: k for k, old in enumerate(order)}
    excl = {i: (10 ** 9 if i < 10 else 1000 + i) for i in range(nodes)}
    incl = dict(excl)
    for i in reversed(order):
        if tree[i]["parent"] is not None:
            incl[tree[i]["parent"]] += incl[i]
    depth = {0: 0}
    for i in order:
        if tree[i]["parent"] is not None:
            depth[i] = depth[tree[i]["parent"]] + 1
    out = []
    for old in order:
        n = tree[old]
        locs = []
        if old == 0:
            for l in range(nlocs):  # the root ran everywhere, thread 7 much longer
                share = incl[0] // nlocs * (5 if l == 7 else 1)
                locs.append({"location": l, "visits": 1, "inclusive": share, "exclusive": share // 2})
        else:
            locs.append({"location": old % nlocs, "visits": 1, "inclusive": incl[old],
                         "exclusive": excl[old]})
        out.append({"id": new[old], "parent": None if n["parent"] is None else new[n["parent"]],
                    "depth": depth[old], "region": n["region"], "visits": 1,
                    "inclusive": incl[old], "exclusive": excl[old], "locations": locs})
    flat = {}
    for n in out:
        f = flat.setdefault(n["region"], {"region": n["region"], "visits": 0, "inclusive": 0,
                                          "exclusive": 0})
        f["visits"] += 1
        f["exclusive"] += n["exclusive"]
        f["inclusive"] += n["inclusive"]
    return {"format": "instr-profile", "version": 1, "time_unit": "ns",
            "run": {"program": "synthetic </script><b>not markup</b>", "duration": incl[0]},
            "location_groups": [{"id": 0, "kind": "process", "name": "process 1", "pid": 1}],
            "locations": [{"id": l, "group": 0, "kind": "thread", "name": "thread %d" % l}
                          for l in range(nlocs)],
            "regions": regions, "tree": out, "flat": list(flat.values())}


def case_aggregate(args):
    need_chromium()
    fresh(args.work)
    nodes, nlocs, nregions = 12000, 1000, 5000
    src = os.path.join(args.work, "profile.json")
    with open(src, "w") as f:
        json.dump(synthetic(nodes, nlocs, nregions), f)
    html = os.path.join(args.work, "profile.html")
    run([args.export, "--html", src, "-o", html])
    d = render(args, html, "aggregate")
    drawn, aggregated, elements = frames(d)
    print("call paths %d: drawn %d, aggregated %d, frame elements %d"
          % (nodes, drawn, aggregated, elements))
    expect(drawn + aggregated == nodes, "drawn %d + aggregated %d != %d call paths"
           % (drawn, aggregated, nodes))
    expect(elements == drawn, "%d frame elements for %d frames drawn" % (elements, drawn))
    expect(0 < drawn < 2000, "%d frames drawn of %d: nothing was aggregated" % (drawn, nodes))
    expect(d.with_class("agg"), "no aggregated frame drawn")
    rows = [r for r in d.with_class("name") if r[0] == "td"]
    expect(len(rows) == 1000, "the flat table shows %d rows, expected the first 1000" % len(rows))
    expect("of %d regions" % nregions in d.by_id("flat-note")[2],
           "the table does not say rows were left out: %r" % d.by_id("flat-note")[2])
    bars = d.with_class("bar")
    expect(0 < len(bars) <= 200, "%d bars for 1000 threads" % len(bars))
    spread = d.by_id("spread")[2]
    expect("Threads (1000 of 1000)" in spread and "thread 7" in spread,
           "spread of the root: %r" % spread[:400])
    expect(not [e for e in d.elements if e[0] == "b"] and d.with_class("title")
           and "</script><b>not markup</b>" in d.with_class("title")[0][2],
           "a name with markup was not shown as text: %r" % d.by_id("summary")[2][:200])


# ---- MPI

def build_mpi(args, work):
    if not (args.instr and args.mpicc and args.mpirun):
        skip("MPI (mpicc, mpirun) or the instr wrapper is missing: the MPI report was not checked")
    exe = os.path.join(work, "mpi_threads")
    run([args.instr, args.mpicc, "-O1", "-pthread", os.path.join(HERE, "progs", "mpi_threads.c"),
         "-o", exe], cwd=work)
    return exe


def run_mpi(args, exe, work, env):
    cmd = [args.mpirun, "-np", "4"] + MPIRUN_FLAGS
    for k, v in env.items():
        cmd += ["-x", "%s=%s" % (k, v)]
    run(cmd + [exe], env=env, cwd=work)
    return experiment(work)


def case_html_mpi(args):
    need_chromium()
    work = fresh(args.work)
    exp = run_mpi(args, build_mpi(args, work), work, {})
    prof = json.load(open(os.path.join(exp, "profile.json")))
    expect(len(prof["location_groups"]) == 4, "job profile has %d ranks"
           % len(prof["location_groups"]))
    d = render(args, os.path.join(exp, "profile.html"), "profile_mpi")
    drawn, aggregated, elements = frames(d)
    print("call paths %d: drawn %d, aggregated %d" % (len(prof["tree"]), drawn, aggregated))
    expect(drawn + aggregated == len(prof["tree"]) and elements == drawn,
           "drawn %d + aggregated %d != %d call paths (elements %d)"
           % (drawn, aggregated, len(prof["tree"]), elements))
    rows = [r for r in d.with_class("name") if r[0] == "td"]
    expect(len(rows) == len(prof["flat"]), "%d table rows for %d regions"
           % (len(rows), len(prof["flat"])))
    spread = d.by_id("spread")[2]
    root = prof["tree"][0]
    groups = {l["group"] for l in prof["locations"] if any(
        x["location"] == l["id"] for x in root["locations"])}
    expect("Ranks (%d of 4)" % len(groups) in spread and "rank " in spread,
           "spread per rank missing: %r" % spread[:500])
    print("spread: " + " ".join(spread.split())[:300])


# ---- Chrome trace-event export

def load_trace(args, exp):
    sys.path.insert(0, args.lib)
    import otf2check as T
    if not shutil.which(T.OTF2_PRINT):
        skip("otf2-print is not installed (%r; Debian: apt-get install otf2-tools, "
             "scripts/install-deps.sh does it): the export was not checked against the trace"
             % T.OTF2_PRINT)
    tr = T.load(exp)
    expect(not tr.problems(), "trace problems: %r" % tr.problems()[:5])
    return tr


def round_trip(args, exp, out):
    tr = load_trace(args, exp)
    run([args.export, "--chrome", os.path.join(exp, "traces.otf2"), "-o", out])
    with open(out) as f:
        events = json.load(f)["traceEvents"]
    tracks = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            tracks[(e["pid"], e["tid"])] = e["args"]["otf2_location"]
    got = {}
    for e in events:
        if e["ph"] == "X":
            loc = tracks[(e["pid"], e["tid"])]
            got.setdefault(loc, {})
            got[loc][e["name"]] = got[loc].get(e["name"], 0) + 1
            expect(e["dur"] >= 0, "negative duration: %r" % e)
    want = {}
    for loc in tr.events:
        c = tr.enters_by_region(loc)
        if c:
            want[loc] = c
    expect(got == want, "complete events per location and region differ from the Enter "
           "records:\n exported %r\n trace    %r" % (sorted(got.items())[:4], sorted(want.items())[:4]))
    print("regions per location match over %d locations (%d complete events)"
          % (len(want), sum(sum(c.values()) for c in want.values())))
    starts = [e["id"] for e in events if e["ph"] == "s"]
    ends = [e["id"] for e in events if e["ph"] == "f"]
    sends = sum(tr.other.get(k, 0) for k in ("MPI_SEND", "MPI_ISEND"))
    recvs = sum(tr.other.get(k, 0) for k in ("MPI_RECV", "MPI_IRECV"))
    expect(len(starts) == sends and len(ends) == recvs,
           "flows: %d starts for %d sends, %d ends for %d receives"
           % (len(starts), sends, len(ends), recvs))
    expect(sorted(starts) == sorted(ends) and len(set(starts)) == len(starts),
           "flows do not match one to one: %d unmatched starts, %d unmatched ends"
           % (len(set(starts) - set(ends)), len(set(ends) - set(starts))))
    print("messages: %d sends, %d receives, all matched" % (sends, recvs))
    return tr, events


def case_chrome_threads(args):
    work = fresh(os.path.join(args.work, "run"))
    run([os.path.join(args.bin, "report_tree")], env={"INSTR_ENABLE_TRACING": "1"}, cwd=work)
    tr, events = round_trip(args, experiment(work), os.path.join(args.work, "trace.json"))
    expect(len(tr.events) == 3, "report_tree traces 3 locations, found %d" % len(tr.events))


def case_chrome_damaged_anchor(args):
    """A damaged anchor file (traces.otf2, 4 bytes changed): --chrome says so in one line and
    exits 1 at once, for damage that OTF2 itself takes as it is (a count of properties the
    file cannot hold: OTF2 allocates for it and reads on past the end of the file, with
    growing memory; a chunk size of 0) and for a cut-short file; the undamaged anchor still
    exports. Bounded: 30 s and 2 GB of address space (the time alone under a sanitizer)."""
    import resource
    import time
    work = fresh(os.path.join(args.work, "run"))
    run([os.path.join(args.bin, "report_tree")], env={"INSTR_ENABLE_TRACING": "1"}, cwd=work)
    anchor = os.path.join(experiment(work), "traces.otf2")
    raw = open(anchor, "rb").read()
    props = raw.index(b"(docs/tracing.md)\x00") + len(b"(docs/tracing.md)\x00")
    expect(raw[props:props + 4] == bytes(4), "no property count after the description: %r"
           % raw[props - 20:props + 8])

    # A sanitizer's shadow memory is terabytes of address space: there only the time bounds it
    sanitized = any(lib in subprocess.run(["ldd", args.export], stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True).stdout
                    for lib in ("libasan", "libtsan", "libubsan"))

    def limit():
        if not sanitized:
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    def export():
        t = time.time()
        try:
            p = subprocess.run([args.export, "--chrome", "-o", os.devnull, anchor],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=30, preexec_fn=limit)
        except subprocess.TimeoutExpired:
            fail("instr-export --chrome did not end within 30 s")
        return p, time.time() - t

    p, _ = export()
    expect(p.returncode == 0, "the undamaged anchor: exit %d: %s" % (p.returncode, p.stderr))
    damages = (("16,777,216 properties", props, b"\x00\x00\x00\x01"),
               ("event chunk size 0", 12, bytes(4)),
               ("cut short", None, None))
    for what, at, data in damages:
        bad = raw[:len(raw) // 2] if at is None else raw[:at] + data + raw[at + 4:]
        with open(anchor, "wb") as fh:
            fh.write(bad)
        p, took = export()
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        expect(p.returncode == 1 and len(lines) == 1 and "damaged OTF2 anchor file" in lines[0],
               "%s: exit %d in %.1f s: %s" % (what, p.returncode, took, p.stderr[-2000:]))
        print("%s: %s (%.2f s)" % (what, lines[0], took))
    with open(anchor, "wb") as fh:
        fh.write(raw)


def case_chrome_mpi(args):
    work = fresh(args.work)
    exp = run_mpi(args, build_mpi(args, work), work, {"INSTR_ENABLE_TRACING": "1"})
    tr, events = round_trip(args, exp, os.path.join(args.work, "trace.json"))
    pids = {e["pid"] for e in events if e["ph"] == "X"}
    threads = {(e["pid"], e["tid"]) for e in events if e["ph"] == "X"}
    expect(len(pids) == 4 and len(threads) == 8, "%d processes, %d threads with events; expected "
           "4 ranks with 2 threads each" % (len(pids), len(threads)))
    sends = sum(tr.other.get(k, 0) for k in ("MPI_SEND", "MPI_ISEND"))
    expect(sends == 4 * 2 * 20, "%d sends in the trace, progs/mpi_threads.c makes %d"
           % (sends, 4 * 2 * 20))


# ---- metrics in the exports

def case_metric_exports(args):
    """A traced run with two rusage metrics: --folded --metric for each (the exclusive values
    of profile.json version 2), and --chrome's counter events against otf2-print's METRIC
    records, one counter track per thread and metric."""
    work = fresh(os.path.join(args.work, "run"))
    run([os.path.join(args.bin, "report_tree")],
        env={"INSTR_METRIC_RUSAGE": "ru_minflt,ru_utime", "INSTR_ENABLE_TRACING": "1"}, cwd=work)
    exp = experiment(work)
    src = os.path.join(exp, "profile.json")
    prof = json.load(open(src))
    metrics = [m["name"] for m in prof["metrics"]]
    expect(metrics == ["ru_minflt", "ru_utime"], "metrics in profile.json: %r" % metrics)
    names = {r["id"]: r["name"] for r in prof["regions"]}
    paths = {}
    for n in prof["tree"]:
        paths[n["id"]] = (paths[n["parent"]] + ";" if n["parent"] is not None else "") + names[n["region"]]
    for i, m in enumerate(metrics):
        text = run([args.export, "--folded", "--metric", m, src]).stdout
        got = {}
        for line in text.splitlines():
            stack, value = line.rsplit(" ", 1)
            got[stack] = got.get(stack, 0) + int(value)
        want = {}
        for n in prof["tree"]:
            v = n["metrics"]["exclusive"][i]
            if v:
                want[paths[n["id"]]] = want.get(paths[n["id"]], 0) + v
        expect(want, "%s is 0 on every call path: nothing to check --folded against" % m)
        expect(got == want, "--folded --metric %s: %r, profile.json's exclusive values %r"
               % (m, got, want))
        print("--folded --metric %s: %d stacks match profile.json (%s)" % (m, len(got), text.strip().replace("\n", ", ")))
    p = subprocess.run([args.export, "--folded", "--metric", "nope", src], capture_output=True, text=True)
    expect(p.returncode == 1 and "'nope'" in p.stderr and all(m in p.stderr for m in metrics)
           and "exclusive" in p.stderr, "unknown metric: exit %d, %r" % (p.returncode, p.stderr))
    print("unknown metric: " + p.stderr.strip())

    tr = load_trace(args, exp)
    expect(tr.metric_values, "the trace has no METRIC records")
    out = os.path.join(args.work, "trace.json")
    run([args.export, "--chrome", os.path.join(exp, "traces.otf2"), "-o", out])
    events = json.load(open(out))["traceEvents"]
    tracks = {(e["pid"], e["tid"]): e["args"] for e in events
              if e["ph"] == "M" and e["name"] == "thread_name"}
    got = {}
    for e in events:
        if e["ph"] == "C":
            expect(list(e["args"]) == ["value"], "counter event args %r" % e["args"])
            got.setdefault(tracks[(e["pid"], e["tid"])]["otf2_location"], []).append(
                (e["ts"], e["name"], e["args"]["value"]))
    res, offset = tr.clock[0], tr.clock[1]
    want = {}
    for loc, records in tr.metric_values.items():
        thread = tr.locations[loc]["name"]
        want[loc] = [((t - offset) * 1e6 / res, "%s (%s)" % (name, thread), v)
                     for t, vals in records for name, v in vals]
    expect(sorted(got) == sorted(want), "counters on locations %r, METRIC records on %r"
           % (sorted(got), sorted(want)))
    for loc in want:
        expect(len(got[loc]) == len(want[loc]), "location %d: %d counter events for %d metric "
               "values" % (loc, len(got[loc]), len(want[loc])))
        for g, w in zip(got[loc], want[loc]):
            expect(g[1:] == w[1:] and abs(g[0] - w[0]) <= 0.0015,
                   "location %d: counter %r, otf2-print %r" % (loc, g, w))
    # One track per thread and metric: a counter's name is never used by two threads of a
    # process (viewers key counters by process and name).
    owner = {}
    for e in events:
        if e["ph"] == "C":
            key = (e["pid"], e["name"])
            expect(owner.setdefault(key, e["tid"]) == e["tid"],
                   "counter %r of process %d written from threads %d and %d"
                   % (e["name"], e["pid"], owner[key], e["tid"]))
    print("counters: %d values on %d locations equal the METRIC records (%s)"
          % (sum(len(v) for v in want.values()), len(want), ", ".join(sorted({k[1] for k in owner}))))


def case_speedscope_mpi(args):
    """The MPI job (4 ranks, 2 threads each): --speedscope of the job's profile.json (one
    profile per rank and thread) and --chrome of its trace, checked and loaded into speedscope."""
    ss = need_speedscope(args)
    need_chromium()
    work = fresh(args.work)
    exp = run_mpi(args, build_mpi(args, work), work, {"INSTR_ENABLE_TRACING": "1"})
    prof = json.load(open(os.path.join(exp, "profile.json")))
    expect(len(prof["location_groups"]) == 4, "job profile has %d ranks" % len(prof["location_groups"]))
    out = os.path.join(args.work, "job.speedscope.json")
    run([args.export, "--speedscope", os.path.join(exp, "profile.json"), "-o", out])
    doc = json.load(open(out))
    check_speedscope_file(prof, doc)
    expect(len(doc["profiles"]) == 8, "%d speedscope profiles for 4 ranks with 2 threads each"
           % len(doc["profiles"]))
    check_in_speedscope(args, ss, out)
    out = os.path.join(args.work, "job.trace.json")
    run([args.export, "--chrome", os.path.join(exp, "traces.otf2"), "-o", out])
    check_in_speedscope(args, ss, out)


# ---- exports of a profile

def call_paths(prof):
    """{node id: "main;solve;kernel"} of a profile.json."""
    names = {r["id"]: r["name"] for r in prof["regions"]}
    paths = {}
    for n in prof["tree"]:
        paths[n["id"]] = (paths[n["parent"]] + ";" if n["parent"] is not None else "") + names[n["region"]]
    return paths


def check_speedscope_file(prof, ss):
    """instr-export --speedscope's file against the profile.json it came from: one profile per
    location named as the location is (rank and thread in a job), weights summing to the
    location's exclusive time, every sample a call path."""
    expect(ss["$schema"] == "https://www.speedscope.app/file-format-schema.json", "schema %r" % ss.get("$schema"))
    paths = call_paths(prof)
    frames = [f["name"] for f in ss["shared"]["frames"]]
    per_loc = {}
    for n in prof["tree"]:
        for l in n["locations"]:
            if l["exclusive"]:
                per_loc[l["location"]] = per_loc.get(l["location"], 0) + l["exclusive"]
    locname = {l["id"]: l["name"] for l in prof["locations"]}   # "rank R thread T" in a job
    got = {p["name"]: sum(p["weights"]) for p in ss["profiles"]}
    expect(got == {locname[k]: v for k, v in per_loc.items()},
           "--speedscope weights per thread %r, profile.json %r" % (got, per_loc))
    for p in ss["profiles"]:
        expect(p["type"] == "sampled" and len(p["samples"]) == len(p["weights"]) and
               p["endValue"] == sum(p["weights"]), "profile %s malformed" % p["name"])
        stacks = {";".join(frames[i] for i in s) for s in p["samples"]}
        expect(stacks <= set(paths.values()), "speedscope stacks %r are not call paths" % stacks)
    print("--speedscope: %d profiles (%s), weights match per thread"
          % (len(ss["profiles"]), ", ".join(p["name"] for p in ss["profiles"][:4])))


def case_profile_exports(args):
    work = fresh(os.path.join(args.work, "run"))
    run([os.path.join(args.bin, "report_tree")], cwd=work)
    exp = experiment(work)
    src = os.path.join(exp, "profile.json")
    prof = json.load(open(src))
    names = {r["id"]: r["name"] for r in prof["regions"]}
    paths = {}
    for n in prof["tree"]:
        paths[n["id"]] = (paths[n["parent"]] + ";" if n["parent"] is not None else "") + names[n["region"]]

    def export(*flags):
        return run([args.export] + list(flags) + [src]).stdout

    for metric, field in ((None, "exclusive"), ("visits", "visits")):
        text = export("--folded", *(["--metric", metric] if metric else []))
        got = {}
        for line in text.splitlines():
            stack, value = line.rsplit(" ", 1)
            got[stack] = got.get(stack, 0) + int(value)
        want = {}
        for n in prof["tree"]:
            if n[field]:
                want[paths[n["id"]]] = want.get(paths[n["id"]], 0) + n[field]
        expect(got == want, "--folded %s: %r, expected %r" % (field, got, want))
        print("--folded %s: %d stacks match profile.json" % (field, len(got)))

    check_speedscope_file(prof, json.loads(export("--speedscope")))

    import xml.etree.ElementTree as ET
    svg = ET.fromstring(export("--svg"))
    ns = "{http://www.w3.org/2000/svg}"
    groups = svg.findall(ns + "g")
    titles = [g.find(ns + "title").text.split("\n")[0] for g in groups]
    expect(sorted(titles) == sorted(names[n["region"]] for n in prof["tree"]),
           "--svg frames %r, expected one per call path" % titles)
    print("--svg: %d frames" % len(groups))

    bad = os.path.join(args.work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"format": "instr-profile",\n "tree": [1,')
    for flags in (["--svg"], ["--speedscope"], ["--folded"], ["--html"]):
        p = subprocess.run([args.export] + flags + [bad], capture_output=True, text=True)
        expect(p.returncode == 1 and bad in p.stderr and p.stdout == "",
               "%s on a broken profile: exit %d, %r" % (flags, p.returncode, p.stderr))
    p = subprocess.run([args.export, "--svg", bad], capture_output=True, text=True)
    expect(":2:" in p.stderr, "the error does not say where: %r" % p.stderr)
    p = subprocess.run([args.export, "--folded", "--metric", "nope", src], capture_output=True, text=True)
    expect(p.returncode == 1 and "nope" in p.stderr and "exclusive" in p.stderr
           and "the run recorded no metrics" in p.stderr,
           "unknown metric: %d %r" % (p.returncode, p.stderr))
    p = subprocess.run([args.export, "--bogus"], capture_output=True, text=True)
    expect(p.returncode == 2 and "--bogus" in p.stderr, "usage error: %d %r" % (p.returncode, p.stderr))
    out = os.path.join(args.work, "never.svg")
    p = subprocess.run([args.export, "--svg", bad, "-o", out], capture_output=True, text=True)
    expect(p.returncode == 1 and not os.path.exists(out) and not os.path.exists(out + ".partial"),
           "a failed export left a file behind")


# ---- the exports in speedscope itself

def case_speedscope_install(args):
    """Set-up of the speedscope cases: npm installs the pinned package into the build tree."""
    import speedscope
    ok, msg = speedscope.install(args.bin)
    print(msg)
    if not ok:
        skip(msg + ": the speedscope cases will skip")


def need_speedscope(args):
    import speedscope
    why = speedscope.missing(args.bin)
    if why:
        skip("speedscope is not installed: %s; the exports were not loaded into it" % why)
    return speedscope


def speedscope_expected(path):
    """What speedscope should show for a file instr-export wrote, from the file itself:
    (the name in the title, profile names, the first profile's {frame: (total, self)} in ns,
    how the file was imported)."""
    doc = json.load(open(path))
    if "$schema" in doc:
        frames = [f["name"] for f in doc["shared"]["frames"]]
        first = doc["profiles"][0]
        want = {}
        for stack, w in zip(first["samples"], first["weights"]):
            for i in set(stack):
                t, s = want.get(frames[i], (0, 0))
                want[frames[i]] = (t + w, s)
            t, s = want[frames[stack[-1]]]
            want[frames[stack[-1]]] = (t, s + w)
        return (doc["name"], [p["name"] for p in doc["profiles"]], want,
                "Importing as speedscope json file")
    # Chrome trace events: one profile per (pid, tid) with events, in (pid, tid) order;
    # speedscope names them after our process_name and thread_name metadata.
    events = doc["traceEvents"]
    pname = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    tracks = sorted({(e["pid"], e["tid"]) for e in events if e["ph"] == "X"})
    names = ["%s (pid %d), %s (tid %d)" % (pname[p], p, tname[(p, t)], t) for p, t in tracks]
    want, open_ = {}, []   # open_: [name, end, duration, children's time] of enclosing slices
    xs = sorted((e for e in events if e["ph"] == "X" and (e["pid"], e["tid"]) == tracks[0]),
                key=lambda e: (e["ts"], -e["dur"]))

    def close(upto):
        while open_ and open_[-1][1] <= upto:
            name, end, dur, kids = open_.pop()
            t, s = want.get(name, (0, 0))
            outer = all(o[0] != name for o in open_)
            want[name] = (t + (dur if outer else 0), s + dur - kids)
            if open_:
                open_[-1][3] += dur
    for e in xs:
        close(e["ts"])
        open_.append([e["name"], e["ts"] + e["dur"], e["dur"], 0])
    close(float("inf"))
    want = {k: (t * 1000, s * 1000) for k, (t, s) in want.items()}   # us -> ns
    return os.path.basename(path), names, want, "Importing as Trace Event Format profile"


def near(shown, exact):
    """speedscope prints a time with about four digits: 1 % is far above its rounding."""
    return abs(shown - exact) <= 0.01 * exact + 10


def check_in_speedscope(args, ss, path):
    title, names, want, importer = speedscope_expected(path)
    label = os.path.basename(path)
    import cdp
    try:
        v = ss.open_in_speedscope(need_chromium(), args.bin, path, args.work,
                                  os.path.join(args.work, label + ".png"))
    except cdp.Error as e:
        fail("%s in speedscope: %s" % (label, e))
    print("%s: title %r, profiles %r" % (label, v.title, v.profiles))
    for line in v.console:
        print("  page: " + line[:200])
    expect(not v.problems, "speedscope reported errors for %s:\n  %s" % (label, "\n  ".join(v.problems)))
    expect(any(importer in line for line in v.console),
           "speedscope did not import %s as intended (%r): %r" % (label, importer, v.console))
    expect(v.title == title + " - speedscope", "title %r, expected the profile's name %r"
           % (v.title, title))
    expect(v.profiles == names, "speedscope lists the profiles %r, expected %r" % (v.profiles, names))
    expect(not v.requests, "speedscope requested %r" % v.requests)
    chart = [c for c in v.canvases if c[2] >= 1000 and c[3] >= 300]
    expect(chart, "no flame chart canvas of the window's size: %r" % v.canvases)
    got = v.sandwich
    expect(set(got) == set(want), "sandwich view of %s: frames %r, expected %r"
           % (names[0], sorted(got), sorted(want)))
    for name, (total, self_) in want.items():
        expect(near(got[name][0], total) and near(got[name][1], self_),
               "%s in %s: speedscope shows total %.0f ns, self %.0f ns; the file says %d, %d"
               % (name, names[0], got[name][0], got[name][1], total, self_))
    print("sandwich of %s: %s" % (names[0], ", ".join("%s %.2f ms" % (k, t[1] / 1e6)
                                                     for k, t in sorted(got.items()))))
    # The flame chart is painted: the frames of the first profile wide enough to see (3 % of
    # its time: 38 of the chart's 1,280 pixels) each need a colour of their own there. (The
    # chart's colours are not the table's swatches, so they are counted, not matched.)
    expect(set(v.colours) == set(want), "swatches %r" % sorted(v.colours))
    whole = max(t for t, _ in want.values())
    wide = [name for name, (t, _) in want.items() if t >= 0.03 * whole]
    painted = {k: n for k, n in v.pixels.items() if n >= 50 and
               max(map(int, k.split(","))) - min(map(int, k.split(","))) >= 20}
    expect(len(painted) >= len(wide), "the flame chart shows %d frame colours (%r) for the %d "
           "frames of 3 %% of the time or more (%s)" % (len(painted), painted, len(wide), wide))
    print("flame chart: %d frame colours painted for %d frames of 3 %% of the time or more (%s); "
          "screenshot %s" % (len(painted), len(wide), ", ".join(sorted(wide)),
                             os.path.join(args.work, label + ".png")))


def case_speedscope(args):
    """instr-export --speedscope and --chrome of one run, loaded into speedscope."""
    ss = need_speedscope(args)
    need_chromium()
    work = fresh(os.path.join(args.work, "run"))
    run([os.path.join(args.bin, "report_tree")], env={"INSTR_ENABLE_TRACING": "1"}, cwd=work)
    exp = experiment(work)
    out = os.path.join(args.work, "profile.speedscope.json")
    run([args.export, "--speedscope", os.path.join(exp, "profile.json"), "-o", out])
    check_in_speedscope(args, ss, out)
    out = os.path.join(args.work, "trace.json")
    run([args.export, "--chrome", os.path.join(exp, "traces.otf2"), "-o", out])
    check_in_speedscope(args, ss, out)


# ---- memory on long traces

def peak_rss_kib(cmd):
    print("$ " + " ".join(cmd), flush=True)
    with open(os.devnull, "w") as null:
        p = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        err = p.stderr.read().decode(errors="replace")
    expect(os.waitstatus_to_exitcode(status) == 0, "%s failed: %s" % (cmd[0], err[-2000:]))
    return ru.ru_maxrss


def trace_bytes(exp):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(exp) for f in fs
               if f.endswith(".evt"))


def case_memory(args):
    fresh(args.work)
    sizes = {}
    for label, calls in (("1x", 300000), ("10x", 3000000)):
        work = fresh(os.path.join(args.work, label))
        run([os.path.join(args.bin, "report_calls"), str(calls)],
            env={"INSTR_ENABLE_TRACING": "1", "INSTR_PROFILING_FORMAT": "none"}, cwd=work)
        exp = experiment(work)
        rss = peak_rss_kib([args.export, "--chrome", os.path.join(exp, "traces.otf2")])
        sizes[label] = (trace_bytes(exp), rss)
        print("trace %s: %d calls, %.1f MiB of events; instr-export peak RSS %.1f MiB"
              % (label, calls, sizes[label][0] / 2 ** 20, rss / 1024), flush=True)
    (b1, r1), (b10, r10) = sizes["1x"], sizes["10x"]
    expect(b10 >= 9 * b1, "the long trace is only %.1fx the short one" % (b10 / b1))
    # Flat: ten times the events may not cost more than a few MiB (allocator noise).
    expect(r10 <= r1 + 8 * 1024, "peak memory grew from %.1f to %.1f MiB for a 10x longer "
           "trace: the export is not streaming" % (r1 / 1024, r10 / 1024))
    expect(r10 * 1024 < b10, "peak memory %.1f MiB is not below the trace's %.1f MiB"
           % (r10 / 1024, b10 / 2 ** 20))

# ---- instr-export -o: what is at the output path

def case_export_output(args):
    """-o onto a FIFO and a character device writes into them and leaves them what they are;
    a partial file left by a killed export does not block the next; SIGTERM removes the
    partial file; a directory is refused with a message."""
    import signal
    import stat
    import time
    work = fresh(args.work)
    run([os.path.join(args.bin, "report_tree")], cwd=work)
    prof = os.path.join(experiment(work), "profile.json")
    want = run([args.export, "--folded", prof]).stdout
    expect(want.strip(), "the folded export is empty")

    fifo = os.path.join(work, "out.fifo")
    os.mkfifo(fifo)
    got = []
    import threading
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
    reader.start()
    run([args.export, "--folded", prof, "-o", fifo])
    reader.join(30)
    expect(got == [want], "through the FIFO: %r, expected %r" % (got, want))
    expect(stat.S_ISFIFO(os.stat(fifo).st_mode), "-o replaced the FIFO by a regular file")

    # A character device: a twin of /dev/null in the work directory (never /dev/null itself,
    # which an export with this defect would replace for the whole machine).
    dev = os.path.join(work, "null")
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        dev = None
        print("no device node test: mknod needs root (CAP_MKNOD)")
    if dev:
        before = os.stat(dev)
        run([args.export, "--folded", prof, "-o", dev])
        after = os.stat(dev)
        expect(stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
               and after.st_ino == before.st_ino, "-o %s replaced the device" % dev)
        leftover = [f for f in os.listdir(work) if f.startswith("null.partial")]
        expect(not leftover, "partial files beside the device: %r" % leftover)

    out = os.path.join(work, "out.folded")
    open(out + ".partial", "w").write("left by a killed export\n")
    run([args.export, "--folded", prof, "-o", out])
    expect(open(out).read() == want, "the export beside an old partial file differs")
    expect(os.stat(out).st_mode & 0o777 == 0o666 & ~current_umask(),
           "mode %o, not what the umask gives" % (os.stat(out).st_mode & 0o777))

    # SIGTERM while the export reads a large profile: as soon as the partial file appears.
    # An export that ends before it was seen is tried again on a profile four times larger.
    target = os.path.join(work, "killed.folded")
    for nodes in (50000, 200000, 800000):
        big = os.path.join(work, "big.json")
        with open(big, "w") as f:
            json.dump(synthetic(nodes, 8, 200), f)
        print("$ %s --folded %s -o %s (then SIGTERM)" % (args.export, big, target), flush=True)
        p = subprocess.Popen([args.export, "--folded", big, "-o", target],
                             stdout=subprocess.DEVNULL)
        partial = []
        while p.poll() is None and not partial:
            partial = [f for f in os.listdir(work) if f.startswith("killed.folded.partial")]
            time.sleep(0.002)
        if partial and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            rc = p.wait(60)
            if rc == 0:  # it finished between the look and the signal
                os.unlink(target)
                continue
            expect(rc == -signal.SIGTERM, "the export ended with %r, not by SIGTERM" % rc)
            left = [f for f in os.listdir(work) if f.startswith("killed.folded")]
            expect(not left, "left after SIGTERM: %r" % left)
            break
        expect(p.wait(60) == 0, "the export of %d nodes failed" % nodes)
        os.unlink(target)
    else:
        fail("every export finished before its partial file was seen")

    # A FIFO, a directory or a device as input is refused at once (it blocked in open).
    inp = os.path.join(work, "in.fifo")
    os.mkfifo(inp)
    for mode, what in (("--folded", inp), ("--html", inp), ("--chrome", inp), ("--svg", work)):
        p = subprocess.run([args.export, mode, what], capture_output=True, text=True,
                           timeout=60)
        expect(p.returncode == 1 and "not a regular file" in p.stderr,
               "%s %s: exit %d, %r" % (mode, what, p.returncode, p.stderr))
    print(p.stderr.strip())

    p = subprocess.run([args.export, "--folded", prof, "-o", work], capture_output=True,
                       text=True)
    expect(p.returncode == 1 and "is a directory" in p.stderr,
           "-o onto a directory: exit %d, %r" % (p.returncode, p.stderr))
    print(p.stderr.strip())


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--export", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--instr")
    ap.add_argument("--source", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--mpicc")
    ap.add_argument("--mpirun")
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    fn = globals().get("case_" + args.case)
    if not fn:
        fail("unknown case %r" % args.case)
    fn(args)
    print("PASS " + args.case)


if __name__ == "__main__":
    main()
