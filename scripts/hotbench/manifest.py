"""manifest - the cases' descriptions (docs/manifest.md), from a run's context or from hotbench.

    m = Manifest.from_context(run_context)        the manifest the run was made with
    m = Manifest.from_binary("build/hotbench")    hotbench --hb_manifest
    m = Manifest.load(path)                       a file written by hotbench --hb_manifest

A Manifest answers what the scripts used to hard-code: the groups, their reference and
yardstick rows, the ceilings, each strategy's declared complexity and model, the views and their
charts, the gate's selection, the allocator matrix's selection and custom-allocator twins, the
whole-process runs and the peers.
"""

import json
import math
import re
import subprocess

SCHEMA_MAJOR = "hotbench-manifest/1"


class ManifestError(Exception):
    """No manifest, or one this reader cannot use (the message says what to do)."""


# The keys the readers index, with their types (docs/manifest.md); the others are optional.
REQUIRED = {
    "case": {"name": str, "title": str, "incident": str, "groups": list, "e2e": list,
             "peers": list},
    "group": {"name": str, "title": str, "about": str, "strategies": list, "views": list,
              "gate": dict},
    "strategy": {"name": str, "role": str, "complexity": int, "model": str},
    "view": {"key": str, "title": str, "x": str, "x_label": str, "unit": str, "fixed": dict,
             "production": (int, float), "production_label": str, "items_per_x": (int, float),
             "per_label": str, "per_scale": (int, float), "fit_from": str, "charts": list},
}


def _check(obj, kind, where):
    """ManifestError unless obj is an object with the REQUIRED keys of kind."""
    if not isinstance(obj, dict):
        raise ManifestError("%s: a %s is not an object" % (where, kind))
    bad = [k for k, t in REQUIRED[kind].items()
           if not isinstance(obj.get(k), t) or isinstance(obj.get(k), bool)]
    if bad:
        raise ManifestError("%s: %s %r: missing or mistyped %s (docs/manifest.md)" % (
            where, kind, obj.get("name", obj.get("key")), ", ".join(bad)))


def validate(doc, origin):
    """ManifestError unless doc has the shape the readers rely on."""
    cases = doc.get("cases")
    if not isinstance(cases, list):
        raise ManifestError("%s: the manifest has no list of cases" % origin)
    for c in cases:
        _check(c, "case", origin)
        for g in c["groups"]:
            _check(g, "group", origin)
            for s in g["strategies"]:
                _check(s, "strategy", origin)
            for v in g["views"]:
                _check(v, "view", origin)
                if v["fit_from"] not in ("", "2x-llc") and not _is_number(v["fit_from"]):
                    raise ManifestError("%s: view %r: fit_from %r is not \"\", \"2x-llc\" or a "
                                        "number (docs/manifest.md)" % (origin, v["key"],
                                                                       v["fit_from"]))
            _check_alloc(g, origin)
            _check_limits(g, origin)


# Optional keys (absent in manifests older than the allocator matrix): str or null.
ALLOC_KEYS = ("alloc_select", "alloc_select_long")


def _check_alloc(g, origin):
    """ManifestError unless the group's allocator-matrix keys are null, absent or usable: the
    selections regular expressions, every custom_allocator_twin another strategy of the group."""
    for k in ALLOC_KEYS:
        sel = g.get(k)
        if sel is None:
            continue
        if not isinstance(sel, str):
            raise ManifestError("%s: group %r: %s is not a string or null (docs/manifest.md)"
                                % (origin, g["name"], k))
        try:
            re.compile(sel)
        except re.error as e:
            raise ManifestError("%s: group %r: %s %r is not a regular expression: %s" % (
                origin, g["name"], k, sel, e))
    names = [s["name"] for s in g["strategies"]]
    for s in g["strategies"]:
        twin = s.get("custom_allocator_twin")
        if twin is not None and (twin == s["name"] or twin not in names):
            raise ManifestError("%s: group %r: strategy %r names %r as its "
                                "custom_allocator_twin: not another strategy of the group" % (
                                    origin, g["name"], s["name"], twin))


LIMITS_TEXT = ("strategy", "ceiling", "row", "probe", "mechanism")


def _check_limits(g, origin):
    """ManifestError unless the group's limits are null, absent or usable: an object whose
    strategy and ceiling are a strategy and a ceiling of the group, its texts strings."""
    lim = g.get("limits")
    if lim is None:
        return
    bad = [k for k in LIMITS_TEXT if not isinstance(lim.get(k) if isinstance(lim, dict)
                                                    else None, str)]
    if not bad and not isinstance(lim.get("item"), (str, type(None))):
        bad = ["item"]
    if bad:
        raise ManifestError("%s: group %r: limits: missing or mistyped %s (docs/manifest.md)"
                            % (origin, g["name"], ", ".join(bad)))
    roles = {s["name"]: s["role"] for s in g["strategies"]}
    for key, role in (("strategy", "strategy"), ("ceiling", "ceiling")):
        if roles.get(lim[key]) != role:
            raise ManifestError("%s: group %r: limits names %s %r, not a %s of the group"
                                % (origin, g["name"], key, lim[key], role))


