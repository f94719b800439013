#!/usr/bin/python3
"""peers_report.py - the report's "real libraries beside the C models" section (issue 7).

section(peers_json_path, run_json_path_or_None, outdir) -> str returns Markdown: per case the real
library's figures (from scripts/peers.py's JSON, schema "hotbench-peers/1") beside the C
strategies on the same input (from a hotbench run JSON: google-benchmark's, its `_median` aggregate
rows), with the ratio; for buffer growth, the httpcore cliff measured in Java (the cost of one
additive step past 2^30 and the predicted 1.7 GB time) against the C model's (the `width:32`
cliff rows when the run has them, and the prediction in the skip message of
`bufgrow/httpcore/size:1700000000/read:4096`). Charts go into outdir as PNG and SVG (matplotlib,
Agg); the Markdown links them as `<basename(outdir)>/<file>.png`, i.e. relative to the folder
that holds outdir (report.py passes <report folder>/charts); pass link_prefix to change that.
Missing peers JSON: a short paragraph saying how to produce it. Run under /usr/bin/python3.

Standalone: scripts/peers_report.py [PEERS.json [RUN.json [OUTDIR]]] prints the Markdown
(--help: usage).
"""
import json
import math
import os
import re
import sys

GIB = 1 << 30
INCIDENT = 1700000000
UNIT_S = {'ns': 1e-9, 'us': 1e-6, 'ms': 1e-3, 's': 1.0}
HOW_TO = ('No peer results yet. Install the runtimes with `scripts/deps.sh --peers` (as root: '
          'openjdk-17-jdk-headless, libhttpcore-java, ruby, ruby-ox, ruby-libxml, ruby-nokogiri, '
          'python3-dateutil) and run `make bench-peers`; it writes '
          '`results/peers-latest.json`.')


# --- the C side: google-benchmark rows ------------------------------------------------------
class CRun:
    def __init__(self, path):
        self.path = path
        self.rows = {}
        self.context = {}
        if path and os.path.exists(path):
            with open(path) as f:
                d = json.load(f)
            self.context = d.get('context', {})
            for b in d.get('benchmarks', []):
                self.rows.setdefault(b['name'], []).append(b)

    def median_s(self, name):
        """Seconds of `<name>/real_time_median` (or `<name>_median`), else None."""
        for n in (name + '/real_time_median', name + '_median'):
            for b in self.rows.get(n, []):
                if not b.get('error_occurred'):
                    return b['real_time'] * UNIT_S[b.get('time_unit', 'ns')]
        # one repetition: google-benchmark writes no aggregates, take the iteration rows
        ts = sorted(b['real_time'] * UNIT_S[b.get('time_unit', 'ns')]
                    for n in (name + '/real_time', name) for b in self.rows.get(n, [])
                    if b.get('run_type') == 'iteration' and not b.get('error_occurred'))
        return ts[len(ts) // 2] if ts else None

    def skip(self, name):
        """(predicted s, bytes copied, growths) from a skipped row's message, else None."""
        for b in self.rows.get(name + '/real_time', []) + self.rows.get(name, []):
            m = re.search(r'predicted ([0-9.eE+-]+) s .*?([0-9.eE+-]+) bytes copied in (\d+) '
                          r'growths', b.get('error_message', ''))
            if m:
                return float(m.group(1)), float(m.group(2)), int(m.group(3))
        return None


# --- formatting -------------------------------------------------------------------------------
def fmt_s(s):
    if s is None:
        return '-'
    for unit, f in (('s', 1.0), ('ms', 1e-3), ('us', 1e-6)):
        if s >= f:
            return '%.3g %s' % (s / f, unit)
    return '%.3g ns' % (s * 1e9)


def ratio(a, b):
    return '%.3g' % (a / b) if a and b else '-'


def _plt():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    plt.rcParams.update({'font.size': 9, 'legend.fontsize': 7.5, 'figure.dpi': 110,
                         'savefig.bbox': 'tight'})
    return plt


# The chart files; report.py sets them from its --chart-formats (its --dpi sets savefig.dpi).
FORMATS = ('png', 'svg')


def _save(plt, fig, outdir, name, link_prefix):
    os.makedirs(outdir, exist_ok=True)
    for ext in FORMATS:
        fig.savefig(os.path.join(outdir, '%s.%s' % (name, ext)),
                    metadata={'Date': None} if ext == 'svg' else None)
    plt.close(fig)
    return '%s%s.png' % (link_prefix, name)


def _bars(outdir, name, title, xlabel, rows, link_prefix, secs=True):
    """Horizontal bars on a log axis; rows: (label, value, kind) kind in peer|c|predicted."""
    plt = _plt()
    rows = [r for r in rows if r[1]]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.2))
    colours = {'peer': '#d62728', 'c': '#1f77b4'}
    for i, (label, v, kind) in enumerate(rows):
        pred = kind.startswith('predicted')
        edge = colours['c' if kind == 'predicted-c' else 'peer']
        ax.barh(i, v, color='#ffffff' if pred else colours[kind],
                edgecolor=edge if pred else 'none', hatch='//' if pred else None)
        ax.text(v, i, ' ' + (fmt_s(v) if secs else '%.3g' % v), va='center', fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xscale('log')
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis='x', which='both', alpha=0.3)
    return _save(plt, fig, outdir, name, link_prefix)


