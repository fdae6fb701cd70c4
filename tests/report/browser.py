"""browser.py — headless Chromium for the report tests: the rendered DOM of a page
(--dump-dom), a screenshot, and every network request the page made (Chromium's own net
log, so the check does not depend on the page telling the truth about itself)."""
import json
import os
import shutil
import subprocess
from html.parser import HTMLParser

SKIP = 77


def find():
    """Path of chromium, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def _flags(workdir):
    return ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-default-apps", "--disable-sync",
            "--user-data-dir=" + os.path.join(workdir, "chromium-profile"),
            "--window-size=1280,1000", "--virtual-time-budget=5000"]


def render(chromium, url, workdir, screenshot=None, timeout=120):
    """(dom text, list of requested URLs that are not file: or data:)."""
    netlog = os.path.join(workdir, "netlog.json")
    cmd = [chromium] + _flags(workdir) + ["--log-net-log=" + netlog, "--dump-dom", url]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    if p.returncode != 0 or not p.stdout:
        raise RuntimeError("chromium --dump-dom %s failed (exit %d): %s" %
                           (url, p.returncode, p.stderr[-2000:]))
    if screenshot:
        s = subprocess.run([chromium] + _flags(workdir) + ["--screenshot=" + screenshot, url],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
        if s.returncode != 0 or not os.path.exists(screenshot):
            raise RuntimeError("chromium --screenshot failed: " + s.stderr[-2000:])
    return p.stdout, requests(netlog)


def requests(netlog):
    """URLs of the requests in a Chromium net log that a page started (the browser's own
    requests, updates and clock checks, have no origin as initiator), other than file: and
    data:."""
    with open(netlog, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        log = json.loads(text)
    except ValueError:  # a log cut short at exit: close it
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    out = []
    for ev in log.get("events", []):
        p = ev.get("params") or {}
        url, initiator = p.get("url"), p.get("initiator")
        if not url or initiator is None or initiator == "not an origin":
            continue
        if not url.startswith(("file:", "data:", "about:", "chrome:")):
            out.append(url)
    return sorted(set(out))


class Dom(HTMLParser):
    """Elements of a dumped DOM as (tag, attrs dict, text) in document order."""

    def __init__(self, text):
        super().__init__()
        self.elements = []
        self._open = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        e = [tag, dict(attrs), ""]
        self.elements.append(e)
        if tag not in ("meta", "input", "br", "link", "img"):
            self._open.append(e)

    def handle_endtag(self, tag):
        while self._open:
            e = self._open.pop()
            if e[0] == tag:
                break

    def handle_data(self, data):
        for e in self._open:
            e[2] += data

    def by_id(self, id_):
        for e in self.elements:
            if e[1].get("id") == id_:
                return e
        return None

    def with_class(self, cls):
        return [e for e in self.elements if cls in (e[1].get("class") or "").split()]
