#!/usr/bin/python3
"""peers.py - the real libraries of the three incidents, run on the inputs the C models use,
checked against the C references, timed, and recorded in one JSON file (issue 7).

  bufgrow  Apache httpcore 4.4.16 + JDK 17 (cases/bufgrow/peers/BufgrowPeer.java): a chunked body
           read into one byte[] by EntityUtils.toByteArray, InputStream.readAllBytes and
           ByteArrayOutputStream, across the 2^30 overflow and at 1.7 GB
  rfc3339  JDK 17 java.time (cases/rfc3339/peers/Rfc3339Peer.java): the Spanner client's
           formatter, Instant.parse, OffsetDateTime.parse, Long.parseLong on 100k rows
  volumes  Ruby 3.1 Ox, LibXML, Nokogiri, REXML driven as aws-sdk-core does
           (cases/volumes/peers/volumes_peer.rb) and botocore's ElementTree walk
           (cases/volumes/peers/volumes_etree.py) on DescribeVolumes, 300 volumes x 0..100 tags

Usage: scripts/peers.py [--build DIR] [--quick]   run everything, write the results
       scripts/peers.py --check                   exit 0 if some case's runtimes are installed
                                                  (the others are named on stderr), else 3
       scripts/peers.py --verify [--case C] --work DIR [--build DIR]
                                                  tiny inputs and the real fixtures only: every
                                                  peer checked against the C reference, nothing
                                                  timed or written (ctest); exit 77 without
                                                  runtimes
A case whose runtime is missing or partial (say a JDK without libhttpcore-java) is skipped and
named with the packages to install, and recorded under "skipped_cases"; the other cases run.
HB_HTTPCORE_JAR overrides the jar's path (default /usr/share/java/httpcore.jar).
Every peer's answer is compared with the C reference (hotbench-decode) before its timings are
recorded; a mismatch is an error (exit 1) and nothing is written. Whole-process times come from
hyperfine (--warmup, --runs, --export-json); in-process times are each program's own timer.
Run under Debian's /usr/bin/python3.

Output: results/runs/<UTC>-<sha>-peers.json (written to a temporary file and renamed) and, for a
complete run (all cases, not --quick), the link results/peers-latest.json. Schema
"hotbench-peers/1":
  {"schema": "hotbench-peers/1",
   "context": {"date", "git_revision", "host", "nproc", "java", "httpcore", "ruby", "python",
               "engines": {name: version}, "hyperfine", "quick": bool},
   "bufgrow": {
     "runs": [peer run], a peer run being BufgrowPeer's JSON: {"peer": "httpcore-<way>", "way",
              "gzip", "file", "size", "crc32" (hex, verified), "warmup", "seconds": [in-process
              s per run], "java", "gc", "max_heap" (bytes), and for toByteArray "reads", "doubling_steps",
              "additive_steps", "additive_bytes_copied", "additive_step_s": {"mean", "min",
              "max", "total"}} plus "label" ("below" | "past-256K" | "past-1M" | "1.7G")
     "plan_1700000000": BufgrowPeer --way count on the 1.7 GB identity body (reads,
              doubling_steps, additive_steps, additive_bytes_copied of toByteArray's growth),
     "cliff": {"threshold": 1073741824, "below_s", "past_s": {label: s},
               "step_s_per_byte": the mean additive step time / the bytes it copied (all past
               runs pooled), "step_s_at_2^30": step_s_per_byte * 2^30,
               "predicted_1700000000_s": below_s / below_size * 1.7e9
                   + step_s_per_byte * plan.additive_bytes_copied,
               "predicted_1700000000_c_plan_s": the same priced on the C model's plan (full reads
                   of 4096: its skip message's bytes copied), when a run JSON is given}},
   "rfc3339": {"input": {"file", "rows", "rows_dropped", "why_dropped"},
               "reference": {"rfc3339": checksum, "millis": checksum},
               "runs": [Rfc3339Peer JSON: {"peer": "java-<way>", "way", "rows", "checksum",
                        "warmup", "ns_per_ts": [...], "ns_per_ts_median", "java"}]},
   "volumes": {"inputs": [{"volumes", "tags", "file", "bytes", "digest", "tag_count",
                           "variant" (only "ascii": the 300 x 20 file, non-ASCII runs -> 'x')}],
               "runs": [volumes_peer.rb / volumes_etree.py JSON: {"peer", "engine", "file",
                        "bytes", "volumes", "tags" (tag count), "digest", "warmup", "ms": [...],
                        "ms_median", ...} plus "tags_per_volume" (and "variant")],
               "skipped": [{"peer", "tags_per_volume", "predicted_ms", "why"}]},
   "hyperfine": [{"name", "case", "command": [argv], "warmup", "mean_s", "stddev_s",
                  "median_s", "min_s", "max_s", "times_s": [...]}]}
Checksums: crc32 of the decoded payload; the timestamp checksum and the volume digest are
defined in Rfc3339Peer.java and volumes_peer.rb.
"""
import argparse
import datetime
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'cases', 'volumes', 'peers'))  # volumes_etree: the digest