# --- the three cases ----------------------------------------------------------------------------
def _bufgrow(p, c, outdir, link_prefix):
    md = ['### Buffer growth: Apache httpcore 4.4 and the JDK', '',
          'The Java program (`cases/bufgrow/peers/BufgrowPeer.java`) reads the same chunked body '
          'files through httpcore\'s own `ChunkedInputStream` (and `GZIPInputStream`) into one '
          '`byte[]`; its crc32 equals the C reference decoder\'s on every input. In-process '
          'times after one warm-up run in the same JVM (best of the timed runs).', '']
    runs = p.get('runs', [])
    model = {'toByteArray': 'httpcore', 'readAllBytes': 'block-list', 'baos': 'doubling'}
    rows = ['| body | size | Java way | Java (in-process) | C model | C (median) | Java / C |',
            '|---|---|---|---|---|---|---|']
    chart = []
    cliff = p.get('cliff', {})
    fits = _httpcore_fits(c.path)
    for r in sorted(runs, key=lambda r: (r['gzip'], r['size'], r['way'])):
        strat = model[r['way']]
        fam = 'bufgrow-gzip' if r['gzip'] else 'bufgrow'
        cs = c.median_s('%s/%s/size:%d/read:4096' % (fam, strat, r['size']))
        how = ''
        if cs is None and strat == 'httpcore' and not r['gzip']:
            cs = c.median_s('bufgrow-cliff/httpcore/width:32/size:%d' % r['size'])
            if cs is None and 'httpcore' in fits:  # a size the C run did not measure
                cs, how = fits['httpcore'].predict(r['size'])[0], ' (its fit)'
        js = min(r['seconds'])
        body = 'gzip' if r['gzip'] else 'identity'
        rows.append('| %s | %s | `%s` | %s | `%s` | %s%s | %s |' % (
            body, '{:,}'.format(r['size']), r['way'], fmt_s(js), strat, fmt_s(cs), how,
            ratio(js, cs)))
        if r['size'] == INCIDENT or r.get('label') == 'quick':
            chart.append(('Java %s (%s)' % (r['way'], body), js, 'peer'))
            chart.append(('C %s (%s)' % (strat, body), cs, 'c'))
    if cliff:
        js = cliff['predicted_1700000000_s']
        chart.append(('Java toByteArray (identity)', js, 'predicted'))
        for s_, fit in fits.items():
            cp = fit.predict(INCIDENT)[0]
            rows.append('| identity | 1,700,000,000 | `toByteArray` | %s (predicted) | `%s` | '
                        '%s (predicted by its fit) | %s |' % (fmt_s(js), s_, fmt_s(cp),
                                                              ratio(js, cp)))
            chart.append(('C %s (identity)' % s_, cp, 'predicted-c'))
    if len(rows) > 2:
        md += rows + ['', 'C `block-list` models `readAllBytes` (8 KiB blocks, one gather copy), '
                      '`doubling` models `ByteArrayOutputStream`, `httpcore` models '
                      '`EntityUtils.toByteArray` (its sizes near 2^30 are the '
                      '`bufgrow-cliff/httpcore/width:32` rows).', '']
        png = _bars(outdir, 'peers-bufgrow', 'Reading a chunked body into one array: Java (red) '
                    'and the C models (blue); hatched = predicted',
                    'time per body (s, log scale)', chart, link_prefix)
        md += ['![peers bufgrow](%s)' % png, '']
    if cliff:
        md += _cliff(p, c, cliff, fits)
    return md


