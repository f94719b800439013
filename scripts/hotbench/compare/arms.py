"""arms - one side of a compare: a hotbench binary and the environment it runs in."""


class Arm:
    """label: "base" or "head"; binary: path of a hotbench executable; env: variables added to
    the environment of its processes (the test hooks' HB_INJECT, say), None for none; commit:
    the commit id it was built from ("worktree" for uncommitted changes, None when unknown);
    rev: the revision as the user named it."""

    def __init__(self, label, binary, env=None, commit=None, rev=None):
        self.label = label
        self.binary = binary
        self.env = dict(env or {})
        self.commit = commit
        self.rev = rev
        self.copies = [binary]  # the files its processes run from (copies.py)
        self.sha256 = None  # the binary's, once copies.write has read it

    def describe(self):
        """A dict for compare.json: label, rev, commit, binary, env, sha256 (of the binary,
        None when not copied) and copies (how many copies of the binary were written for its
        processes, both rounds': a second confirmation round's follow the first round's,
        copies.write's first; each process's own is in compare.json's processes)."""
        return dict(label=self.label, rev=self.rev, commit=self.commit, binary=self.binary,
                    env=self.env, sha256=self.sha256,
                    copies=getattr(self, "first_copy", 1) - 1 + len(self.copies))