# Debian's libhttpcore-java; HB_HTTPCORE_JAR overrides it (tests point it at a missing file to
# play a machine with a JDK but without the jar).
HTTPCORE_JAR = os.environ.get('HB_HTTPCORE_JAR', '/usr/share/java/httpcore.jar')
CASES = ('bufgrow', 'rfc3339', 'volumes')
JAVA_SOURCES = {'bufgrow': 'BufgrowPeer.java', 'rfc3339': 'Rfc3339Peer.java'}
JAVA_HEAP = '-Xmx6g'
GIB = 1 << 30
MIB = 1 << 20
BELOW, PAST_256K, PAST_1M = GIB - MIB, GIB + 256 * 1024, GIB + MIB
INCIDENT = 1700000000
INSTALL_HINT = 'peers: runtimes not installed, run scripts/deps.sh --peers'
SKIP = 77  # ctest's SKIP_RETURN_CODE
REXML_BUDGET_S = 60.0  # a REXML point predicted longer than this is skipped (REXML is
#                        superlinear here: the prediction is quadratic in bytes from its last point)


class PeerError(Exception):
    pass


def log(msg):
    print('peers: ' + msg, file=sys.stderr, flush=True)


def missing_runtimes(case='all', timing=True):
    """What case needs and is missing, as Debian package names (empty when all is there).
    Verification (timing=False) needs no hyperfine."""
    java = case in ('all', 'bufgrow', 'rfc3339')
    rb = case in ('all', 'volumes')
    miss = []
    for tool, pkg, need in (('java', 'openjdk-17-jdk-headless', java),
                            ('javac', 'openjdk-17-jdk-headless', java),
                            ('ruby', 'ruby', rb), ('hyperfine', 'hyperfine', timing)):
        if need and shutil.which(tool) is None and pkg not in miss:
            miss.append(pkg)
    if case in ('all', 'bufgrow') and not os.path.exists(HTTPCORE_JAR):
        miss.append('libhttpcore-java')
    if not rb:
        return miss
    if shutil.which('ruby'):
        for lib, pkg in (('ox', 'ruby-ox'), ('libxml', 'ruby-libxml'), ('nokogiri', 'ruby-nokogiri')):
            if subprocess.run(['ruby', '-e', 'require "%s"' % lib], capture_output=True).returncode:
                miss.append(pkg)
    if importlib.util.find_spec('dateutil') is None:
        miss.append('python3-dateutil')
    return miss


def run(argv, what, stdin=None):
    """Runs argv; returns stdout (bytes). A failure is a PeerError naming what."""
    p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        err = p.stderr.decode('utf-8', 'replace').strip().splitlines()
        raise PeerError('%s failed (exit %d): %s' % (what, p.returncode,
                                                      err[-1] if err else '(no message)'))
    return p.stdout


def run_json(argv, what):
    return [json.loads(line) for line in run(argv, what).decode().splitlines() if line.strip()]


