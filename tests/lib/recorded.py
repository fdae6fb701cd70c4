"""Programs built by the instr compiler wrapper and run with a recording on, for the
end-to-end drivers (tests/io/check.py, tests/memory/check.py; tests/kokkos/check.py and
tests/openacc/check.py use sh, load and visits_by_chain): a work directory per case and step,
the build, the recorded run, the profile's call paths.

`args` is the driver's parsed command line: work, case, src and wrapper.
"""
import json
import os
import subprocess

from cases import Fail, clean_env, expect, fresh_dir


def sh(cmd, cwd, env=None, tail=2000):
    """Runs cmd (an environment without INSTR_* settings, plus env); Fail with the last
    `tail` characters of its stderr when it fails."""
    p = subprocess.run(cmd, cwd=cwd, env=clean_env(env), capture_output=True, text=True)
    if p.returncode != 0:
        raise Fail("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr[-tail:]))
    return p


def workdir(args, name):
    return fresh_dir(os.path.join(args.work, args.case, name))


def build(args, src, mode, cc, name, extra=()):
    """args.src/src built by the wrapper in mode `mode` with compiler cc: the executable."""
    wd = workdir(args, "build_" + name)
    exe = os.path.join(wd, name)
    sh([args.wrapper, "--mode=" + mode, cc, "-O1"] + list(extra) +
       [os.path.join(args.src, src), "-o", exe, "-lpthread"], wd)
    return exe


def run_recorded(args, exe, name, env, prefix=()):
    """Runs exe (behind prefix) in a fresh directory with the settings env and the experiment
    in its exp/; it must exit 0. (experiment directory, completed process, run directory)."""
    rd = workdir(args, "run_" + name)
    e = {"INSTR_EXPERIMENT_DIRECTORY": os.path.join(rd, "exp")}
    e.update(env)
    p = subprocess.run(list(prefix) + [exe], cwd=rd, env=clean_env(e), capture_output=True,
                       text=True, timeout=240)
    expect(p.returncode == 0, "%s: exit %d: %s" % (name, p.returncode, p.stderr))
    return os.path.join(rd, "exp"), p, rd


def load(exp):
    """An experiment's profile.json, as it is (no format check: tests/lib/profile.py has one)."""
    with open(os.path.join(exp, "profile.json")) as f:
        return json.load(f)


def chains(prof):
    """Tree node id -> its call path as a tuple of region names, outermost first."""
    names = {r["id"]: r["name"] for r in prof["regions"]}
    nodes = {n["id"]: n for n in prof["tree"]}
    out = {}
    for i, n in nodes.items():
        p = []
        while n is not None:
            p.append(names[n["region"]])
            n = nodes.get(n["parent"]) if n["parent"] is not None else None
        out[i] = tuple(reversed(p))
    return out


def visits_by_chain(prof):
    """Call path (a tuple of region names, outermost first) -> visits, summed over the nodes
    of the same path."""
    out = {}
    nodes = {n["id"]: n for n in prof["tree"]}
    for i, chain in chains(prof).items():
        out[chain] = out.get(chain, 0) + nodes[i]["visits"]
    return out
