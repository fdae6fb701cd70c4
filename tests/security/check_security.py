#!/usr/bin/env python3
"""End-to-end checks of what docs/security.md promises: a less privileged user's environment
never steers a privileged program, another user who can write where the program records
cannot make it write anywhere else, and untrusted text (values, names, paths) is shown
escaped and shortened. The second user is nobody (setpriv); the cases that switch users need
root and exit 77 (skipped) without it.
Usage: check_security.py CASE --bin DIR --work DIR --lib DIR --trace 0|1 [--profile-trace 0|1]
(--profile-trace 1: every run with the profile and the trace together)."""
import argparse
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py

A = None
P = None  # tests/lib/profile.py
SKIP = 77
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


class Skip(Exception):
    pass


def need_root():
    if os.geteuid() != 0:
        raise Skip("needs root to act as a second user (setpriv)")
    if not shutil.which("setpriv"):
        raise Skip("setpriv is not installed")
    if subprocess.run(AS_NOBODY + ["test", "-x", prog("waiter")]).returncode != 0:
        raise Skip("nobody cannot reach the build tree (a parent directory of %s is not "
                   "searchable by others)" % A.bin)


def workdir(name, mode=0o755):
    d = fresh_dir(os.path.join(A.work, A.case, name))
    os.chmod(d, mode)
    return d


def prog(name, kind="inst"):
    return os.path.join(A.bin, "sec_%s_%s" % (name, kind))


def run(cmd, cwd, env=None, preexec=None):
    p = subprocess.run(cmd, cwd=cwd, env=clean_env(env), capture_output=True, timeout=150,
                       preexec_fn=preexec)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def instr_lines(err):
    return [l for l in err.splitlines() if l.startswith("instr: ")]


def all_files(root):
    out = []
    for d, dirs, files in os.walk(root):
        out += [os.path.join(d, x) for x in dirs + files]
    return sorted(out)


# ---- privilege

def setuid_copy(name, bits=stat.S_ISUID):
    d = workdir("bin")
    exe = os.path.join(d, "victim")
    shutil.copy(prog(name), exe)
    os.chown(exe, 0, 0)
    os.chmod(exe, 0o755 | bits)
    return exe


def privileged_run(exe, env):
    rootonly = workdir("rootonly", 0o755)  # root may write here, nobody may not
    cwd = workdir("cwd", 0o777)
    env = dict(env)
    for k, v in env.items():
        env[k] = v.replace("@ROOTONLY@", rootonly)
    rc, out, err = run(AS_NOBODY + [exe, "-"], cwd, env)
    expect(rc == 0 and out == "waiting\ndone\n", "the program did not run as written: %d %r %r"
           % (rc, out, err))
    mine = instr_lines(err)
    expect(len(mine) == 1 and "changed privileges" in mine[0] and "INSTR_" in mine[0],
           "expected one line saying the environment is ignored, got %r" % mine)
    expect(all_files(rootonly) == [] and all_files(cwd) == [],
           "a privileged program wrote: %r %r" % (all_files(rootonly), all_files(cwd)))
    return rootonly, err


def case_setuid():
    need_root()
    exe = setuid_copy("waiter")
    rootonly, _ = privileged_run(exe, {"INSTR_EXPERIMENT_DIRECTORY": "@ROOTONLY@/x"})
    # The same program run by its owner is no privilege change: the environment counts.
    rc, out, err = run([exe, "-"], workdir("owner"),
                       {"INSTR_EXPERIMENT_DIRECTORY": os.path.join(rootonly, "x")})
    expect(rc == 0 and os.path.isfile(os.path.join(rootonly, "x", "profile.json")),
           "run by its owner, the program did not record where asked: %r" % err)


def case_setuid_filter_secret():
    need_root()
    secret_dir = workdir("secret", 0o700)
    secret = os.path.join(secret_dir, "secret.spec")
    with open(secret, "w") as f:
        f.write("SECRETKEYWORD hunter2\n")
    os.chmod(secret, 0o600)
    exe = setuid_copy("waiter", stat.S_ISUID | stat.S_ISGID)
    _, err = privileged_run(exe, {"INSTR_FILTERING_FILE": secret, "INSTR_VERBOSE": "2"})
    expect("SECRET" not in err and "hunter2" not in err, "a root-only file leaked: %r" % err)


def case_file_capability():
    need_root()
    if not shutil.which("setcap"):
        raise Skip("setcap is not installed")
    exe = setuid_copy("waiter", 0)
    p = subprocess.run(["setcap", "cap_net_bind_service+ep", exe], capture_output=True, text=True)
    if p.returncode != 0:
        raise Skip("cannot set file capabilities here: " + p.stderr.strip())
    privileged_run(exe, {"INSTR_EXPERIMENT_DIRECTORY": "@ROOTONLY@/x"})


