#!/usr/bin/python3
"""seeds.py - writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/.

Usage: /usr/bin/python3 fuzz/seeds.py --gen BUILD/hotbench-gen [--out fuzz/corpus]

Seeds come from three places: the fixtures made by real software (tests/fixtures/: nginx's gzip
chunked body, botocore's DescribeVolumes response), small outputs of hotbench-gen (the project's
own generators, fixed seeds), and hand-written edge cases of each grammar (the tables below). The
files are small (a fuzz input of more than a few KB slows every execution): the corpora together
stay under a few hundred KB. Existing files of the same name are overwritten; others are kept
(libFuzzer's minimised finds may be added by hand). Deterministic: the same generator gives the
same files.
"""
import argparse
import gzip
import os
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'tests', 'fixtures')

# RFC 3339 section 5.6 as hb_rfc3339.h restricts it; one value a file, and a few files of lines.
RFC3339 = [
    b'2021-03-04T05:06:07.123456789Z', b'2021-03-04T05:06:07Z', b'2021-03-04t05:06:07z',
    b'2021-03-04T05:06:07.1+05:30', b'2021-03-04T05:06:07.12-00:00', b'1970-01-01T00:00:00Z',
    b'1969-12-31T23:59:59.5Z', b'0001-01-01T00:00:00Z', b'9999-12-31T23:59:59.999999999Z',
    b'0000-12-31T23:00:00-01:00', b'9999-12-31T23:59:59+23:59', b'10000-01-01T00:00:00Z',
    b'2000-02-29T12:00:00Z', b'1900-02-29T12:00:00Z', b'2021-04-31T00:00:00Z',
    b'2021-03-04T24:00:00Z', b'2021-03-04T05:60:00Z', b'2016-12-31T23:59:60Z',
    b'2021-03-04T05:06:07.1234567890Z', b'2021-03-04T05:06:07.Z', b'2021-03-04T05:06:07+0530',
    b'2021-03-04T05:06:07+05', b'2021-03-04 05:06:07Z', b'2021-03-04T05:06:07Zx',
    b'2021-03-04T05:06:07,5Z', b'+2021-03-04T05:06:07Z', b'2021-3-4T5:6:7Z', b'',
    b'2021-03-04T05:06:07.000000000+23:59', b'2021-03-04T05:06:07\x00Z',
    b'\xd9\xa2021-03-04T05:06:07Z',
    # UNIX_MILLIS strings (millis-parse)
    b'0', b'-0', b'1614834367123', b'-62135596800000', b'-62135596800001', b'253402300799999',
    b'253402300800000', b'00000000000000000000001614834367123', b'-', b'+1', b'12a',
    b'9223372036854775807', b'99999999999999999999', b'\x01\x02\x03\x04\x05\x06\x07\x08',
    # the simd kernel's corners: the sign byte checked by the tail template (',' lies between '+'
    # and '-'), month/day 00 caught by the day check, the range checked only in years 0, 1, 9999
    b'2021-03-04T05:06:07.123,05:30', b'2021-03-04T05:06:07*05:30', b'2021-00-04T05:06:07Z',
    b'2021-03-00T05:06:07Z', b'0001-01-01T00:00:00+00:01', b'0002-01-01T00:00:00+23:59',
    b'9998-12-31T23:59:59.999999999-23:59',
    # the vertical batch's range check (years 0000, 0001, 9999 only): one second either side of
    # each bound through an offset
    b'9999-12-31T23:59:00-00:01', b'9999-12-31T23:58:59-00:01', b'0001-01-01T00:00:59+00:01',
    b'0001-01-01T00:01:00+00:01',
]

