"""driver.py - the buffer-growth case's peers: Apache httpcore 4.4.16 and the JDK (17
or later; BufgrowPeer.java) read a chunked body into one byte[] by EntityUtils.toByteArray,
InputStream.readAllBytes and ByteArrayOutputStream, across the 2^30 overflow and at 1.7 GB.

The peers-driver interface (docs/manifest.md); scripts/hotbench/peers.py and peers_report.py call
it. HB_HTTPCORE_JAR overrides the jar's path (default /usr/share/java/httpcore.jar; the tests
point it at a missing file to play a machine with a JDK but without the jar).

The JSON part: {"runs": [BufgrowPeer's JSON per run: {"peer": "httpcore-<way>", "way", "gzip",
"file", "size", "crc32" (hex, verified), "warmup", "seconds": [in-process s per run], "java",
"gc", "max_heap", and for toByteArray "reads", "doubling_steps", "additive_steps",
"additive_bytes_copied", "additive_step_s": {"mean", "min", "max", "total"}} plus "label"
("below" | "past-256K" | "past-1M" | "1.7G" | "quick")], "plan_1700000000": BufgrowPeer --way
count on the 1.7 GB identity body, "cliff": {"threshold", "read_size", "below_size", "below_s",
"past_s": {label: s}, "additive_steps_measured", "step_s_per_byte", "step_s_at_2^30",
"predicted_1700000000_s", "predicted_method"}}. Checksum: crc32 of the decoded payload.
"""
import math
import os
import subprocess
import sys
import zlib

from hotbench.peers import PeerError, java_version, log, missing_jdk, run, run_json
from hotbench.peers_report import bars, fmt_s, ratio

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
HTTPCORE_JAR = os.environ.get('HB_HTTPCORE_JAR', '/usr/share/java/httpcore.jar')
JAVA_HEAP = '-Xmx6g'
GIB = 1 << 30
MIB = 1 << 20
BELOW, PAST_256K, PAST_1M = GIB - MIB, GIB + 256 * 1024, GIB + MIB
INCIDENT = 1700000000
TITLE = 'Buffer growth (Apache httpcore 4.4 and the JDK)'


def missing_runtimes(timing=True):
    """Debian packages this case's peers need and this machine lacks."""
    miss = missing_jdk()
    if not os.path.exists(HTTPCORE_JAR):
        miss.append('libhttpcore-java')
    return miss


def context():
    return {'java': java_version(),
            'httpcore': os.path.basename(os.path.realpath(HTTPCORE_JAR)), 'java_heap': JAVA_HEAP}


def prepare(env):
    env.compile_java(os.path.join(HERE, 'BufgrowPeer.java'), [HTTPCORE_JAR])


def _java(env, *args):
    return env.java('BufgrowPeer', *args, jvm=[JAVA_HEAP], classpath=[HTTPCORE_JAR])


def chunked_body(env, size, gzip):
    """A body of size decoded bytes: hotbench's cache in data/ if there, else made in work."""
    cached = os.path.join(TOP, 'data', 'chunked-v1-size%d-chunk4096-16384-%s-trailer0-'
                          'seed20210304.body' % (size, 'gzip1' if gzip else 'identity'))
    if os.path.exists(cached):
        return cached
    path = os.path.join(env.work, 'chunked-size%d-%s.body' % (size, 'gzip' if gzip else 'identity'))
    if not os.path.exists(path):
        log('generating %s' % path)
        run([env.gen, 'chunked', '--size', str(size)] + (['--gzip'] if gzip else []) +
            ['-o', path + '.tmp'], 'hotbench-gen chunked')
        os.rename(path + '.tmp', path)
    return path


