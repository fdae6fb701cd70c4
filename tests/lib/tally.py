"""Counting checks for test scripts that run every check and report at the end: a failed
check prints what failed and the run goes on."""
import sys


class Tally:
    def __init__(self):
        self.checks = 0
        self.failures = 0

    def check(self, cond, what):
        self.checks += 1
        if not cond:
            self.failures += 1
            print("FAIL:", what, file=sys.stderr)

    def report(self, name):
        """Prints the counts; the exit status for the script (0 or 1)."""
        print(f"{name}: {self.checks} checks, {self.failures} failed")
        return 1 if self.failures else 0
