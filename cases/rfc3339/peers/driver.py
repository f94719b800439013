"""driver.py - the RFC 3339 case's peers: the JDK's java.time (Rfc3339Peer.java, Java SE 17 or
later) parsing the same rows as the C strategies: the Spanner client's formatter, Instant.parse,
OffsetDateTime.parse and Long.parseLong (UNIX_MILLIS) on 100k rows.

The peers-driver interface (docs/manifest.md); scripts/hotbench/peers.py and peers_report.py call
it. The JSON part: {"input": {"file", "rows", "rows_dropped", "why_dropped"}, "reference":
{"rfc3339": checksum, "millis": checksum}, "runs": [Rfc3339Peer's JSON: {"peer": "java-<way>",
"way", "rows", "checksum", "warmup", "ns_per_ts": [...], "ns_per_ts_median", "java"}]}. The
checksum of (seconds, nanos) pairs in order is defined in Rfc3339Peer.java (ts_checksum here).
"""
import os

from hotbench.peers import PeerError, java_version, log, missing_jdk, run, run_json
from hotbench.peers_report import bars, ratio

HERE = os.path.dirname(os.path.abspath(__file__))
TITLE = 'Timestamps (java.time)'
ROWS = 100000


def missing_runtimes(timing=True):
    """Debian packages this case's peers need and this machine lacks."""
    return missing_jdk()


def context():
    return {'java': java_version()}


def prepare(env):
    env.compile_java(os.path.join(HERE, 'Rfc3339Peer.java'))


def ts_checksum(pairs):
    """Rfc3339Peer's checksum of (seconds, nanos) pairs in order."""
    h = 0
    for s, n in pairs:
        h = (h * 1000003 + s * 1000000000 + n) & 0xFFFFFFFFFFFFFFFF
    return '%016x' % h


def c_ts_checksum(env, column_text, strategy):
    out = run([env.decode, 'rfc3339', '--strategy', strategy], 'hotbench-decode rfc3339',
              stdin=column_text)
    return ts_checksum(tuple(map(int, line.split())) for line in out.decode().splitlines())


def java_rows(env, rows, name):
    """The timestamp file for the Java peers: hotbench's rows less those java.time rejects
    (offsets beyond +-18:00, which RFC 3339 allows up to +-23:59)."""
    full = os.path.join(env.work, '%s.tsv' % name)
    run([env.gen, 'timestamps', '--rows', str(rows), '--encoding', 'both', '-o', full],
        'hotbench-gen timestamps')
    keep, dropped = [], 0
    for line in open(full, 'rb').read().split(b'\n'):
        if not line:
            continue
        off = line.split(b'\t')[0][-6:]  # '+hh:mm', or the end of a 'Z' value
        if off[:1] in (b'+', b'-') and off[1:] > b'18:00':
            dropped += 1
            continue
        keep.append(line)
    path = os.path.join(env.work, '%s-java.tsv' % name)
    with open(path, 'wb') as f:
        f.write(b'\n'.join(keep) + b'\n')
    return path, len(keep), dropped


def parse(env, rows, warmup, runs, hf=None):
    """Every way on rows generated rows, each checked against the C reference's checksum."""
    path, kept, dropped = java_rows(env, rows, 'ts-%d' % rows)
    lines = open(path, 'rb').read().split(b'\n')[:-1]
    ref = {'rfc3339': c_ts_checksum(env, b'\n'.join(l.split(b'\t')[0] for l in lines) + b'\n',
                                    'scalar'),
           'millis': c_ts_checksum(env, b'\n'.join(l.split(b'\t')[1] for l in lines) + b'\n',
                                   'millis-parse')}
    res = {'input': {'file': path, 'rows': kept, 'rows_dropped': dropped,
                     'why_dropped': 'offsets beyond +-18:00: java.time rejects them (RFC 3339 '
                                    'allows up to +-23:59; Spanner sends Z)'},
           'reference': ref, 'runs': []}
    out = run_json(env.java('Rfc3339Peer', '--warmup', str(warmup), '--runs', str(runs), path),
                   'Rfc3339Peer')
    for r in out:
        want = ref['millis' if r['way'] == 'millis' else 'rfc3339']
        if r['checksum'] != want:
            raise PeerError('rfc3339: java-%s checksum %s on %s, the C reference gives %s'
                            % (r['way'], r['checksum'], path, want))
        log('rfc3339: java-%-8s %.1f ns/ts (checksum %s verified, %d rows)'
            % (r['way'], r['ns_per_ts_median'], want, r['rows']))
        res['runs'].append(r)
    if hf:
        hf.add('rfc3339', 'java-spanner/rows:%d' % kept,
               env.java('Rfc3339Peer', '--way', 'spanner', '--warmup', '0', '--runs', '1', path),
               runs=5)
    return res


def verify(env):
    parse(env, 2000, 1, 1)


def measure(env, quick, hf):
    return parse(env, ROWS, 10, 10, hf)


# --- the report's section ------------------------------------------------------------------------

def section(p, c, outdir, link_prefix):
    """Markdown lines: ns per timestamp, Java's ways and the C strategies on the same rows."""
    inp = p.get('input', {})
    md = ['### Timestamps: java.time', '',
          'The Java program (`cases/rfc3339/peers/Rfc3339Peer.java`) parses the same generated '
          'rows (%s of them: %d rows with offsets beyond +-18:00 dropped, which java.time '
          'rejects although RFC 3339 allows them) after JIT warm-up; its checksum of every '
          'instant equals the C reference parser\'s. Median of the timed passes.'
          % ('{:,}'.format(inp.get('rows', 0)), inp.get('rows_dropped', 0)), '']
    cs = {}
    for s in ('strptime', 'sscanf', 'scalar', 'swar', 'simd', 'millis-parse', 'millis-strtoll'):
        t = c.median_s('rfc3339/%s/rows:%d' % (s, ROWS))
        if t:
            cs[s] = t / ROWS * 1e9
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
        png = bars(outdir, 'peers-rfc3339', 'RFC 3339 parsing, 100k rows: Java (red), C (blue)',
                   'ns per timestamp (log scale)', chart, link_prefix, secs=False)
        md += ['![peers rfc3339](%s)' % png, '']
    return md