# RFC 9112 section 7.1 bodies (dechunk and body_reader).
CHUNKED = [
    b'0\r\n\r\n', b'5\r\nhello\r\n0\r\n\r\n', b'5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
    b'000\r\n\r\n', b'0005\r\nhello\r\n00\r\n\r\n', b'A\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n',
    b'5;name\r\nhello\r\n0\r\n\r\n', b'5;name=value\r\nhello\r\n0\r\n\r\n',
    b'5 ; name = "quoted \\" value"\r\nhello\r\n0;last\r\n\r\n',
    b'5;a=1;b="x";c\r\nhello\r\n0\r\n\r\n', b'5\t;\tx\r\nhello\r\n0\r\n\r\n',
    b'5;q="\x80\xff"\r\nhello\r\n0\r\n\r\n',
    b'5\r\nhello\r\n0\r\nX-Trailer: value\r\nX-Other:\r\n\r\n',
    b'5\r\nhello\r\n0\r\nX-Checksum: a b\tc \r\n\r\n',
    b'5\r\nhello\r\n0\r\n\r\nextra', b'5\r\nhello\r\n0\r\n\r\n5\r\nhello\r\n',
    b'5\nhello\r\n0\r\n\r\n', b'5\r\nhello\n0\r\n\r\n', b'5\r\nhello\r0\r\n\r\n',
    b'5\r\nhelloX\r\n0\r\n\r\n', b'5\r\nhel', b'5\r\nhello\r\n0\r\n', b'',
    b'7fffffffffffffff\r\nab', b'8000000000000000\r\n', b'ffffffffffffffffff\r\n',
    b'g\r\n', b'5 \r\nhello\r\n0\r\n\r\n', b'5;\r\nhello\r\n0\r\n\r\n', b'5;a=\r\n',
    b'5;a="unterminated\r\nhello\r\n', b'0\r\nBad Name: x\r\n\r\n', b'0\r\nName : x\r\n\r\n',
    b'0\r\nName: x\r\n folded\r\n\r\n', b'0\r\nName: \x00\r\n\r\n', b'0\r\n:x\r\n\r\n',
    b'1;' + b'x' * 4094 + b'\r\na\r\n0\r\n\r\n', b'1;' + b'x' * 4095 + b'\r\na\r\n0\r\n\r\n',
]

# DescribeVolumes documents (volumes): the contract's corners (hb_volumes.h).
VOL_HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n'
VOL_ONE = (b'<DescribeVolumesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">'
           b'<requestId>r-1</requestId><volumeSet><item><volumeId>vol-1</volumeId>'
           b'<size>8</size><snapshotId/><availabilityZone>us-east-1a</availabilityZone>'
           b'<status>in-use</status><createTime>2012-10-16T20:00:16.000Z</createTime>'
           b'<attachmentSet><item><volumeId>vol-1</volumeId><instanceId>i-1</instanceId>'
           b'<device>/dev/sda1</device><status>attached</status>'
           b'<attachTime>2012-10-16T20:00:16.000Z</attachTime>'
           b'<deleteOnTermination>true</deleteOnTermination></item></attachmentSet>'
           b'<volumeType>gp3</volumeType><iops>3000</iops><throughput>125</throughput>'
           b'<encrypted>false</encrypted><multiAttachEnabled>false</multiAttachEnabled>'
           b'<tagSet><item><key>Name</key><value>a &amp; b</value></item></tagSet>'
           b'</item></volumeSet><nextToken>t</nextToken></DescribeVolumesResponse>')


def vol(body):
    return VOL_HEAD + body