def _is_number(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


class Manifest:
    def __init__(self, doc, origin):
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_MAJOR:
            raise ManifestError("%s: not a %s manifest (schema %r)" % (
                origin, SCHEMA_MAJOR, doc.get("schema") if isinstance(doc, dict) else None))
        validate(doc, origin)
        self.doc, self.origin = doc, origin
        self.cases = doc["cases"]
        self._groups = {}
        for c in self.cases:
            for g in c["groups"]:
                self._groups[g["name"]] = dict(g, case=c["name"])

    @classmethod
    def from_context(cls, context, origin="the run"):
        """The manifest a run carries in context.hb_manifest (a JSON string)."""
        text = context.get("hb_manifest") if isinstance(context, dict) else None
        if not text:
            raise ManifestError(
                "%s carries no manifest (context.hb_manifest): it predates hotbench-manifest/1; "
                "rerun it, or upgrade it with scripts/upgrade_run.py of hotbench revision 23eba03 "
                "(the last that has it)" % origin)
        if not isinstance(text, str):
            raise ManifestError("%s: context.hb_manifest is not a string of JSON" % origin)
        try:
            return cls(json.loads(text), origin)
        except ValueError as e:
            raise ManifestError("%s: context.hb_manifest is not JSON: %s" % (origin, e))

    @classmethod
    def from_binary(cls, hotbench):
        """hotbench --hb_manifest."""
        try:
            out = subprocess.run([hotbench, "--hb_manifest"], capture_output=True, text=True,
                                 check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise ManifestError("%s --hb_manifest failed: %s (build it: make)" % (hotbench, e))
        try:
            return cls(json.loads(out), hotbench)
        except ValueError as e:
            raise ManifestError("%s --hb_manifest printed no JSON: %s" % (hotbench, e))

    @classmethod
    def load(cls, path):
        try:
            with open(path) as f:
                return cls(json.load(f), path)
        except (OSError, ValueError) as e:
            raise ManifestError("%s: cannot read a manifest: %s" % (path, e))

    # --- groups and strategies ------------------------------------------------------------

    def groups(self):
        """Every group, in the manifest's order (dicts of docs/manifest.md plus 'case')."""
        return list(self._groups.values())

    def group(self, name):
        """The group of that name, or None."""
        return self._groups.get(name)

    def case_of(self, group):
        name = self._groups[group]["case"]
        return next(c for c in self.cases if c["name"] == name)

    def strategy(self, group, name):
        """The strategy entry, or None."""
        g = self._groups.get(group)
        return next((s for s in g["strategies"] if s["name"] == name), None) if g else None

    def complexity(self, group, name, default=1):
        s = self.strategy(group, name)
        return s["complexity"] if s else default

    def model(self, group, name):
        s = self.strategy(group, name)
        return s["model"] if s else "power"

    def ceilings(self, group=None):
        """Names of the ceiling rows (of one group, or of all)."""
        out = []
        for g in ([self._groups[group]] if group else self._groups.values()):
            out += [s["name"] for s in g["strategies"]
                    if s["role"] == "ceiling" and s["name"] not in out]
        return out

    def twin(self, group, name):
        """The custom-allocator twin of a strategy (docs/manifest.md), or None."""
        s = self.strategy(group, name)
        return s.get("custom_allocator_twin") if s else None

    def alloc_selection(self, long=False):
        """[(group, regex)] of the allocator matrix, in the manifest's order: each group's
        alloc_select, and with long its alloc_select_long too (two entries for a group with
        both). A regex is matched from the start of the name after "<group>/"."""
        out = []
        for g in self._groups.values():
            for k in ALLOC_KEYS[:2 if long else 1]:
                if g.get(k) is not None:
                    out.append((g["name"], g[k]))
        return out

    def in_alloc_matrix(self, name, long=True):
        """Whether a benchmark name ("<group>/<strategy>/<args>/...") is selected."""
        group, _, rest = name.partition("/")
        return any(g == group and re.match(sel, rest + "/")
                   for g, sel in self.alloc_selection(long))

    def limits(self):
        """[(group, limits)] of every group with a limits entry (docs/manifest.md), in the
        manifest's order."""
        return [(g, g["limits"]) for g in self._groups.values() if g.get("limits")]

    def views(self):
        """(group, view) for every view, in the manifest's order."""
        return [(g, v) for g in self._groups.values() for v in g["views"]]

    def view(self, key):
        return next(((g, v) for g, v in self.views() if v["key"] == key), (None, None))
