#!/usr/bin/env python3
"""check-layers.py: the runtime's includes point down (docs/architecture.md, "Layer map").

Reads the layer map (the table under the heading "Layer map" in docs/architecture.md: level,
layer, folders) and every `#include "..."` line of the C and C++ files in the mapped folders.
Fails, naming file:line, on
  - an include of a file in a higher layer than the including file's;
  - a circle of includes between folders (folders of one layer may include each other, but
    never both ways, directly or through others) or between files.
Folders of the map that do not exist are skipped. Includes that resolve to no mapped file
(system headers, generated sources) are not checked.

Usage: scripts/check-layers.py [--root DIR] [--map FILE]
Exit status: 0 when the layers hold, 1 when they do not, 2 on a bad map.
"""

import argparse
import os
import re
import sys

SOURCE_EXT = (".c", ".h", ".cc", ".cpp", ".hpp", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROW_RE = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|([^|]*)\|")
FOLDER_RE = re.compile(r"`([^`]+)`")
# Where an include that is not relative to its file is searched (the build's include
# directories for the runtime), in order.
SEARCH_DIRS = ("runtime/include", "filter")


def read_map(path):
    """[(folder, level, layer)] from the table under the heading 'Layer map'."""
    folders = []
    in_map = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                in_map = "layer map" in line.lower()
                continue
            if not in_map:
                continue
            m = ROW_RE.match(line)
            if not m:
                continue
            level, layer = int(m.group(1)), m.group(2).strip()
            for folder in FOLDER_RE.findall(m.group(3)):
                folders.append((folder.strip("/"), level, layer))
    return folders


def folder_of(rel, folders):
    """The mapped folder (longest prefix) that holds the repository path rel, or None."""
    best = None
    for folder, level, layer in folders:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best[0]):
                best = (folder, level, layer)
    return best


def resolve(root, rel_file, name):
    """Repository path of an included file, or None when it is not in the repository."""
    candidates = [os.path.join(os.path.dirname(rel_file), name)]
    candidates += [os.path.join(d, name) for d in SEARCH_DIRS]
    for c in candidates:
        c = os.path.normpath(c)
        if not c.startswith("..") and os.path.isfile(os.path.join(root, c)):
            return c
    return None


def strongly_connected(nodes, edges):
    """Tarjan's components of more than one node (or a node with an edge to itself)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(max(10000, 4 * len(nodes)))

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--root", default=os.path.dirname(here), help="repository root")
    ap.add_argument("--map", default=None, help="the layer map (docs/architecture.md)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    map_path = args.map or os.path.join(root, "docs", "architecture.md")
    try:
        folders = read_map(map_path)
    except OSError as e:
        print(f"check-layers: cannot read the layer map: {e}", file=sys.stderr)
        return 2
    if not folders:
        print(f"check-layers: {map_path}: no layer map (a table under a heading 'Layer map')",
              file=sys.stderr)
        return 2

    files = []
    for folder, _, _ in folders:
        top = os.path.join(root, folder)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for fn in sorted(filenames):
                if fn.endswith(SOURCE_EXT):
                    rel = os.path.relpath(os.path.join(dirpath, fn), root)
                    # a nested mapped folder is scanned as itself
                    if folder_of(rel, folders)[0] == folder:
                        files.append(rel)

    errors = []
    file_edges = {}    # file -> {included file}
    # folder -> {folder of the same layer: [(file, line, included)]}; a circle through
    # layers always has an upward include, reported as such
    folder_edges = {}
    for rel in files:
        src = folder_of(rel, folders)
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = resolve(root, rel, m.group(1))
                dst = folder_of(target, folders) if target else None
                if not dst:
                    continue
                file_edges.setdefault(rel, set()).add(target)
                if dst[0] != src[0] and dst[1] == src[1]:
                    folder_edges.setdefault(src[0], {}).setdefault(dst[0], []).append(
                        (rel, lineno, target))
                if dst[1] > src[1]:
                    errors.append(f"{rel}:{lineno}: includes {target}: layer '{dst[2]}' "
                                  f"(level {dst[1]}) is above '{src[2]}' (level {src[1]})")

    for comp in strongly_connected(set(folder_edges) | {d for e in folder_edges.values()
                                                         for d in e}, folder_edges):
        members = set(comp)
        errors.append("circle of includes between folders " + ", ".join(comp) + ":")
        for a in comp:
            for b, sites in sorted(folder_edges.get(a, {}).items()):
                if b in members:
                    for rel, lineno, target in sites:
                        errors.append(f"  {rel}:{lineno}: includes {target}")
    for comp in strongly_connected(set(file_edges), file_edges):
        errors.append("circle of includes between files: " + " -> ".join(comp))

    if errors:
        print("\n".join(errors))
        print(f"check-layers: {len(errors)} problem line(s); the layer map is in "
              f"{os.path.relpath(map_path, root)}", file=sys.stderr)
        return 1
    print(f"check-layers: {len(files)} files in {len({f for f, _, _ in folders})} folders, "
          "every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