# ---- another user who can write where the program records

def target_file():
    d = workdir("target", 0o755)
    t = os.path.join(d, "precious")
    with open(t, "w") as f:
        f.write("precious\n")
    os.chmod(t, 0o644)
    return t


NAMES = ["traces.otf2", "traces.def", "traces", "profile.json", "profile.txt", "profile.folded",
         "profile.cubex", "instr.cfg", "xray.txt", "profile.json.partial", "profile.txt.partial",
         "profile.folded.partial", "profile.cubex.partial", "instr.cfg.partial", "profile.html",
         "profile.html.partial"]

ATTACKER = textwrap.dedent("""
    import os, sys, time, json
    shared, exp, target, mode = sys.argv[1:5]
    names = json.loads(sys.argv[5])
    for _ in range(6000):
        if os.path.isdir(exp):
            break
        time.sleep(0.01)
    planted, refused = [], []
    if mode == "swap":
        os.rename(exp, os.path.join(shared, "moved"))
        os.mkdir(exp, 0o777)
        os.chmod(exp, 0o777)
    for n in names:
        try:
            os.symlink(target, os.path.join(exp, n))
            planted.append(n)
        except OSError as e:
            refused.append("%s: %s" % (n, e.strerror))
    open(os.path.join(shared, "go"), "w").close()
    print(json.dumps({"planted": planted, "refused": refused}))
""")


def attack(mode, shared_mode, shared_owner_nobody, umask):
    need_root()
    target = target_file()
    shared = workdir("shared", shared_mode)
    if shared_owner_nobody:
        nobody = pwd.getpwnam("nobody")
        os.chown(shared, nobody.pw_uid, nobody.pw_gid)
    exp = os.path.join(shared, "exp")
    env = {"INSTR_EXPERIMENT_DIRECTORY": exp}
    if A.trace:
        env["INSTR_ENABLE_TRACING"] = "1"
    victim = subprocess.Popen([prog("waiter"), os.path.join(shared, "go")], cwd=shared,
                              env=clean_env(env), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, preexec_fn=lambda: os.umask(umask))
    att = subprocess.run(AS_NOBODY + [sys.executable, "-c", ATTACKER, shared, exp, target, mode,
                                      json.dumps(NAMES)],
                         capture_output=True, text=True, timeout=120)
    out, err = victim.communicate(timeout=120)
    err = err.decode(errors="replace")
    expect(att.returncode == 0, "the attacker script failed: %s" % att.stderr)
    report = json.loads(att.stdout)
    expect(victim.returncode == 0 and out == b"waiting\ndone\n", "victim: %d %r %s"
           % (victim.returncode, out, err))
    expect(open(target).read() == "precious\n" and os.stat(target).st_uid == 0,
           "the victim wrote through a planted symlink: the target now holds %r"
           % open(target).read()[:80])
    return shared, exp, report, err


def complete_experiment(exp, err):
    expect(not [f for f in os.listdir(exp) if f.endswith(".partial")], "partial files left")
    prof = P.load(exp)
    expect(P.visits_by_region(prof).get("work") == 20, "visits %r" % P.visits_by_region(prof))
    if A.trace:
        expect(os.path.isfile(os.path.join(exp, "traces.otf2")), "no trace in %s: %r"
               % (exp, os.listdir(exp)))
        p = subprocess.run(["otf2-print", os.path.join(exp, "traces.otf2")], capture_output=True,
                           text=True, timeout=120)
        expect(p.returncode == 0 and "ENTER" in p.stdout, "otf2-print: %s" % p.stderr[-500:])


def case_symlink_umask000():
    # umask 000 in a directory others can write: the experiment directory itself would be
    # world-writable; while recording it is private, so nothing can be planted in it.
    shared, exp, report, err = attack("plant", 0o777, False, 0o000)
    expect(report["planted"] == [], "the attacker planted %r in the experiment directory"
           % report["planted"])
    complete_experiment(exp, err)
    expect(stat.S_IMODE(os.stat(exp).st_mode) == 0o777,
           "published mode %o, the umask (000) allows 777" % stat.S_IMODE(os.stat(exp).st_mode))


def case_swapped_directory():
    # The parent belongs to the attacker, who moves the experiment directory away mid-run and
    # puts one of its own full of symlinks in its place.
    shared, exp, report, err = attack("swap", 0o755, True, 0o022)
    expect(report["planted"] == NAMES, "the attack did not take place: %r" % report)
    moved = os.path.join(shared, "moved")
    complete_experiment(moved, err)
    expect(sorted(os.listdir(exp)) == sorted(NAMES) and
           all(os.path.islink(os.path.join(exp, n)) for n in NAMES),
           "the attacker's directory changed: %r" % os.listdir(exp))
    expect(any("moved or replaced" in l and "moved" in l for l in instr_lines(err)),
           "no line saying where the results went: %r" % instr_lines(err))