def _httpcore_fits(run_path):
    """{strategy: PiecewiseFit} of both C httpcore models from the run (scripts/hbfit.py)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import hbfit
    if not run_path or not os.path.exists(run_path):
        return {}
    run = hbfit.Run(run_path)
    out = {}
    for s in ('httpcore', 'httpcore-heap'):
        fit = hbfit.httpcore_fit(run, s)[0]
        if fit.ok:
            out[s] = fit
    return out


def _cliff(p, c, cliff, fits):
    """Java's cliff against both C models', each from its piecewise fit (scripts/hbfit.py):
    httpcore takes every new array from malloc (fresh pages), httpcore-heap reuses a dead
    array's memory as a JVM heap does."""
    import hbfit
    plan = p.get('plan_1700000000', {})
    java_step = cliff['step_s_at_2^30']
    java_pred = cliff['predicted_1700000000_s']
    models = [(s, fit, hbfit.step_interval(fit), fit.predict(INCIDENT))
              for s, fit in fits.items()]
    md = ['#### The cliff at 2^30, Java against the C models', '',
          '| | Java httpcore 4.4.16 (measured) | %s |' % ' | '.join(
              'C `%s` | C / Java' % m[0] for m in models),
          '|---|---|' + '---|---|' * len(models)]
    below = [c.median_s('bufgrow-cliff/%s/width:32/size:%d' % (m[0], cliff['below_size']))
             for m in models]
    md.append('| `toByteArray` just below 2^30 (%d B) | %s | %s |' % (
        cliff['below_size'], fmt_s(cliff['below_s']), ' | '.join(
            '%s | %s' % (fmt_s(b), ratio(b, cliff['below_s'])) for b in below)))
    md.append('| one additive step at 2^30 (a new 1 GiB array and a copy) | %s | %s |' % (
        fmt_s(java_step), ' | '.join('%s %s | %s' % (
            fmt_s(st[0]), hbfit.fmt_interval(st[1], st[2], fmt_s), ratio(st[0], java_step))
            for _, _, st, _ in models)))
    md.append('| additive steps to 1.7 GB | %s (its real reads: %s in all) | %s |' % (
        '{:,}'.format(plan.get('additive_steps', 0)), '{:,}'.format(plan.get('reads', 0)),
        ' | '.join('%s (full 4096-byte reads) | ' % '{:,}'.format(
            int(math.ceil((INCIDENT - GIB) / 4096))) for _ in models)))
    md.append('| `toByteArray` at 1.7 GB | %s (predicted) | %s |' % (
        fmt_s(java_pred), ' | '.join('%s %s (predicted) | %s' % (
            fmt_s(pr[0]), hbfit.fmt_interval(pr[1], pr[2], fmt_s), ratio(pr[0], java_pred))
            for _, _, _, pr in models)))
    md += ['', 'Java\'s step is the mean time `EntityUtils` spends in `ByteArrayBuffer.append` on '
           'a read that grows the buffer past 2^30 (%d steps timed, each a new `byte[]` of the '
           'needed length and a copy of the old one); its prediction prices every additive step '
           'of the real read sequence at the measured seconds per byte copied. The C steps and '
           'predictions come from the piecewise fits of the report\'s cliff section (95%% '
           'intervals).' % cliff.get('additive_steps_measured', 0), '']
    for s, fit, st, pr in models:
        r = st[0] / java_step
        rp = pr[0] / java_pred
        inside = max(r, 1 / r) <= 2 and max(rp, 1 / rp) <= 2
        md.append('- C `%s`: one step is %.2fx the real library\'s (95%% interval %.2f-%.2fx), '
                  'its 1.7 GB prediction %.2fx (%.2f-%.2fx): the point estimates are **%s 2x**.'
                  % (s, r, st[1] / java_step, st[2] / java_step, rp, pr[1] / java_pred,
                     pr[2] / java_pred, 'within' if inside else 'not within'))
    md += ['', 'Why they differ: `httpcore` takes each new 1 GiB array from `malloc`, fresh pages '
           'with a first-touch fault on every one, while the JVM reuses heap memory it has already '
           'touched; `httpcore-heap` models that reuse and zeroes each new array as a `new '
           'byte[]` is. httpcore\'s `ChunkedInputStream` also returns short reads at chunk '
           'boundaries, so the real library makes more, smaller appends (more additive steps) '
           'than the models\' full 4096-byte reads.', '']
    return md