VOLUMES = [
    vol(VOL_ONE), VOL_ONE,
    vol(b'<r><volumeSet><item><volumeId>v</volumeId><tagSet/></item></volumeSet></r>'),
    vol(b'<ec2:r xmlns:ec2="urn:x"><ec2:volumeSet><ec2:item><ec2:size>-9223372036854775808'
        b'</ec2:size></ec2:item></ec2:volumeSet></ec2:r>'),
    vol(b'<r><volumeSet><item><size>9223372036854775808</size></item></volumeSet></r>'),
    vol(b'<r><volumeSet><item><size>+1</size></item></volumeSet></r>'),
    vol(b'<r><volumeSet><item><encrypted>True</encrypted></item></volumeSet></r>'),
    vol(b'<r><volumeSet><item><createTime>2012-10-16 20:00:16Z</createTime></item>'
        b'</volumeSet></r>'),
    vol(b'<r><volumeSet><item><createTime></createTime></item></volumeSet></r>'),
    vol(b'<r><volumeSet><item><tagSet><item><key><![CDATA[<k>]]></key><value>a&#x20AC;&#65;'
        b'&lt;&gt;&quot;&apos;<!--c--><?pi x?>b\r\nc\rd<x>skipped</x></value></item>'
        b'</tagSet></item></volumeSet></r>'),
    vol(b'<r a="1" b=\'2\'><volumeSet x="&amp;"><item><volumeId>\xc3\xa9\xe2\x82\xac\xf0\x9f\x98'
        b'\x80</volumeId></item></volumeSet><volumeSet><item/></volumeSet></r>'),
    b'<?xml version="1.1"?><r/>', b'<?xml version="1.0" encoding="ISO-8859-1"?><r>\xe9</r>',
    b'<?xml version="1.0" encoding="US-ASCII"?><r/>',
    b'<?xml version="1.0" encoding="EBCDIC"?><r/>', b'<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>',
    b'<r>&unknown;</r>', b'<r><a></b></r>', b'<r>]]></r>', b'<r/><r/>', b'<r>', b'',
    b'<r a="1" a="2"/>', b'<r>\x00</r>', b'<r>\xff</r>', b'<r><!-- a -- b --></r>',
    b'<r>&#0;</r>', b'<r>&#xD800;</r>', b'<\xc3\xa9/>',
    b'<r ' + b' '.join(b'a%d="1"' % i for i in range(65)) + b'/>',
    b'<r>' + b'<a>' * 300 + b'</a>' * 300 + b'</r>',
    '\ufeff<?xml version="1.0" encoding="UTF-16"?><r><volumeSet><item><volumeId>v\u00e9'
    '</volumeId></item></volumeSet></r>'.encode('utf-16-le'),
    '\ufeff<r><volumeSet><item><volumeId>v</volumeId></item></volumeSet></r>'.encode('utf-16-be'),
    b'\xef\xbb\xbf<r/>',
]

# Findings of issue 15 section 2 (ill-formed UTF-16 the expat strategies accepted), fixed: written
# to fuzz/regressions/volumes/ beside the reproducers the fix added, replayed by `make test`.
UTF16_FINDINGS = {
    'utf16le-without-bom': '<r/>'.encode('utf-16-le'),
    'utf16be-without-bom': '<r><volumeSet/></r>'.encode('utf-16-be'),
    'utf16le-unpaired-high-surrogate-then-char':
        b'\xff\xfe' + '<r><volumeSet><item><volumeId>'.encode('utf-16-le') + b'\x00\xd8a\x00'
        + '</volumeId></item></volumeSet></r>'.encode('utf-16-le'),
    'utf16be-high-surrogate-then-high-surrogate':
        b'\xfe\xff' + '<r><volumeSet><item><volumeId>'.encode('utf-16-be') + b'\xd8\x00\xd8\x01'
        + '</volumeId></item></volumeSet></r>'.encode('utf-16-be'),
    'utf16le-high-surrogate-then-nul':
        b'\xff\xfe' + '<r><volumeSet><item><volumeId>'.encode('utf-16-le') + b'\x00\xd8\x00\x00'
        + '</volumeId></item></volumeSet></r>'.encode('utf-16-le'),
    'utf16le-odd-length': b'\xff\xfe' + '<r/>\n'.encode('utf-16-le') + b'\n',
}


def gen(hotbench_gen, *args):
    return subprocess.run([hotbench_gen, *args, '-o', '-'], check=True, capture_output=True).stdout


