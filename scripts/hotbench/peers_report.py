"""peers_report - the report's "real libraries beside the C models" section.

    section(peers_json_path, run_json_path_or_None, outdir, link_prefix=None) -> str

returns Markdown: per case with peers, what its driver (cases/<case>/peers/driver.py, named by
the manifest's peers_driver) writes from its part of scripts/peers.py's JSON (schema
"hotbench-peers/1") beside the C strategies of a hotbench run JSON (CRun: its `_median`
aggregate rows); then the cases skipped for a missing runtime and the whole-process times. The
manifest comes from the peers JSON's context.hb_manifest, else the run JSON's, else
build/hotbench --hb_manifest. Charts go into outdir (the one chart style, hotbench.style); the
Markdown links them as `<basename(outdir)>/<file>.png` unless link_prefix says otherwise. Missing
peers JSON: a short paragraph saying how to produce it. Run under /usr/bin/python3.

For the drivers: CRun, fmt_s, ratio and bars (the horizontal bar chart of peers beside C).
"""
import json
import os
import sys

from .manifest import Manifest, ManifestError
from .peers import TOP, drivers, load_driver
from .style import plt, save
from .units import TIME_UNIT

INSTALL = 'scripts/deps.sh --peers'


class CRun:
    """The C side: a hotbench run JSON's rows by name (none when path is None or absent)."""

    def __init__(self, path):
        self.path = path
        self.rows = {}
        self.context = {}
        if path and os.path.exists(path):
            try:
                with open(path) as f:
                    d = json.load(f)
            except (OSError, ValueError):
                d = None  # not a run JSON: the peers alone
            if not isinstance(d, dict) or not isinstance(d.get('benchmarks', []), list):
                self.path = None  # the drivers read path too
                return
            self.context = d.get('context') or {}
            for b in d.get('benchmarks', []):
                if isinstance(b, dict) and 'name' in b:
                    self.rows.setdefault(b['name'], []).append(b)

    def median_s(self, name):
        """Seconds of `<name>/real_time_median` (or `<name>_median`), else None."""
        for n in (name + '/real_time_median', name + '_median'):
            for b in self.rows.get(n, []):
                if not b.get('error_occurred'):
                    return b['real_time'] * TIME_UNIT[b.get('time_unit', 'ns')]
        # one repetition: google-benchmark writes no aggregates, take the iteration rows
        ts = sorted(b['real_time'] * TIME_UNIT[b.get('time_unit', 'ns')]
                    for n in (name + '/real_time', name) for b in self.rows.get(n, [])
                    if b.get('run_type') == 'iteration' and not b.get('error_occurred'))
        return ts[len(ts) // 2] if ts else None


def fmt_s(s):
    if s is None:
        return '-'
    for unit, f in (('s', 1.0), ('ms', 1e-3), ('us', 1e-6)):
        if s >= f:
            return '%.3g %s' % (s / f, unit)
    return '%.3g ns' % (s * 1e9)


def ratio(a, b):
    return '%.3g' % (a / b) if a and b else '-'


PEER_COLOURS = {'peer': '#d62728', 'c': '#1f77b4'}  # the real library red, the C models blue


def bars(outdir, name, title, xlabel, rows, link_prefix, secs=True):
    """Horizontal bars on a log axis; rows: (label, value, kind) kind in peer|c|predicted|
    predicted-c (hatched: a prediction, edged in the colour of its side). Returns the PNG link."""
    rows = [r for r in rows if r[1]]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.2))
    for i, (label, v, kind) in enumerate(rows):
        pred = kind.startswith('predicted')
        edge = PEER_COLOURS['c' if kind == 'predicted-c' else 'peer']
        ax.barh(i, v, color='#ffffff' if pred else PEER_COLOURS[kind],
                edgecolor=edge if pred else 'none', hatch='//' if pred else None)
        ax.text(v, i, ' ' + (fmt_s(v) if secs else '%.3g' % v), va='center', fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xscale('log')
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis='x', which='both', alpha=0.3)
    return link_prefix + save(fig, os.path.join(outdir, name))


def _manifest(p, c):
    """The manifest of the peers JSON, else of the run JSON, else build/hotbench's, or None."""
    for ctx, origin in ((p.get('context'), 'the peers JSON'), (c.context, 'the run JSON')):
        try:
            return Manifest.from_context(ctx, origin)
        except ManifestError:
            continue
    try:
        return Manifest.from_binary(os.path.join(TOP, 'build', 'hotbench'))
    except (ManifestError, ValueError):
        return None


def _drivers(p, manifest):
    """{case: driver} from the manifest; without one (a peers JSON and a run JSON older than the
    manifest, and no build), the drivers where docs/manifest.md puts them,
    cases/<case>/peers/driver.py, for the cases the peers JSON holds."""
    if manifest:
        return drivers(manifest)
    names = [k for k, v in p.items() if isinstance(v, dict) and k not in
             ('context', 'skipped_cases')] + sorted(p.get('skipped_cases') or {})
    out = {}
    for case in names:
        path = os.path.join('cases', case, 'peers', 'driver.py')
        if os.path.exists(os.path.join(TOP, path)):
            out[case] = load_driver(case, path)
    return out


