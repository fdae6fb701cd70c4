#!/usr/bin/env python3
"""scripts/check-layers.py on a tree that breaks its layers (bad/): it must fail and name
the upward include and the circle, each with file:line; the map's table under another
heading is not read."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "..", "..", "scripts", "check-layers.py")
r = subprocess.run([sys.executable, script, "--root", os.path.join(here, "bad")],
                   capture_output=True, text=True)
out = r.stdout
expected = [
    "runtime/core/event.h:1: includes runtime/profile/cursor.h: layer 'substrates' (level 2) "
    "is above 'event core' (level 1)",
    "circle of includes between folders runtime/metrics, runtime/trace:",
    "  runtime/metrics/metrics.h:2: includes runtime/trace/trace.h",
    "  runtime/trace/trace.h:1: includes runtime/metrics/metrics.h",
    "circle of includes between files: runtime/core/event.h -> runtime/profile/cursor.h",
]
fail = r.returncode != 1
for line in expected:
    if line not in out.splitlines():
        print(f"missing: {line}")
        fail = True
if fail:
    print(f"exit status {r.returncode}\nstdout:\n{out}\nstderr:\n{r.stderr}")
    sys.exit(1)
print("ok: check-layers.py names the upward include and the circles")