def _rfc3339(p, c, outdir, link_prefix):
    inp = p.get('input', {})
    md = ['### Timestamps: java.time (JDK 17)', '',
          'The Java program (`cases/rfc3339/peers/Rfc3339Peer.java`) parses the same generated '
          'rows (%s of them: %d rows with offsets beyond +-18:00 dropped, which java.time '
          'rejects although RFC 3339 allows them) after JIT warm-up; its checksum of every '
          'instant equals the C reference parser\'s. Median of the timed passes.'
          % ('{:,}'.format(inp.get('rows', 0)), inp.get('rows_dropped', 0)), '']
    rows_c = 100000
    cs = {}
    for s in ('strptime', 'sscanf', 'scalar', 'swar', 'simd', 'millis-parse', 'millis-strtoll'):
        t = c.median_s('rfc3339/%s/rows:%d' % (s, rows_c))
        if t:
            cs[s] = t / rows_c * 1e9
    ref = cs.get('scalar')
    md += ['| parser | ns per timestamp | / C `scalar` | / C `simd` |', '|---|---|---|---|']
    chart = []
    names = {'spanner': 'Java Spanner formatter', 'instant': 'Java Instant.parse',
             'offset': 'Java OffsetDateTime.parse', 'millis': 'Java Long.parseLong (millis)'}
    for r in p.get('runs', []):
        v = r['ns_per_ts_median']
        md.append('| %s | %.1f | %s | %s |' % (names.get(r['way'], r['way']), v,
                                                ratio(v, ref), ratio(v, cs.get('simd'))))
        chart.append((names.get(r['way'], r['way']), v, 'peer'))
    for s, v in cs.items():
        md.append('| C `%s` | %.1f | %s | %s |' % (s, v, ratio(v, ref), ratio(v, cs.get('simd'))))
        chart.append(('C ' + s, v, 'c'))
    md.append('')
    if chart:
        png = _bars(outdir, 'peers-rfc3339', 'RFC 3339 parsing, 100k rows: Java (red), C (blue)',
                    'ns per timestamp (log scale)', chart, link_prefix, secs=False)
        md += ['![peers rfc3339](%s)' % png, '']
    return md


C_VOLUMES = ('expat-typed', 'expat-tree', 'libxml2-dom', 'expat-typed-arena', 'fast')