class Env:
    def __init__(self, build, work, cases):
        self.gen = os.path.join(build, 'hotbench-gen')
        self.decode = os.path.join(build, 'hotbench-decode')
        for t in (self.gen, self.decode):
            if not os.access(t, os.X_OK):
                raise PeerError('%s not found: build the tools first (make)' % t)
        self.work = work
        self.classes = os.path.join(work, 'classes')
        os.makedirs(work, exist_ok=True)
        for case in cases:
            if case in JAVA_SOURCES:
                self.compile_java(case)

    def compile_java(self, case):
        """Compiles one case's Java peer into classes/, with httpcore's jar on the class path
        only for the peer that uses it: javac -Werror turns a missing class-path element into
        an error, which must not stop a peer that does not need the jar."""
        src = os.path.join(TOP, 'cases', case, 'peers', JAVA_SOURCES[case])
        stamp = os.path.join(self.classes, '.stamp-' + case)
        if os.path.exists(stamp) and os.path.getmtime(src) <= os.path.getmtime(stamp):
            return
        os.makedirs(self.classes, exist_ok=True)
        cp = ['-cp', HTTPCORE_JAR] if case == 'bufgrow' else []
        run(['javac', '-Xlint:all', '-Werror', '-d', self.classes] + cp + [src], 'javac ' + case)
        open(stamp, 'w').close()

    def java(self, cls, *args, heap=True):
        return (['java'] + ([JAVA_HEAP] if heap else []) +
                ['-cp', HTTPCORE_JAR + ':' + self.classes, cls] + list(args))


# --- bufgrow -----------------------------------------------------------------------------------
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


def bufgrow_peer(env, way, path, gzip, ref, warmup=0, runs=1, label=None):
    out = run_json(env.java('BufgrowPeer', '--way', way, '--warmup', str(warmup), '--runs',
                            str(runs), *(['--gzip'] if gzip else []), path),
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


def bufgrow(env, quick, hf):
    res = {'runs': []}
    ways = ('toByteArray', 'readAllBytes', 'baos')
    if quick:  # small sizes only: the same code paths, no cliff
        for gzip in (False, True):
            path = chunked_body(env, 64 * MIB, gzip)
            ref = reference_crc32(env, path, gzip)
            for w in ways:
                res['runs'].append(bufgrow_peer(env, w, path, gzip, ref, 1, 3, 'quick'))
        return res
    # across the overflow: toByteArray with the step probe, one warm-up run each
    past = {}
    for size, label in ((BELOW, 'below'), (PAST_256K, 'past-256K'), (PAST_1M, 'past-1M')):
        path = chunked_body(env, size, False)
        ref = reference_crc32(env, path, False)
        r = bufgrow_peer(env, 'toByteArray', path, False, ref, 1, 1, label)
        res['runs'].append(r)
        if label == 'below':
            below = r
            hf.add('bufgrow', 'httpcore-toByteArray/size:%d' % size,
                   env.java('BufgrowPeer', '--way', 'toByteArray', path), runs=3)
        else:
            past[label] = r
    # 1.7 GB: the linear ways, identity and gzip; the plan of toByteArray's growth
    for gzip in (False, True):
        path = chunked_body(env, INCIDENT, gzip)
        ref = reference_crc32(env, path, gzip)
        for w in ('readAllBytes', 'baos'):
            res['runs'].append(bufgrow_peer(env, w, path, gzip, ref, 1, 2, '1.7G'))
        if not gzip:
            res['plan_1700000000'] = bufgrow_peer(env, 'count', path, False, ref)
            hf.add('bufgrow', 'httpcore-readAllBytes/size:%d' % INCIDENT,
                   env.java('BufgrowPeer', '--way', 'readAllBytes', path), runs=3)
    steps = sum(r['additive_steps'] for r in past.values())
    step_s = sum(r['additive_step_s']['total'] for r in past.values())
    copied = sum(r['additive_bytes_copied'] for r in past.values())
    per_byte = step_s / copied
    below_s = min(below['seconds'])
    plan = res['plan_1700000000']
    res['cliff'] = {
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
            per_byte * GIB, steps, res['cliff']['predicted_1700000000_s'],
            plan['additive_steps'], plan['additive_bytes_copied']))
    return res


# --- rfc3339 -----------------------------------------------------------------------------------
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


