"""The frame shared by the case-based end-to-end drivers (tests/runtime/check.py,
tests/trace/check_trace.py, tests/xray/check_xray.py, tests/openmp/check_openmp.py): a
failure type, expect(), the environment without INSTR_* settings, a fresh work directory, and
running one case by name."""
import os
import shutil


class Fail(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Fail(what)


def clean_env(extra=None, drop=()):
    """The environment without INSTR_* (nor the names in drop), plus extra: a case's run
    sees only the settings it gives."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_") and k not in drop}
    env.update(extra or {})
    return env


def fresh_dir(path):
    """An empty directory at path (what a previous run left there is removed, read-only
    directories included)."""
    if os.path.exists(path):
        for root, dirs, _ in os.walk(path):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def run_case(namespace, case, failures=()):
    """Runs namespace["case_" + case](); prints "ok CASE" or "FAIL CASE: why" (for Fail and
    the exception types in `failures`) and returns the exit status (0, 1; 2 for an unknown
    case)."""
    fn = namespace.get("case_" + case)
    if not fn:
        print("unknown case %s" % case)
        return 2
    try:
        fn()
    except (Fail,) + tuple(failures) as e:
        print("FAIL %s: %s" % (case, e))
        return 1
    print("ok %s" % case)
    return 0