def case_private_while_recording():
    wd = workdir("run")
    go = os.path.join(wd, "go")
    for umask, published in ((0o022, 0o755), (0o027, 0o750)):
        exp = os.path.join(wd, "exp-%o" % umask)
        p = subprocess.Popen([prog("waiter"), go], cwd=wd,
                             env=clean_env({"INSTR_EXPERIMENT_DIRECTORY": exp}),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda u=umask: os.umask(u))
        expect(p.stdout.readline() == b"waiting\n", "no waiting line")
        while_recording = stat.S_IMODE(os.stat(exp).st_mode)
        open(go, "w").close()
        p.communicate(timeout=120)
        os.unlink(go)
        expect(while_recording == 0o700, "mode %o while recording" % while_recording)
        after = stat.S_IMODE(os.stat(exp).st_mode)
        expect(after == published, "umask %o: published mode %o, expected %o"
               % (umask, after, published))
        mode = stat.S_IMODE(os.stat(os.path.join(exp, "profile.json")).st_mode)
        expect(mode == 0o666 & ~umask, "profile.json mode %o" % mode)


def case_concurrent_runs():
    # Kept from before: 20 runs started together with one INSTR_EXPERIMENT_DIRECTORY get 20
    # distinct, complete experiments (mkdir is atomic).
    wd = workdir("run")
    exp = os.path.join(wd, "exp")
    procs = [subprocess.Popen([prog("waiter"), "-"], cwd=wd,
                              env=clean_env({"INSTR_EXPERIMENT_DIRECTORY": exp}),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(20)]
    for p in procs:
        expect(p.wait(timeout=120) == 0, "a run failed")
    dirs = sorted(d for d in os.listdir(wd) if d == "exp" or d.startswith("exp."))
    expect(len(dirs) == 20, "%d directories: %r" % (len(dirs), dirs))
    pids = set()
    for d in dirs:
        prof = P.load(os.path.join(wd, d))
        expect(P.visits_by_region(prof).get("work") == 20, "%s: %r" % (d, P.visits_by_region(prof)))
        pids.add(prof["run"]["pid"])
    expect(len(pids) == 20, "experiments share a process: %r" % pids)


def case_symlink_at_name():
    # Kept from before: a symlink planted where the experiment directory will be made is
    # neither followed nor written through.
    wd = workdir("run")
    elsewhere = workdir("elsewhere")
    exp = os.path.join(wd, "exp")
    os.symlink(elsewhere, exp)
    rc, out, err = run([prog("waiter"), "-"], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
    expect(rc == 0 and os.listdir(elsewhere) == [], "written through the symlink: %r"
           % os.listdir(elsewhere))
    expect(os.path.islink(exp) and os.path.isfile(os.path.join(wd, "exp.1", "profile.json")),
           "no experiment beside the symlink: %r" % os.listdir(wd))


# ---- messages and untrusted text

def plain_run(env, name="waiter"):
    wd = workdir("run")
    rc, out, err = run([prog(name), "-"] if name == "waiter" else [prog(name)], wd, env)
    expect(rc == 0, "exit status %d: %s" % (rc, err))
    return wd, instr_lines(err), err


def case_unknown_variable():
    for name, near in (("INSTR_ENABLE_TRACNG", "INSTR_ENABLE_TRACING"),
                       ("INSTR_EXPERIMENT_DIR", "INSTR_EXPERIMENT_DIRECTORY"),
                       ("INSTR_TOTAL_MEMORY_SIZE", "INSTR_TOTAL_MEMORY"),
                       ("INSTR_QWERTYUIOPASDFGH", None)):
        wd, mine, err = plain_run({name: "1"})
        lines = [l for l in mine if name in l]
        expect(len(lines) == 1 and "not a variable instr knows" in lines[0],
               "%s: %r" % (name, mine))
        if near:
            expect("did you mean %s?" % near in lines[0], "%s: %r" % (name, lines[0]))
        else:
            expect("did you mean" not in lines[0], "%s: %r" % (name, lines[0]))


def case_long_value():
    long = "A" * 65536
    wd, mine, err = plain_run({"INSTR_TIMER": long})
    expect(len(mine) == 2, mine)
    msg = mine[0]
    expect(msg.startswith("instr: INSTR_TIMER='AAAA") and "(65536 bytes)" in msg and
           msg.endswith("using auto") and len(msg) < 400, "message %r" % msg[:600])
    wd, mine, err = plain_run({"INSTR_EXPERIMENT_DIRECTORY": "/tmp/" + long})
    expect(any("INSTR_EXPERIMENT_DIRECTORY=" in l and "longest path" in l and len(l) < 400
               for l in mine), "message %r" % [l[:200] for l in mine])
    expect(len(P.find_experiments(wd)) == 1, "the default directory was not used")


def case_newline_value():
    wd, mine, err = plain_run({"INSTR_TIMER": "x\nINSTR_ENABLE_TRACING=1",
                               "INSTR_EXPERIMENT_DIRECTORY": "exp\nname\x1b[2J"})
    expect(all(l.startswith("instr: ") for l in err.splitlines()),
           "a value injected a line into stderr: %r" % err)
    expect(any("INSTR_TIMER='x\\nINSTR_ENABLE_TRACING=1'" in l for l in mine), mine)
    expect("\x1b" not in err, "a terminal escape reached stderr: %r" % err)
    exp = os.path.join(wd, "exp\nname\x1b[2J")
    cfg = open(os.path.join(exp, "instr.cfg"), encoding="utf-8").read()
    names = []
    for line in cfg.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"^(INSTR_[A-Z_]+)=", line)
        expect(m, "instr.cfg line %r is not VARIABLE=value" % line)
        names.append(m.group(1))
    expect(len(names) == len(set(names)), "instr.cfg names a variable twice: %r" % names)
    expect("INSTR_ENABLE_TRACING=0  # default" in cfg, cfg)
    expect("INSTR_EXPERIMENT_DIRECTORY=exp\\nname\\x1b[2J  # environment" in cfg, cfg)
    txt = open(os.path.join(exp, "profile.txt"), "rb").read()
    expect(b"\x1b" not in txt, "profile.txt carries a terminal escape")


def case_non_directory():
    wd, mine, err = plain_run({"INSTR_EXPERIMENT_DIRECTORY": "/dev/null"})
    expect(not os.path.exists("/dev/null.1"), "/dev/null.1 was created")
    expect(any("INSTR_EXPERIMENT_DIRECTORY='/dev/null' names an existing file" in l
               for l in mine), mine)
    expect(len(P.find_experiments(wd)) == 1, "the default directory was not used")


def case_total_memory():
    wd, mine, err = plain_run({"INSTR_TOTAL_MEMORY": "16 MB"})
    expect(len(mine) == 1, "'16 MB' refused: %r" % mine)
    cfg = open(os.path.join(P.find_experiment(wd), "instr.cfg")).read()
    expect("INSTR_TOTAL_MEMORY=16 MB  # environment" in cfg, cfg)
    wd, mine, err = plain_run({"INSTR_TOTAL_MEMORY": "16000000G"})
    expect(any("INSTR_TOTAL_MEMORY='16000000G'" in l and "1T" in l and "using 256M" in l
               for l in mine), mine)


def case_names_escaped():
    wd, mine, err = plain_run({}, name="names")
    exp = P.find_experiment(wd)
    raw = open(os.path.join(exp, "profile.json"), "rb").read()
    raw.decode("utf-8")  # strict: raises on invalid UTF-8
    prof = P.load(exp)
    names = {r["name"] for r in prof["regions"]}
    expect("bad\ufffd\ufffd utf8" in names and "ok \u00e9t\u00e9" in names and
           "esc \x1b[31mred\x1b[0m" in names, "names %r" % names)
    txt = open(os.path.join(exp, "profile.txt"), "rb").read()
    expect(not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", txt),
           "profile.txt carries control bytes")
    expect(b"esc \\x1b[31mred" in txt and b"new\\nline" in txt and b"bad\\xff\\xfe" in txt,
           "profile.txt: names not escaped as documented")


def main():
    global A, P, clean_env
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--trace", type=int, default=0)
    ap.add_argument("--profile-trace", type=int, default=0)
    A = ap.parse_args()
    if A.profile_trace:
        if not A.trace:
            print("skipped %s: the runtime has no trace" % A.case)
            return SKIP
        # Every run of the case with the profile and the trace together (their cursor path
        # with records, docs/runtime.md): the same promises hold.
        base_env = clean_env

        def clean_env(extra=None, drop=()):
            return base_env(dict({"INSTR_ENABLE_TRACING": "1"}, **(extra or {})), drop)
    sys.path.insert(0, A.lib)
    import profile as prof_mod
    P = prof_mod
    try:
        return run_case(globals(), A.case, failures=(json.JSONDecodeError, P.ProfileError,
                                                     UnicodeDecodeError))
    except Skip as e:
        print("skipped %s: %s" % (A.case, e))
        return SKIP


if __name__ == "__main__":
    sys.exit(main())
