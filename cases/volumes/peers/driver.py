"""driver.py - the tag-heavy XML case's peers: Ruby 3.1 Ox, LibXML, Nokogiri, REXML driven as
aws-sdk-core does (volumes_peer.rb) and botocore's ElementTree walk (volumes_etree.py) on
DescribeVolumes responses of 300 volumes x 0..100 tags.

The peers-driver interface (docs/manifest.md); scripts/hotbench/peers.py and peers_report.py call
it. The JSON part: {"inputs": [{"volumes", "tags", "file", "bytes", "digest", "tag_count",
"variant" (only "ascii": the 300 x 20 file, non-ASCII runs -> 'x')}], "runs": [volumes_peer.rb /
volumes_etree.py JSON: {"peer", "engine", "file", "bytes", "volumes", "tags" (tag count),
"digest", "warmup", "ms": [...], "ms_median", ...} plus "tags_per_volume" (and "variant")],
"skipped": [{"peer", "tags_per_volume", "predicted_ms", "why"}]}. The volume digest is defined in
volumes_peer.rb and volumes_etree.py.
"""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

from hotbench.peers import PeerError, log, run, run_json
from hotbench.peers_report import bars, ratio
from hotbench.style import colour, plt, save

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TITLE = 'XML (the AWS SDK for Ruby\'s engines and botocore\'s ElementTree)'
ENGINES = ('ox', 'libxml', 'nokogiri', 'rexml')
REXML_BUDGET_S = 60.0  # a REXML point predicted longer than this is skipped (REXML is
#                        superlinear here: the prediction is quadratic in bytes from its last point)
C_VOLUMES = ('expat-typed', 'expat-tree', 'libxml2-dom', 'expat-typed-arena', 'fast')
C_ROW = 'volumes/%s/volumes:300/tags:%d/compact:0/piece:0'


def missing_runtimes(timing=True):
    """Debian packages this case's peers need and this machine lacks."""
    miss = []
    if shutil.which('ruby') is None:
        miss.append('ruby')
    else:
        for lib, pkg in (('ox', 'ruby-ox'), ('libxml', 'ruby-libxml'),
                         ('nokogiri', 'ruby-nokogiri')):
            if subprocess.run(['ruby', '-e', 'require "%s"' % lib],
                              capture_output=True).returncode:
                miss.append(pkg)
    if importlib.util.find_spec('dateutil') is None:
        miss.append('python3-dateutil')
    return miss


def context():
    engines = json.loads(run(['ruby', '-e', 'require "json"; require "ox"; require "libxml"; '
                              'require "nokogiri"; require "rexml/document"; puts JSON.generate('
                              'ox: Ox::VERSION, libxml: LibXML::XML::VERSION, nokogiri: '
                              'Nokogiri::VERSION, rexml: REXML::VERSION)'], 'ruby'))
    import dateutil
    engines['dateutil'] = dateutil.__version__
    ruby = subprocess.run(['ruby', '-v'], capture_output=True, text=True).stdout.strip()
    return {'ruby': ruby or 'unknown', 'engines': engines}


def command(engine, path, warmup, runs):
    if engine == 'etree':
        return ['/usr/bin/python3', os.path.join(HERE, 'volumes_etree.py'),
                '--warmup', str(warmup), '--runs', str(runs), path]
    return ['ruby', os.path.join(HERE, 'volumes_peer.rb'),
            '--engine', engine, '--warmup', str(warmup), '--runs', str(runs), path]


def reference(env, path, nvol=None, tags=None):
    """The C reference's figures of a response (generated first when nvol is given)."""
    if nvol is not None:
        run([env.gen, 'volumes', '--volumes', str(nvol), '--tags', str(tags), '-o', path],
            'hotbench-gen volumes')
    sys.path.insert(0, HERE)
    import volumes_etree  # needs dateutil: imported once the runtimes are known to be there
    ref_json = run([env.decode, 'volumes', path], 'hotbench-decode volumes %s' % path)
    digest, vols = volumes_etree.c_reference_digest(ref_json)
    return {'volumes': len(vols), 'tags': tags, 'file': path, 'bytes': os.path.getsize(path),
            'digest': digest, 'tag_count': sum(len(v['tags']) for v in vols)}


