"""speedscope.py — speedscope (the npm package, pinned) installed into the build tree, and a
file loaded into it in headless Chromium the way speedscope's own command line does: a
JavaScript file that calls speedscope.loadFileFromBase64(name, data), named in
index.html#localProfilePath=... (bin/cli.mjs of the package). What the page then shows is read
through the DevTools protocol (cdp.py)."""
import base64
import json
import os
import re
import shutil
import subprocess

import cdp

VERSION = "1.25.0"
UNITS_NS = {"ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9, "hr": 3600e9}


def prefix(build):
    """Where the package goes: <build>/speedscope/node_modules/speedscope."""
    return os.path.join(build, "speedscope")


def index_html(build):
    return os.path.join(prefix(build), "node_modules", "speedscope", "dist", "release",
                        "index.html")


def install(build):
    """(True, message) when the pinned speedscope is in the build tree, else (False, why)."""
    where = prefix(build)
    reason_file = os.path.join(where, "not-installed.txt")
    pkg = os.path.join(where, "node_modules", "speedscope", "package.json")

    def give_up(why):
        os.makedirs(where, exist_ok=True)
        with open(reason_file, "w") as f:
            f.write(why + "\n")
        return False, why

    if os.path.exists(pkg) and json.load(open(pkg)).get("version") == VERSION \
            and os.path.exists(index_html(build)):
        if os.path.exists(reason_file):
            os.remove(reason_file)
        return True, "speedscope %s already in %s" % (VERSION, where)
    npm = shutil.which("npm")
    if not npm:
        return give_up("npm is not installed (Debian: apt-get install npm; "
                       "scripts/install-deps.sh does it)")
    os.makedirs(where, exist_ok=True)
    # --ignore-scripts: nothing of the package runs outside the browser.
    cmd = [npm, "install", "--prefix", where, "--no-audit", "--no-fund", "--no-save",
           "--ignore-scripts", "speedscope@" + VERSION]
    print("$ " + " ".join(cmd), flush=True)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=280)
    except subprocess.TimeoutExpired:
        return give_up("`npm install speedscope@%s` did not finish in 280 s (is the npm "
                       "registry reachable? see `npm config get registry`)" % VERSION)
    print(p.stdout[-3000:], flush=True)
    if p.returncode != 0:
        return give_up("`npm install speedscope@%s` failed (exit %d): %s"
                       % (VERSION, p.returncode, p.stdout.strip()[-600:]))
    if not os.path.exists(index_html(build)):
        return give_up("npm installed speedscope but %s is missing" % index_html(build))
    if os.path.exists(reason_file):
        os.remove(reason_file)
    return True, "speedscope %s installed in %s" % (VERSION, where)


def missing(build):
    """None when installed, else why not (as the set-up test recorded it)."""
    if os.path.exists(index_html(build)):
        return None
    reason = os.path.join(prefix(build), "not-installed.txt")
    if os.path.exists(reason):
        return open(reason).read().strip()
    return "the set-up test report.speedscope_install has not run (ctest -R speedscope runs it)"


def loader(profile, workdir):
    """The script speedscope's command line writes for a file: returns its path."""
    name = os.path.basename(profile)
    with open(profile, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    js = os.path.join(workdir, name + ".speedscope.js")
    with open(js, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps(name), json.dumps(data)))
    return js


# JavaScript read in the page. speedscope's class names are generated, so rows are found by
# their shape: the sandwich table's rows are "total (share%) | self (share%) | name", the
# profile list's rows "index | name | weight".
ROWS = """Array.from(document.querySelectorAll('tr')).filter(tr => tr.cells.length == 3)
  .map(tr => Array.from(tr.cells).map(td => td.innerText.trim()))"""
SWATCHES = """Array.from(document.querySelectorAll('tr')).filter(tr => tr.cells.length == 3
    && tr.cells[2].querySelector('span[style]'))
  .map(tr => [tr.cells[2].innerText.trim(),
              getComputedStyle(tr.cells[2].querySelector('span[style]')).backgroundColor])"""
CANVASES = """Array.from(document.querySelectorAll('canvas')).map(c => {
  const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })"""
# Colours of the screenshot's pixels inside a rectangle, counted (the browser decodes the PNG).
PIXELS = """(async () => {
  const img = await createImageBitmap(await (await fetch('data:image/png;base64,%s')).blob());
  const c = new OffscreenCanvas(img.width, img.height), g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(%d, %d, %d, %d).data, n = {};
  for (let i = 0; i < d.length; i += 4) { const k = d[i] + ',' + d[i+1] + ',' + d[i+2];
    n[k] = (n[k] || 0) + 1; }
  return n; })()"""


def duration_ns(text):
    """speedscope's '14.03ms (53%)' as ns."""
    m = re.match(r"([0-9.]+)\s*([a-zµ]+)", text)
    if not m or m.group(2) not in UNITS_NS:
        raise ValueError("not a duration: %r" % text)
    return float(m.group(1)) * UNITS_NS[m.group(2)]


class View:
    """What speedscope showed for one file: title, profiles, the first profile's sandwich
    rows {name: (total ns, self ns)} and their swatch colours, the colours of the flame
    chart's pixels ({"r,g,b": count}), what the page logged, threw and requested."""


def open_in_speedscope(chromium, build, profile, workdir, screenshot):
    view = View()
    url = "file://" + index_html(build) + "#localProfilePath=" + loader(profile, workdir)
    with cdp.Browser(chromium, workdir) as b:
        b.navigate(url)
        # speedscope says an import failed on its page and in console.log, not as an error.
        shown = b.wait_for("document.body.innerText.includes('Something went wrong') ? 'failed'"
                           " : document.title != 'speedscope' && document.title",
                           "speedscope shows a profile (its title names it)")
        if shown == "failed":
            raise cdp.Error("speedscope could not import %s; its console:\n  %s"
                            % (profile, "\n  ".join(b.console())))
        view.title = shown
        # The time-ordered flame chart: WebGL draws it after the title changed.
        b.wait_for("document.querySelectorAll('canvas').length > 0", "a canvas")
        # speedscope draws on animation frames: let a few pass before the screenshot.
        for _ in range(3):
            b.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame("
                       "() => r(true))))")
            b.pump(0.2)
        view.canvases = b.evaluate(CANVASES)
        shot = b.screenshot(screenshot)
        # The flame chart is the lowest of the canvases as wide as the window (one covers the
        # whole page for overlays, the minimap is above the chart).
        wide = [r for r in view.canvases if r[2] >= 1000] or view.canvases
        x, y, w, h = max(wide, key=lambda r: r[1])
        with open(shot, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        view.pixels = b.evaluate(PIXELS % (data, int(x), int(y), int(w), int(h)))
        view.profiles = [r[1] for r in b.evaluate(ROWS) if r[0].isdigit()]
        # The sandwich view lists every frame of the profile with its total and self time.
        b.evaluate("Array.from(document.querySelectorAll('div')).find(d => "
                   "d.children.length == 1 && d.innerText.trim().endsWith('Sandwich')).click()")
        b.wait_for("document.body.innerText.includes('Symbol Name')", "the sandwich view")
        b.pump(0.5)
        view.sandwich = {r[2]: (duration_ns(r[0]), duration_ns(r[1]))
                         for r in b.evaluate(ROWS) if "%)" in r[0]}
        view.colours = dict(b.evaluate(SWATCHES))
        view.problems = b.problems()
        view.console = b.console()
        view.requests = b.requests()
    return view