def rfc3339(env, rows, warmup, runs, hf=None):
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
    out = run_json(env.java('Rfc3339Peer', '--warmup', str(warmup), '--runs', str(runs), path,
                            heap=False), 'Rfc3339Peer')
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
               env.java('Rfc3339Peer', '--way', 'spanner', '--warmup', '0', '--runs', '1', path,
                        heap=False), runs=5)
    return res


# --- volumes -----------------------------------------------------------------------------------
ENGINES = ('ox', 'libxml', 'nokogiri', 'rexml')


def volumes_cmd(engine, path, warmup, runs):
    if engine == 'etree':
        return ['/usr/bin/python3', os.path.join(TOP, 'cases', 'volumes', 'peers',
                                                 'volumes_etree.py'),
                '--warmup', str(warmup), '--runs', str(runs), path]
    return ['ruby', os.path.join(TOP, 'cases', 'volumes', 'peers', 'volumes_peer.rb'),
            '--engine', engine, '--warmup', str(warmup), '--runs', str(runs), path]


def volumes_input(env, path, nvol=None, tags=None):
    if nvol is not None:
        run([env.gen, 'volumes', '--volumes', str(nvol), '--tags', str(tags), '-o', path],
            'hotbench-gen volumes')
    import volumes_etree  # needs dateutil: imported once the runtimes are known to be there
    ref_json = run([env.decode, 'volumes', path], 'hotbench-decode volumes %s' % path)
    digest, vols = volumes_etree.c_reference_digest(ref_json)
    return {'volumes': len(vols), 'tags': tags, 'file': path, 'bytes': os.path.getsize(path),
            'digest': digest, 'tag_count': sum(len(v['tags']) for v in vols)}


def volumes_peer(engine, inp, warmup, runs):
    r = run_json(volumes_cmd(engine, inp['file'], warmup, runs),
                 '%s on %s' % (engine, inp['file']))[0]
    got = (r['volumes'], r['tags'], r['digest'])
    want = (inp['volumes'], inp['tag_count'], inp['digest'])
    if got != want:
        raise PeerError('volumes: %s on %s gives %d volumes, %d tags, digest %s; the C reference'
                        ' %d, %d, %s' % ((r['peer'], inp['file']) + got + want))
    r['tags_per_volume'] = inp['tags']
    log('volumes: %-14s %s: %.2f ms (%d volumes, %d tags, digest verified)'
        % (r['peer'], os.path.basename(inp['file']), r['ms_median'], r['volumes'], r['tags']))
    return r


def volumes(env, tag_points, hf=None):
    res = {'inputs': [], 'runs': [], 'skipped': []}
    rexml_last = None  # (bytes, ms) of REXML's last measured point
    for tags in tag_points:
        inp = volumes_input(env, os.path.join(env.work, 'volumes-300x%d.xml' % tags), 300, tags)
        res['inputs'].append(inp)
        incident = tags == 20
        for e in ENGINES + ('etree',):
            warmup, runs = (5, 20) if incident else (3, 7)
            if e == 'rexml':
                warmup, runs = 0, 2 if incident else 1
                if rexml_last:
                    pred = rexml_last[1] * (inp['bytes'] / rexml_last[0]) ** 2
                    if pred > REXML_BUDGET_S * 1000:
                        res['skipped'].append({'peer': 'ruby-rexml', 'tags_per_volume': tags,
                                               'predicted_ms': pred,
                                               'why': 'predicted %.0f s > budget %.0f s '
                                                      '(quadratic in bytes from the last point)'
                                                      % (pred / 1000, REXML_BUDGET_S)})
                        log('volumes: ruby-rexml 300x%d skipped: predicted %.0f s' % (tags, pred / 1e3))
                        continue
            r = volumes_peer(e, inp, warmup, runs)
            res['runs'].append(r)
            if e == 'rexml':
                rexml_last = (inp['bytes'], r['ms_median'])
            if hf and incident and e != 'rexml':  # REXML: seconds a run, in-process only
                hf.add('volumes', '%s/volumes:300/tags:20' % r['peer'],
                       volumes_cmd(e, inp['file'], 0, 1), runs=10)
    # REXML's cost follows the non-ASCII bytes (character indexing into a UTF-8 buffer): the same
    # 300 x 20 response with each run of non-ASCII bytes replaced by 'x', REXML only
    if 20 in tag_points:
        src = os.path.join(env.work, 'volumes-300x20.xml')
        ascii_path = os.path.join(env.work, 'volumes-300x20-ascii.xml')
        with open(ascii_path, 'wb') as f:
            f.write(re.sub(rb'[\x80-\xff]+', b'x', open(src, 'rb').read()))
        inp = volumes_input(env, ascii_path)
        inp['tags'] = 20
        inp['variant'] = 'ascii'
        res['inputs'].append(inp)
        r = volumes_peer('rexml', inp, 1, 3)
        r['variant'] = 'ascii'
        res['runs'].append(r)
    return res