def how_to(manifest=None):
    """The paragraph of a report without peer results."""
    pkgs = []
    for case in (manifest.cases if manifest else []):
        for peer in case.get('peers', []):
            pkgs += [x for x in peer.get('packages', []) if x not in pkgs]
    return ('No peer results yet. Install the runtimes with `%s`%s and run `make bench-peers`; '
            'it writes `results/peers-latest.json`.' % (
                INSTALL, ' (as root: %s)' % ', '.join(pkgs) if pkgs else ' (as root)'))


def _skipped(p, manifest, drv):
    """One sentence per case peers.py skipped for a missing runtime ("skipped_cases": {case:
    {"missing": [package, ...], "install": command}}): the packages and how to measure it."""
    sk = p.get('skipped_cases')
    if not isinstance(sk, dict):
        return []
    titles = {c['name']: c['title'] for c in (manifest.cases if manifest else [])}
    md = []
    for case, why in sorted(sk.items()):
        why = why if isinstance(why, dict) else {}
        miss = why.get('missing')
        miss = ' '.join(map(str, miss)) if isinstance(miss, list) else str(miss or '?')
        title = getattr(drv.get(case), 'TITLE', None) or titles.get(case, case)
        md += ['**Skipped: %s**: this machine lacks %s; install it with `%s` (as root), then run '
               '`make bench-peers`.' % (title, miss, why.get('install') or INSTALL), '']
    return md


def section(peers_json_path, run_json_path_or_None, outdir, link_prefix=None):
    """Markdown for the report; charts written into outdir (see the module docstring)."""
    c = CRun(run_json_path_or_None)
    if not peers_json_path or not os.path.exists(peers_json_path):
        return how_to(_manifest({}, c)) + '\n'
    try:
        with open(peers_json_path) as f:
            p = json.load(f)
    except (OSError, ValueError) as e:
        return '`%s` cannot be read as JSON (%s): rerun `make bench-peers`.\n' % (
            peers_json_path, e)
    if not isinstance(p, dict) or p.get('schema') != 'hotbench-peers/1':
        return ('`%s` is not a peers result (schema %r): rerun `make bench-peers`.\n'
                % (peers_json_path, p.get('schema') if isinstance(p, dict) else None))
    if link_prefix is None:
        link_prefix = os.path.basename(os.path.normpath(outdir)) + '/'
    manifest = _manifest(p, c)
    drv = _drivers(p, manifest)
    ctx = p.get('context', {})
    md = ['From `%s` (%s, %s; %s; Ruby %s; Python %s). The machine is shared: figures are '
          'indicative. %s' % (
              os.path.relpath(os.path.realpath(peers_json_path)), ctx.get('date', '?'),
              ctx.get('git_revision', '?'), ctx.get('java', 'java ?'),
              ctx.get('ruby', '?').split(' ')[1] if ' ' in ctx.get('ruby', '') else '?',
              ctx.get('python', '?'),
              'C figures from `%s`.' % os.path.relpath(os.path.realpath(run_json_path_or_None))
              if c.rows else 'No C run JSON given: peers only.'), '']
    if ctx.get('quick'):
        md += ['*Quick profile: small sizes only, no cliff.*', '']
    for case, d in drv.items():
        if case in p and hasattr(d, 'section'):
            try:
                md += d.section(p[case], c, outdir, link_prefix)
            except ManifestError as e:
                md += ['**%s: the C run cannot be used (%s)**: rerun `make bench`.' % (case, e),
                       '']
    md += _skipped(p, manifest, drv)
    hf = p.get('hyperfine', [])
    if hf:
        md += ['### Whole-process times (hyperfine)', '',
               'The same verified commands run as whole processes (JVM or interpreter start, '
               'reading the input, one pass): mean +- standard deviation over the runs.', '',
               '| command | mean | stddev | min | runs |', '|---|---|---|---|---|']
        for h in hf:
            md.append('| %s | %s | %s | %s | %d |' % (h['name'], fmt_s(h['mean_s']),
                                                      fmt_s(h['stddev_s']), fmt_s(h['min_s']),
                                                      len(h['times_s'])))
        md.append('')
    return '\n'.join(md)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(
        prog='python3 -m hotbench.peers_report',
        description='The peers section of the report (scripts/peers.py\'s JSON beside the C '
        'strategies of a run JSON), printed as Markdown; its charts go into OUTDIR.',
        epilog=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('peers', nargs='?', default='results/peers-latest.json',
                    help='peers JSON of make bench-peers (%(default)s)')
    ap.add_argument('run', nargs='?', default='results/latest.json',
                    help='run JSON of make bench, for the C figures (%(default)s)')
    ap.add_argument('outdir', nargs='?', default='/tmp/peers-charts',
                    help='folder of the charts (%(default)s)')
    a = ap.parse_args(argv)
    print(section(a.peers, a.run, a.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