def _volumes(p, c, outdir, link_prefix):
    md = ['### XML: the AWS SDK for Ruby\'s engines and botocore\'s ElementTree', '',
          'Ruby 3.1 with the Debian gems, driven as aws-sdk-core\'s `Aws::Xml::Parser` drives '
          'them (`cases/volumes/peers/volumes_peer.rb`: a frame per element, one Struct per '
          'volume and per tag, `Time.parse` for timestamps), and Python\'s ElementTree walked '
          'into dicts as botocore does (`volumes_etree.py`). Every peer\'s volume count, tag '
          'count and digest of all members equal the C reference decoder\'s. Milliseconds per '
          'response (median after warm-up).', '']
    runs = [r for r in p.get('runs', []) if not r.get('variant')]
    ascii_run = next((r for r in p.get('runs', []) if r.get('variant') == 'ascii'), None)
    at20 = [r for r in runs if r.get('tags_per_volume') == 20]
    ref = c.median_s('volumes/expat-typed/volumes:300/tags:20/compact:0/piece:0')
    md += ['| 300 volumes x 20 tags | ms per response (min-max) | / C `expat-typed` | '
           '/ C `fast` |', '|---|---|---|---|']
    fast = c.median_s('volumes/fast/volumes:300/tags:20/compact:0/piece:0')
    chart = []
    for r in sorted(at20, key=lambda r: r['ms_median']):
        v = r['ms_median'] / 1e3
        md.append('| %s (%s) | %.3g (%.3g-%.3g) | %s | %s |' % (
            r['peer'], r.get('engine_version') or r.get('python', ''), v * 1e3, min(r['ms']),
            max(r['ms']), ratio(v, ref), ratio(v, fast)))
        chart.append((r['peer'], v, 'peer'))
    for s in C_VOLUMES:
        v = c.median_s('volumes/%s/volumes:300/tags:20/compact:0/piece:0' % s)
        if v:
            md.append('| C `%s` | %.3g | %s | %s |' % (s, v * 1e3, ratio(v, ref), ratio(v, fast)))
            chart.append(('C ' + s, v, 'c'))
    md.append('')
    rexml = next((r for r in at20 if r['engine'] == 'rexml'), None)
    if ascii_run and rexml:
        md += ['REXML\'s time follows the non-ASCII bytes, not the elements: on the same response '
               'with every run of non-ASCII bytes replaced by `x` it takes %.3g ms instead of '
               '%.3g ms (%.3gx), consistent with a scanner that moves by character positions in a '
               'UTF-8 string (linear-time in Ruby once it holds multibyte characters).' % (
                   ascii_run['ms_median'], rexml['ms_median'],
                   rexml['ms_median'] / ascii_run['ms_median']), '']
    if chart:
        png = _bars(outdir, 'peers-volumes', 'DescribeVolumes 300 x 20: peers (red), C (blue)',
                    'time per response (s, log scale)', chart, link_prefix)
        md += ['![peers volumes](%s)' % png, '']
    # the tag sweep
    peers = sorted({r['peer'] for r in runs})
    tags = sorted({r['tags_per_volume'] for r in runs})
    if len(tags) > 1:
        png = _tags_chart(runs, peers, tags, c, outdir, link_prefix)
        md += ['| tags per volume | ' + ' | '.join(peers) + ' | C `expat-typed` |',
               '|---' * (len(peers) + 2) + '|']
        for t in tags:
            cells = []
            for name in peers:
                r = next((x for x in runs if x['peer'] == name and x['tags_per_volume'] == t),
                         None)
                sk = next((x for x in p.get('skipped', []) if x['peer'] == name and
                           x['tags_per_volume'] == t), None)
                cells.append('%.3g' % r['ms_median'] if r else
                             ('~%.3g (predicted, not run)' % sk['predicted_ms'] if sk else '-'))
            cv = c.median_s('volumes/expat-typed/volumes:300/tags:%d/compact:0/piece:0' % t)
            md.append('| %d | %s | %s |' % (t, ' | '.join(cells), '%.3g' % (cv * 1e3) if cv
                                            else '-'))
        md += ['', 'Milliseconds per response.', '', '![peers volumes tags](%s)' % png, '']
    return md


