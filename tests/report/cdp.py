"""cdp.py — headless Chromium driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: commands on the browser's fd 3, replies and events on its fd 4, each
message JSON ended by a NUL byte), with the Python standard library only. For pages that
render after they load (speedscope), where --dump-dom sees nothing: the test navigates, waits
for a condition evaluated in the page, and reads what the page threw, logged and asked
(exceptions, console errors, failed loads, alert dialogs, requests that left the machine)."""
import base64
import fcntl
import json
import os
import select
import subprocess
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--hide-scrollbars", "--disable-extensions", "--disable-background-networking",
         "--disable-component-update", "--disable-default-apps", "--disable-sync",
         # WebGL without a GPU (speedscope draws its flame chart with WebGL)
         "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
         "--window-size=1280,900"]


class Error(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page attached (flat session)."""

    def __init__(self, chromium, workdir, timeout=60):
        self.timeout = timeout
        self.events = []          # every event of the page, in order
        self._next = 0
        self._buf = b""
        to_browser = os.pipe()
        from_browser = os.pipe()
        # The child needs its ends at exactly 3 and 4: move them out of the way first.
        child_in = fcntl.fcntl(to_browser[0], fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser[1], fcntl.F_DUPFD, 10)
        os.close(to_browser[0])
        os.close(from_browser[1])

        # close_fds would close 3 and 4 after preexec_fn; Python opens every other descriptor
        # close-on-exec, so none leaks without it.
        def fds():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        self.stderr_path = os.path.join(workdir, "chromium.stderr")
        self._stderr = open(self.stderr_path, "w")
        cmd = [chromium] + FLAGS + ["--user-data-dir=" + os.path.join(workdir, "chromium-profile"),
                                    "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self._stderr,
                                     stderr=self._stderr, close_fds=False, preexec_fn=fds)
        os.close(child_in)
        os.close(child_out)
        self._w, self._r = to_browser[1], from_browser[0]
        try:
            pages = [t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page"]
            if pages:
                target = pages[0]["targetId"]
            else:
                target = self.send("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.send("Target.attachToTarget", targetId=target,
                                     flatten=True)["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(domain + ".enable", session=True)
        except Exception:
            self.close()
            raise

    # -- the wire

    def _message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Error("chromium did not answer within %d s (its stderr: %s)"
                            % (self.timeout, self.stderr_path))
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise Error("chromium closed the DevTools pipe (exit %r; its stderr: %s)"
                                % (self.proc.poll(), self.stderr_path))
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def _on_event(self, m):
        self.events.append(m)
        if m["method"] == "Page.javascriptDialogOpening":
            # An alert blocks the page until answered: answer it (the test reads it from events).
            self._post("Page.handleJavaScriptDialog", {"accept": True}, m.get("sessionId"))

    def _post(self, method, params, session):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._next

    def send(self, method, session=False, **params):
        """Result of one command (session=True: to the page rather than the browser)."""
        ident = self._post(method, params, self.session if session else None)
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._message(deadline)
            if m.get("id") == ident:
                if "error" in m:
                    raise Error("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            if "method" in m:
                self._on_event(m)

    def pump(self, seconds):
        """Read events for up to `seconds`."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                m = self._message(deadline)
                if "method" in m:     # else the reply to a dialog's answer
                    self._on_event(m)
        except Error:
            if self.proc.poll() is not None:
                raise

    # -- the page

    def navigate(self, url):
        start = len(self.events)
        r = self.send("Page.navigate", session=True, url=url)
        if r.get("errorText"):
            raise Error("navigating to %s: %s" % (url, r["errorText"]))
        deadline = time.monotonic() + self.timeout
        while not any(e["method"] == "Page.loadEventFired" for e in self.events[start:]):
            self.pump(min(0.5, max(0.0, deadline - time.monotonic())))
            if time.monotonic() > deadline:
                raise Error("%s did not finish loading within %d s" % (url, self.timeout))

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", session=True, expression=expression,
                      returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise Error("evaluating %s: %s" % (expression, describe(
                {"method": "Runtime.exceptionThrown", "params": {"exceptionDetails": r["exceptionDetails"]}})))
        return r["result"].get("value")

    def wait_for(self, expression, what):
        """Poll a JavaScript condition until it is true and return its value; raise when the
        page reports a problem first (problems()), or after the time-out."""
        deadline = time.monotonic() + self.timeout
        while True:
            v = self.evaluate(expression)
            if v:
                return v
            if self.problems():
                raise Error("%s: the page reported instead:\n  %s" % (what, "\n  ".join(self.problems())))
            if time.monotonic() > deadline:
                raise Error("%s: not after %d s (%s was %r)" % (what, self.timeout, expression, v))
            self.pump(0.2)

    def center(self, selector):
        """Viewport coordinates of the middle of the first element matching a CSS selector,
        scrolled into view first."""
        r = self.evaluate("(() => { const e = document.querySelector(%s); if (!e) return null;"
                          " e.scrollIntoView({block: 'center', inline: 'center'});"
                          " const r = e.getBoundingClientRect();"
                          " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
                          % json.dumps(selector))
        if r is None:
            raise Error("no element %s in the page" % selector)
        return r

    def hover(self, selector):
        """Move the mouse onto an element, as a user does (real input events)."""
        x, y = self.center(selector)
        self.send("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=x, y=y)

    def click(self, selector):
        """Click an element with the left button, as a user does (real input events)."""
        x, y = self.center(selector)
        self.send("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y,
                      button="left", clickCount=1)

    def type_text(self, selector, text):
        """Focus an input and type into it, one key event per character."""
        self.click(selector)
        for ch in text:
            self.send("Input.dispatchKeyEvent", session=True, type="char", text=ch)

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", session=True, format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def problems(self):
        """What went wrong in the page: uncaught exceptions, console.error and
        console.assert, browser log errors (a script or file that failed to load), dialogs."""
        return [describe(e) for e in self.events if is_problem(e)]

    def requests(self):
        """URLs the page requested that are neither file: nor data: (nor blob:)."""
        return sorted({e["params"]["request"]["url"] for e in self.events
                       if e["method"] == "Network.requestWillBeSent"
                       and not e["params"]["request"]["url"].startswith(
                           ("file:", "data:", "blob:", "about:"))})

    def console(self):
        return [describe(e) for e in self.events if e["method"] == "Runtime.consoleAPICalled"]

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self._post("Browser.close", {}, None)
                    self.proc.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait()
        finally:
            for fd in (self._w, self._r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def is_problem(e):
    m, p = e["method"], e.get("params", {})
    if m == "Runtime.exceptionThrown" or m == "Page.javascriptDialogOpening":
        return True
    if m == "Runtime.consoleAPICalled":
        return p.get("type") in ("error", "assert")
    if m == "Log.entryAdded":
        return p.get("entry", {}).get("level") == "error"
    return False


def describe(e):
    m, p = e["method"], e.get("params", {})
    if m == "Runtime.exceptionThrown":
        d = p["exceptionDetails"]
        ex = d.get("exception") or {}
        return "uncaught exception: %s (%s:%s:%s)" % (ex.get("description") or d.get("text"),
                                                       d.get("url", "?"), d.get("lineNumber"),
                                                       d.get("columnNumber"))
    if m == "Runtime.consoleAPICalled":
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        return "console.%s: %s" % (p.get("type"), args)
    if m == "Log.entryAdded":
        en = p["entry"]
        return "browser log %s: %s %s" % (en.get("level"), en.get("text"), en.get("url", ""))
    if m == "Page.javascriptDialogOpening":
        return "%s dialog: %s" % (p.get("type"), p.get("message"))
    return m