def reference_crc32(env, path, gzip):
    """crc32 of what hotbench-decode dechunk decodes; cached beside the body (size, mtime)."""
    st = os.stat(path)
    side = os.path.join(env.work, os.path.basename(path) + '.crc32')
    key = '%d %d' % (st.st_size, int(st.st_mtime))
    if os.path.exists(side):
        k, _, v = open(side).read().strip().rpartition(' ')
        if k == key:
            return v
    p = subprocess.Popen([env.decode, 'dechunk'] + (['--gunzip'] if gzip else []) + [path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    crc = 0
    for block in iter(lambda: p.stdout.read(1 << 20), b''):
        crc = zlib.crc32(block, crc)
    if p.wait() != 0:
        raise PeerError('hotbench-decode dechunk %s: %s' % (path, p.stderr.read().decode().strip()))
    v = '%08x' % crc
    with open(side, 'w') as f:
        f.write('%s %s\n' % (key, v))
    return v


def peer(env, way, path, gzip, ref, warmup=0, runs=1, label=None):
    out = run_json(_java(env, '--way', way, '--warmup', str(warmup), '--runs', str(runs),
                         *(['--gzip'] if gzip else []), path),
                   'BufgrowPeer %s %s' % (way, path))[0]
    if out['crc32'] != ref:
        raise PeerError('bufgrow: httpcore-%s read crc32 %s from %s, the C reference decodes %s'
                        % (way, out['crc32'], path, ref))
    if label:
        out['label'] = label
    log('bufgrow: %-12s %s%s %s s (crc32 %s verified)' % (
        way, os.path.basename(path), ' gzip' if gzip else '',
        ' '.join('%.3f' % s for s in out['seconds']), ref))
    return out


def verify(env):
    """Tiny bodies and the nginx fixture: every way against the C reference, nothing timed."""
    bodies = [(os.path.join(TOP, 'tests', 'fixtures', 'nginx-small.gzip.chunked'), True)]
    for gzip in (False, True):
        p = os.path.join(env.work, 'tiny-%s.body' % ('gzip' if gzip else 'identity'))
        run([env.gen, 'chunked', '--size', '300000'] + (['--gzip'] if gzip else []) +
            ['-o', p], 'hotbench-gen chunked')
        bodies.append((p, gzip))
    for path, gzip in bodies:
        ref = reference_crc32(env, path, gzip)
        for w in ('toByteArray', 'readAllBytes', 'baos', 'count'):
            peer(env, w, path, gzip, ref)


def measure(env, quick, hf):
    res = {'runs': []}
    ways = ('toByteArray', 'readAllBytes', 'baos')
    if quick:  # small sizes only: the same code paths, no cliff
        for gzip in (False, True):
            path = chunked_body(env, 64 * MIB, gzip)
            ref = reference_crc32(env, path, gzip)
            for w in ways:
                res['runs'].append(peer(env, w, path, gzip, ref, 1, 3, 'quick'))
        return res
    # across the overflow: toByteArray with the step probe, one warm-up run each
    past = {}
    for size, label in ((BELOW, 'below'), (PAST_256K, 'past-256K'), (PAST_1M, 'past-1M')):
        path = chunked_body(env, size, False)
        ref = reference_crc32(env, path, False)
        r = peer(env, 'toByteArray', path, False, ref, 1, 1, label)
        res['runs'].append(r)
        if label == 'below':
            below = r
            hf.add('bufgrow', 'httpcore-toByteArray/size:%d' % size,
                   _java(env, '--way', 'toByteArray', path), runs=3)
        else:
            past[label] = r
    # 1.7 GB: the linear ways, identity and gzip; the plan of toByteArray's growth
    for gzip in (False, True):
        path = chunked_body(env, INCIDENT, gzip)
        ref = reference_crc32(env, path, gzip)
        for w in ('readAllBytes', 'baos'):
            res['runs'].append(peer(env, w, path, gzip, ref, 1, 2, '1.7G'))
        if not gzip:
            res['plan_1700000000'] = peer(env, 'count', path, False, ref)
            hf.add('bufgrow', 'httpcore-readAllBytes/size:%d' % INCIDENT,
                   _java(env, '--way', 'readAllBytes', path), runs=3)
    res['cliff'] = _cliff_figures(below, past, res['plan_1700000000'])
    return res


def _cliff_figures(below, past, plan):
    steps = sum(r['additive_steps'] for r in past.values())
    step_s = sum(r['additive_step_s']['total'] for r in past.values())
    copied = sum(r['additive_bytes_copied'] for r in past.values())
    per_byte = step_s / copied
    below_s = min(below['seconds'])
    cliff = {
        'threshold': GIB, 'read_size': 4096, 'below_size': below['size'], 'below_s': below_s,
        'past_s': {k: min(r['seconds']) for k, r in past.items()},
        'additive_steps_measured': steps, 'step_s_per_byte': per_byte,
        'step_s_at_2^30': per_byte * GIB,
        'predicted_1700000000_s': below_s / below['size'] * INCIDENT +
        per_byte * plan['additive_bytes_copied'],
        'predicted_method': 'linear part at the below-2^30 rate + every additive step of the '
                            '1.7 GB plan (real read sizes) priced at the measured seconds per '
                            'byte copied'}
    log('bufgrow: step %.4f s at 2^30 (%d steps measured); toByteArray at 1.7 GB predicted '
        '%.3g s (%d additive steps, %.3g bytes copied)' % (
            per_byte * GIB, steps, cliff['predicted_1700000000_s'],
            plan['additive_steps'], plan['additive_bytes_copied']))
    return cliff


# --- the report's section ------------------------------------------------------------------------

def section(p, c, outdir, link_prefix):
    """Markdown lines: Java beside the C models on the same bodies, and the cliff at 2^30."""
    md = ['### Buffer growth: Apache httpcore 4.4 and the JDK', '',
          'The Java program (`cases/bufgrow/peers/BufgrowPeer.java`) reads the same chunked body '
          'files through httpcore\'s own `ChunkedInputStream` (and `GZIPInputStream`) into one '
          '`byte[]`; its crc32 equals the C reference decoder\'s on every input. In-process '
          'times after one warm-up run in the same JVM (best of the timed runs).', '']
    model = {'toByteArray': 'httpcore', 'readAllBytes': 'block-list', 'baos': 'doubling'}
    rows = ['| body | size | Java way | Java (in-process) | C model | C (median) | Java / C |',
            '|---|---|---|---|---|---|---|']
    chart = []
    cliff = p.get('cliff', {})
    fits = _httpcore_fits(c.path)
    for r in sorted(p.get('runs', []), key=lambda r: (r['gzip'], r['size'], r['way'])):
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
        png = bars(outdir, 'peers-bufgrow', 'Reading a chunked body into one array: Java (red) '
                   'and the C models (blue); hatched = predicted',
                   'time per body (s, log scale)', chart, link_prefix)
        md += ['![peers bufgrow](%s)' % png, '']
    if cliff:
        md += _cliff(p, c, cliff, fits)
    return md


def _hotbench():
    sys.path.insert(0, os.path.join(TOP, 'scripts'))
    import hotbench.fit
    import hotbench.runjson
    return hotbench


def _httpcore_fits(run_path):
    """{strategy: PiecewiseFit} of both C httpcore models from the run (hotbench/fit.py)."""
    hb = _hotbench()
    if not run_path or not os.path.exists(run_path):
        return {}
    run_ = hb.runjson.Run(run_path)
    out = {}
    for s in ('httpcore', 'httpcore-heap'):
        fit = hb.fit.strategy_piecewise_fit(run_, s)[0]
        if fit.ok:
            out[s] = fit
    return out


def _cliff(p, c, cliff, fits):
    """Java's cliff against both C models', each from its piecewise fit (hotbench/fit.py):
    httpcore takes every new array from malloc (fresh pages), httpcore-heap reuses a dead
    array's memory as a JVM heap does."""
    fitm = _hotbench().fit
    plan = p.get('plan_1700000000', {})
    java_step = cliff['step_s_at_2^30']
    java_pred = cliff['predicted_1700000000_s']
    models = [(s, fit, fitm.step_interval(fit), fit.predict(INCIDENT))
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
            fmt_s(st[0]), fitm.fmt_interval(st[1], st[2], fmt_s), ratio(st[0], java_step))
            for _, _, st, _ in models)))
    md.append('| additive steps to 1.7 GB | %s (its real reads: %s in all) | %s |' % (
        '{:,}'.format(plan.get('additive_steps', 0)), '{:,}'.format(plan.get('reads', 0)),
        ' | '.join('%s (full 4096-byte reads) | ' % '{:,}'.format(
            int(math.ceil((INCIDENT - GIB) / 4096))) for _ in models)))
    md.append('| `toByteArray` at 1.7 GB | %s (predicted) | %s |' % (
        fmt_s(java_pred), ' | '.join('%s %s (predicted) | %s' % (
            fmt_s(pr[0]), fitm.fmt_interval(pr[1], pr[2], fmt_s), ratio(pr[0], java_pred))
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