def chunk(data, sizes):
    """data framed as RFC 9112 chunks of the given sizes (cycled), the last-chunk, the CRLF."""
    out, i, k = [], 0, 0
    while i < len(data):
        n = sizes[k % len(sizes)]
        out.append(b'%x\r\n' % len(data[i:i + n]) + data[i:i + n] + b'\r\n')
        i, k = i + n, k + 1
    return b''.join(out) + b'0\r\n\r\n'


def write(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--gen', required=True, help='the hotbench-gen binary')
    ap.add_argument('--out', default=os.path.join(HERE, 'corpus'))
    a = ap.parse_args()
    for i, s in enumerate(RFC3339):
        write(a.out, 'rfc3339', 'edge-%02d' % i, s)
    for enc, frac in (('rfc3339', 'mixed'), ('millis', 'mixed'), ('both', '9')):
        rows = gen(a.gen, 'timestamps', '--rows', '12', '--columns', '2', '--encoding', enc,
                   '--fraction', frac, '--offsets', 'mixed')
        write(a.out, 'rfc3339', 'gen-%s-%s' % (enc, frac), rows.replace(b'\t', b'\n'))
    for i, s in enumerate(CHUNKED):
        write(a.out, 'dechunk', 'edge-%02d' % i, s)
        write(a.out, 'body_reader', 'edge-%02d' % i, s)
    for extra in ([], ['--trailer']):
        body = gen(a.gen, 'chunked', '--size', '600', '--chunk-size', '1-200', *extra)
        name = 'gen-600%s' % ''.join(extra).replace('--', '-')
        write(a.out, 'dechunk', name, body)
        write(a.out, 'body_reader', name, body)
        gz = gen(a.gen, 'chunked', '--size', '2000', '--chunk-size', '16-300', '--gzip', *extra)
        write(a.out, 'body_reader', 'gen-gzip-2000%s' % ''.join(extra).replace('--', '-'), gz)
    with open(os.path.join(FIXTURES, 'nginx-small.tsv'), 'rb') as f:
        tsv = f.read()
    # nginx's own gzip body is 83 KB: its first KB dechunked and gunzipped, re-framed small
    part = tsv[:1500]
    write(a.out, 'body_reader', 'nginx-head-gzip', chunk(gzip.compress(part, 6, mtime=0), [97, 13]))
    write(a.out, 'body_reader', 'gzip-two-members',
          chunk(gzip.compress(b'first\n', mtime=0) + gzip.compress(b'second\n', mtime=0), [5]))
    write(a.out, 'body_reader', 'gzip-empty-member', chunk(gzip.compress(b'', mtime=0), [7]))
    write(a.out, 'body_reader', 'gzip-trailing-garbage', chunk(gzip.compress(b'x', mtime=0) + b'\0', [64]))
    write(a.out, 'body_reader', 'gzip-stored', chunk(gzip.compress(part[:300], 0, mtime=0), [100]))
    raw = zlib.compress(part[:200])
    write(a.out, 'body_reader', 'zlib-not-gzip', chunk(raw, [50]))
    write(a.out, 'body_reader', 'gzip-truncated', chunk(gzip.compress(part[:300], mtime=0)[:-3], [40]))
    for i, d in enumerate(VOLUMES):
        write(a.out, 'volumes', 'edge-%02d' % i, d)
    for name, d in UTF16_FINDINGS.items():
        write(os.path.join(HERE, 'regressions'), 'volumes', name, d)
    with open(os.path.join(FIXTURES, 'botocore-ec2-describe-volumes.xml'), 'rb') as f:
        write(a.out, 'volumes', 'botocore-ec2-describe-volumes.xml', f.read())
    for v, t, extra in ((1, 2, []), (2, 1, ['--compact']), (1, 0, ['--next-token'])):
        doc = gen(a.gen, 'volumes', '--volumes', str(v), '--tags', str(t), *extra)
        write(a.out, 'volumes', 'gen-%dx%d%s' % (v, t, ''.join(extra).replace('--', '-')), doc)
    return 0


if __name__ == '__main__':
    sys.exit(main())