def _tags_chart(runs, peers, tags, c, outdir, link_prefix):
    """ms per response against tags per volume: the real engines solid, the C strategies dashed,
    on a symlog x axis (0 tags has its place) that says it is one."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, name in enumerate(peers):
        pts = sorted((r['tags_per_volume'], r['ms_median']) for r in runs if r['peer'] == name)
        ax.plot([x for x, _ in pts], [y for _, y in pts], 'o-', label=name,
                color=plt.get_cmap('tab10')(i))
    for j, s in enumerate(C_VOLUMES):
        pts = [(t, c.median_s('volumes/%s/volumes:300/tags:%d/compact:0/piece:0' % (s, t)))
               for t in tags]
        pts = [(t, v * 1e3) for t, v in pts if v]
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], 's--', ms=3, label='C ' + s,
                    color=plt.get_cmap('Set2')(j))
    ax.set_yscale('log')
    ax.set_xscale('symlog', linthresh=1)
    ax.set_xlim(-0.4, max(tags) * 1.35)  # room for the markers at 0 and at the largest
    ax.set_xticks(tags)
    ax.set_xticklabels([str(t) for t in tags])
    ax.set_xlabel('tags per volume, 300 volumes (symlog axis: linear from 0 to 1, log above)')
    ax.set_ylabel('ms per response (log scale)')
    ax.set_title('Tag scaling: real engines (solid) and C strategies (dashed)')
    ax.grid(alpha=0.3, which='both')
    ax.legend(ncol=2)
    return _save(plt, fig, outdir, 'peers-volumes-tags', link_prefix)


PEER_CASES = {'bufgrow': 'Buffer growth (Apache httpcore 4.4 and the JDK)',
              'rfc3339': 'Timestamps (java.time)',
              'volumes': 'XML (the AWS SDK for Ruby\'s engines and botocore\'s ElementTree)'}


def _skipped(p):
    """One sentence per case peers.py skipped for a missing runtime ("skipped_cases": {case:
    {"missing": [package, ...], "install": command}}): the packages and how to measure it."""
    sk = p.get('skipped_cases')
    if not isinstance(sk, dict):
        return []
    md = []
    for case, why in sorted(sk.items()):
        why = why if isinstance(why, dict) else {}
        miss = why.get('missing')
        miss = ' '.join(map(str, miss)) if isinstance(miss, list) else str(miss or '?')
        md += ['**Skipped: %s**: this machine lacks %s; install it with `%s` (as root), then run '
               '`make bench-peers`.' % (PEER_CASES.get(case, case), miss,
                                        why.get('install') or 'scripts/deps.sh --peers'), '']
    return md


def section(peers_json_path, run_json_path_or_None, outdir, link_prefix=None):
    """Markdown for the report; charts written into outdir (see the module docstring)."""
    if not peers_json_path or not os.path.exists(peers_json_path):
        return HOW_TO + '\n'
    with open(peers_json_path) as f:
        p = json.load(f)
    if p.get('schema') != 'hotbench-peers/1':
        return ('`%s` is not a peers result (schema %r): rerun `make bench-peers`.\n'
                % (peers_json_path, p.get('schema')))
    if link_prefix is None:
        link_prefix = os.path.basename(os.path.normpath(outdir)) + '/'
    c = CRun(run_json_path_or_None)
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
    if 'bufgrow' in p:
        md += _bufgrow(p['bufgrow'], c, outdir, link_prefix)
    if 'rfc3339' in p:
        md += _rfc3339(p['rfc3339'], c, outdir, link_prefix)
    if 'volumes' in p:
        md += _volumes(p['volumes'], c, outdir, link_prefix)
    md += _skipped(p)
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


if __name__ == '__main__':
    sys.exit(main())