def peer(engine, inp, warmup, runs):
    r = run_json(command(engine, inp['file'], warmup, runs),
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


def verify(env):
    """The botocore fixture and a tiny response: every engine against the C reference."""
    inputs = [reference(env, os.path.join(TOP, 'tests', 'fixtures',
                                          'botocore-ec2-describe-volumes.xml')),
              reference(env, os.path.join(env.work, 'tiny-volumes.xml'), 5, 3)]
    for inp in inputs:
        for e in ENGINES + ('etree',):
            peer(e, inp, 0, 1)


def measure(env, quick, hf):
    tag_points = (0, 5, 20) if quick else (0, 5, 10, 20, 50, 100)
    res = {'inputs': [], 'runs': [], 'skipped': []}
    rexml_last = None  # (bytes, ms) of REXML's last measured point
    for tags in tag_points:
        inp = reference(env, os.path.join(env.work, 'volumes-300x%d.xml' % tags), 300, tags)
        res['inputs'].append(inp)
        incident = tags == 20
        for e in ENGINES + ('etree',):
            warmup, runs = (5, 20) if incident else (3, 7)
            if e == 'rexml':
                warmup, runs = 0, 2 if incident else 1
                skip = _rexml_skip(rexml_last, inp, tags)
                if skip:
                    res['skipped'].append(skip)
                    continue
            r = peer(e, inp, warmup, runs)
            res['runs'].append(r)
            if e == 'rexml':
                rexml_last = (inp['bytes'], r['ms_median'])
            if hf and incident and e != 'rexml':  # REXML: seconds a run, in-process only
                hf.add('volumes', '%s/volumes:300/tags:20' % r['peer'],
                       command(e, inp['file'], 0, 1), runs=10)
    if 20 in tag_points:
        _ascii_variant(env, res)
    return res


def _rexml_skip(last, inp, tags):
    """The skip record of a REXML point predicted over the budget, or None."""
    if not last:
        return None
    pred = last[1] * (inp['bytes'] / last[0]) ** 2
    if pred <= REXML_BUDGET_S * 1000:
        return None
    log('volumes: ruby-rexml 300x%d skipped: predicted %.0f s' % (tags, pred / 1e3))
    return {'peer': 'ruby-rexml', 'tags_per_volume': tags, 'predicted_ms': pred,
            'why': 'predicted %.0f s > budget %.0f s (quadratic in bytes from the last point)'
                   % (pred / 1000, REXML_BUDGET_S)}


def _ascii_variant(env, res):
    """REXML's cost follows the non-ASCII bytes (character indexing into a UTF-8 buffer): the
    same 300 x 20 response with each run of non-ASCII bytes replaced by 'x', REXML only."""
    src = os.path.join(env.work, 'volumes-300x20.xml')
    ascii_path = os.path.join(env.work, 'volumes-300x20-ascii.xml')
    with open(ascii_path, 'wb') as f:
        f.write(re.sub(rb'[\x80-\xff]+', b'x', open(src, 'rb').read()))
    inp = reference(env, ascii_path)
    inp['tags'] = 20
    inp['variant'] = 'ascii'
    res['inputs'].append(inp)
    r = peer('rexml', inp, 1, 3)
    r['variant'] = 'ascii'
    res['runs'].append(r)


# --- the report's section ------------------------------------------------------------------------

def section(p, c, outdir, link_prefix):
    """Markdown lines: ms per response of the engines and the C strategies, and the tag sweep."""
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
    ref = c.median_s(C_ROW % ('expat-typed', 20))
    md += ['| 300 volumes x 20 tags | ms per response (min-max) | / C `expat-typed` | '
           '/ C `fast` |', '|---|---|---|---|']
    fast = c.median_s(C_ROW % ('fast', 20))
    chart = []
    for r in sorted(at20, key=lambda r: r['ms_median']):
        v = r['ms_median'] / 1e3
        md.append('| %s (%s) | %.3g (%.3g-%.3g) | %s | %s |' % (
            r['peer'], r.get('engine_version') or r.get('python', ''), v * 1e3, min(r['ms']),
            max(r['ms']), ratio(v, ref), ratio(v, fast)))
        chart.append((r['peer'], v, 'peer'))
    for s in C_VOLUMES:
        v = c.median_s(C_ROW % (s, 20))
        if v:
            md.append('| C `%s` | %.3g | %s | %s |' % (s, v * 1e3, ratio(v, ref),
                                                      ratio(v, fast)))
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
        png = bars(outdir, 'peers-volumes', 'DescribeVolumes 300 x 20: peers (red), C (blue)',
                   'time per response (s, log scale)', chart, link_prefix)
        md += ['![peers volumes](%s)' % png, '']
    return md + _sweep(p, runs, c, outdir, link_prefix)


def _sweep(p, runs, c, outdir, link_prefix):
    """The tag sweep: a table of ms per response per peer and tags per volume, and its chart."""
    peers = sorted({r['peer'] for r in runs})
    tags = sorted({r['tags_per_volume'] for r in runs})
    if len(tags) < 2:
        return []
    png = _tags_chart(runs, peers, tags, c, outdir, link_prefix)
    md = ['| tags per volume | ' + ' | '.join(peers) + ' | C `expat-typed` |',
          '|---' * (len(peers) + 2) + '|']
    for t in tags:
        cells = []
        for name in peers:
            r = next((x for x in runs if x['peer'] == name and x['tags_per_volume'] == t), None)
            sk = next((x for x in p.get('skipped', []) if x['peer'] == name and
                       x['tags_per_volume'] == t), None)
            cells.append('%.3g' % r['ms_median'] if r else
                         ('~%.3g (predicted, not run)' % sk['predicted_ms'] if sk else '-'))
        cv = c.median_s(C_ROW % ('expat-typed', t))
        md.append('| %d | %s | %s |' % (t, ' | '.join(cells), '%.3g' % (cv * 1e3) if cv
                                        else '-'))
    return md + ['', 'Milliseconds per response.', '', '![peers volumes tags](%s)' % png, '']


def _tags_chart(runs, peers, tags, c, outdir, link_prefix):
    """ms per response against tags per volume: the real engines solid, the C strategies dashed,
    on a symlog x axis (0 tags has its place) that says it is one."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name in peers:
        pts = sorted((r['tags_per_volume'], r['ms_median']) for r in runs if r['peer'] == name)
        ax.plot([x for x, _ in pts], [y for _, y in pts], 'o-', label=name, color=colour(name))
    for s in C_VOLUMES:
        pts = [(t, c.median_s(C_ROW % (s, t))) for t in tags]
        pts = [(t, v * 1e3) for t, v in pts if v]
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], 's--', ms=3, label='C ' + s,
                    color=colour(s))
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
    return link_prefix + save(fig, os.path.join(outdir, 'peers-volumes-tags'))