# --- hyperfine ---------------------------------------------------------------------------------
class Hyperfine:
    """Whole-process timings of commands already verified in-process."""

    def __init__(self, work, enabled=True):
        self.work, self.enabled, self.results = work, enabled, []

    def add(self, case, name, argv, runs):
        if not self.enabled:
            return
        out = os.path.join(self.work, 'hyperfine.json')
        log('hyperfine: %s (%d runs after 1 warm-up)' % (name, runs))
        run(['hyperfine', '-N', '--style', 'none', '--warmup', '1', '--runs', str(runs),
             '--export-json', out, ' '.join(_quote(a) for a in argv)], 'hyperfine ' + name)
        r = json.load(open(out))['results'][0]
        self.results.append({'name': name, 'case': case, 'command': argv, 'warmup': 1,
                             'mean_s': r['mean'], 'stddev_s': r['stddev'],
                             'median_s': r['median'], 'min_s': r['min'], 'max_s': r['max'],
                             'times_s': r['times']})


def _quote(a):
    return "'%s'" % a if any(c in a for c in ' "\\') else a


# --- context, writing, main --------------------------------------------------------------------
def context(quick):
    def cmd(argv):
        try:
            p = subprocess.run(argv, capture_output=True, text=True)
            return (p.stdout + p.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return 'unknown'
    engines = json.loads(run(['ruby', '-e', 'require "json"; require "ox"; require "libxml"; '
                              'require "nokogiri"; require "rexml/document"; puts JSON.generate('
                              'ox: Ox::VERSION, libxml: LibXML::XML::VERSION, nokogiri: '
                              'Nokogiri::VERSION, rexml: REXML::VERSION)'], 'ruby'))
    import dateutil
    engines['dateutil'] = dateutil.__version__
    return {'date': datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
            'git_revision': cmd(['git', '-C', TOP, 'describe', '--always', '--dirty',
                                 '--abbrev=12']),
            'host': platform.node(), 'nproc': os.cpu_count(), 'java': cmd(['java', '-version']),
            'httpcore': os.path.basename(os.path.realpath(HTTPCORE_JAR)),
            'ruby': cmd(['ruby', '-v']), 'python': platform.python_version(),
            'engines': engines, 'hyperfine': cmd(['hyperfine', '--version']), 'quick': quick,
            'java_heap': JAVA_HEAP}


def write_results(doc, link):
    runs = os.path.join(TOP, 'results', 'runs')
    os.makedirs(runs, exist_ok=True)
    sha = subprocess.run(['git', '-C', TOP, 'rev-parse', '--short=12', 'HEAD'],
                         capture_output=True, text=True).stdout.strip() or 'nogit'
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
    final = os.path.join(runs, '%s-%s-peers.json' % (stamp, sha))
    fd, tmp = tempfile.mkstemp(dir=runs, prefix='.peers-', suffix='.tmp')
    with os.fdopen(fd, 'w') as f:
        json.dump(doc, f, indent=1)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide the results from other users
    os.rename(tmp, final)
    if not link:
        return final
    link = os.path.join(TOP, 'results', 'peers-latest.json')
    tmp_link = link + '.tmp'
    if os.path.lexists(tmp_link):
        os.remove(tmp_link)
    os.symlink(os.path.join('runs', os.path.basename(final)), tmp_link)
    os.replace(tmp_link, link)
    return final


def verify(env, case):
    """Tiny inputs and the real fixtures: every peer against the C reference, nothing timed."""
    fixtures = os.path.join(TOP, 'tests', 'fixtures')
    if case in ('all', 'bufgrow'):
        bodies = [(os.path.join(fixtures, 'nginx-small.gzip.chunked'), True)]
        for gzip in (False, True):
            p = os.path.join(env.work, 'tiny-%s.body' % ('gzip' if gzip else 'identity'))
            run([env.gen, 'chunked', '--size', '300000'] + (['--gzip'] if gzip else []) +
                ['-o', p], 'hotbench-gen chunked')
            bodies.append((p, gzip))
        for path, gzip in bodies:
            ref = reference_crc32(env, path, gzip)
            for w in ('toByteArray', 'readAllBytes', 'baos', 'count'):
                bufgrow_peer(env, w, path, gzip, ref)
    if case in ('all', 'rfc3339'):
        rfc3339(env, 2000, 1, 1)
    if case in ('all', 'volumes'):
        inputs = [volumes_input(env, os.path.join(fixtures, 'botocore-ec2-describe-volumes.xml')),
                  volumes_input(env, os.path.join(env.work, 'tiny-volumes.xml'), 5, 3)]
        for inp in inputs:
            for e in ENGINES + ('etree',):
                volumes_peer(e, inp, 0, 1)
    log('verify %s: every peer agrees with the C reference' % case)


def measure(env, cases, quick):
    """Times the peers of cases (their runtimes present); returns the results document."""
    hf = Hyperfine(env.work)
    doc = {'schema': 'hotbench-peers/1', 'context': context(quick)}
    if 'bufgrow' in cases:
        doc['bufgrow'] = bufgrow(env, quick, hf)
    if 'rfc3339' in cases:
        doc['rfc3339'] = rfc3339(env, 100000, 10, 10, hf)
    if 'volumes' in cases:
        doc['volumes'] = volumes(env, (0, 5, 20) if quick else (0, 5, 10, 20, 50, 100), hf)
    doc['hyperfine'] = hf.results
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.path.join(TOP, 'build'),
                    help='folder of hotbench-gen and hotbench-decode (default build/)')
    ap.add_argument('--work', default=os.path.join(TOP, 'data', 'peers'),
                    help='inputs and compiled classes (default data/peers)')
    ap.add_argument('--check', action='store_true', help='only check that the runtimes exist')
    ap.add_argument('--verify', action='store_true', help='tiny inputs, verification only')
    ap.add_argument('--case', choices=['all', 'bufgrow', 'rfc3339', 'volumes'], default='all')
    ap.add_argument('--quick', action='store_true',
                    help='small sizes only (no 1 GiB bodies, no REXML beyond 20 tags): minutes')
    a = ap.parse_args()
    cases = CASES if a.case == 'all' else (a.case,)
    skipped = {c: m for c in cases for m in [missing_runtimes(c, timing=not a.verify)] if m}
    for c, m in skipped.items():
        print('peers: %s skipped: missing %s (install: scripts/deps.sh --peers)'
              % (c, ' '.join(m)), file=sys.stderr)
    cases = tuple(c for c in cases if c not in skipped)
    if not cases:
        print(INSTALL_HINT, file=sys.stderr)
        return SKIP if a.verify else 3
    if a.check:
        return 0
    try:
        env = Env(os.path.abspath(a.build), os.path.abspath(a.work), cases)
        if a.verify:
            for c in cases:
                verify(env, c)
            return 0
        doc = measure(env, cases, a.quick)
        if skipped:
            doc['skipped_cases'] = {c: {'missing': m, 'install': 'scripts/deps.sh --peers'}
                                    for c, m in skipped.items()}
    except PeerError as e:
        print('peers: error: %s' % e, file=sys.stderr)
        return 1
    complete = len(cases) == len(CASES) and not a.quick  # only a complete run moves the link
    final = write_results(doc, complete)
    log('results in %s%s' % (os.path.relpath(final, TOP), ' (results/peers-latest.json points '
                             'to it)' if complete else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
