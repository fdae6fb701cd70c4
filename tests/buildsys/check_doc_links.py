#!/usr/bin/env python3
"""The docs' references resolve: in README.md, examples/README.md and docs/*.md, every
relative link [text](path#anchor) names a file or folder of the source tree and, for a
Markdown page, a heading of it (anchors as GitHub makes them), and every path written in
backticks that starts with a top-level folder of the project (`runtime/core/event.h`) exists.
Usage: check_doc_links.py links --source DIR
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import expect, run_case  # noqa: E402  tests/lib/cases.py

A = None
TOP = ("bench/", "cmake/", "docs/", "examples/", "filter/", "gcc_plugin/", "llvm_pass/",
       "runtime/", "scripts/", "selection_specs/", "tests/", "tools/", "xray_adapter/")
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")


def pages():
    docs = sorted(f for f in os.listdir(os.path.join(A.source, "docs")) if f.endswith(".md"))
    return ["README.md", "examples/README.md"] + ["docs/" + f for f in docs]


def slug(heading):
    """GitHub's anchor of a heading: lower case, markup and punctuation other than '-' and
    '_' dropped, blanks as '-'."""
    h = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", h).replace(" ", "-")


def anchors(path):
    out, seen, fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
                continue
            m = None if fence else re.match(r"#{1,6}\s+(.*)", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def case_links():
    bad, nlinks, nanchors, npaths = [], 0, 0, 0
    for page in pages():
        path = os.path.join(A.source, page)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            nlinks += 1
            if not os.path.exists(dest):
                bad.append("%s: link to %s: no such file" % (page, target))
            elif anchor and dest.endswith(".md"):
                nanchors += 1
                if anchor not in anchors(dest):
                    bad.append("%s: link to %s: no such heading in %s" %
                               (page, target, os.path.relpath(dest, A.source)))
        for m in CODE.finditer(text):
            name = m.group(1).rstrip(".,:;")
            if not name.startswith(TOP) or any(c in name for c in "*<>{}$|"):
                continue
            npaths += 1
            name = re.sub(r"(:\d+)+$", "", name)  # file:line
            if not os.path.exists(os.path.join(A.source, name)):
                bad.append("%s: `%s` names no file of the source tree" % (page, m.group(1)))
    # A reader that found nothing would pass on anything.
    expect(nlinks > 50 and nanchors > 5 and npaths > 50,
           "too few references found (%d links, %d anchors, %d paths): is --source the "
           "project's source tree?" % (nlinks, nanchors, npaths))
    expect(not bad, "dead references in the docs (fix the link or the path):\n  " +
           "\n  ".join(bad))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--source", required=True)
    A = ap.parse_args()
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
