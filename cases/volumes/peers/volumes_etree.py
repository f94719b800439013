#!/usr/bin/python3
"""volumes_etree.py - botocore's EC2 response parser (what the AWS CLI and boto3 run) on an EC2
DescribeVolumes response written by `hotbench-gen volumes`.

What it models: botocore 1.x botocore/parsers.py EC2QueryParser (QueryParser,
BaseXMLResponseParser, ResponseParser): the body is parsed into an xml.etree.ElementTree tree
(XMLParser(target=TreeBuilder(), encoding='utf-8'), feed, close), then walked by shape: each
structure builds a dict of its children by tag (the namespace stripped with a regex), each
member is parsed by a handler looked up by the shape's type name, lists iterate their children,
integers int(), booleans == 'true', strings node.text, timestamps botocore.utils.parse_timestamp
(float() tried first, then dateutil.parser.parse with tzinfos={'GMT': tzutc()}), and the
requestId goes into ResponseMetadata. The shapes are the EC2 API model's for
DescribeVolumesResult, Volume, VolumeAttachment and Tag. This file re-implements that walk
compactly (botocore is not needed); the parser is CPython's own ElementTree (expat underneath)
and dateutil is Debian's python3-dateutil. The AWS CLI v1 shows timestamps as received
(cli_timestamp_format none), which skips the dateutil step: --timestamps identity.

Usage: /usr/bin/python3 volumes_etree.py [--warmup N] [--runs N] [--timestamps dateutil|identity]
                                         FILE
       /usr/bin/python3 volumes_etree.py --digest-json JSON   (the C reference's digest)
Prints one JSON object (schema in scripts/peers.py) with ms per response, volume and tag counts
and peers_digest (defined in cases/volumes/peers/volumes_peer.rb, implemented here too).
Exit status: 0 done, 1 unreadable or malformed document (named), 2 usage.
"""
import argparse
import datetime
import hashlib
import json
import re
import sys
import time
import xml.etree.ElementTree as ETree

import dateutil.parser
from dateutil.tz import tzlocal, tzutc


def parse_timestamp(value):
    """botocore.utils.parse_timestamp."""
    try:
        return datetime.datetime.fromtimestamp(float(value), tzlocal())
    except (TypeError, ValueError):
        pass
    try:
        return dateutil.parser.parse(value, tzinfos={'GMT': tzutc()})
    except (TypeError, ValueError) as e:
        raise ValueError('Invalid timestamp "%s": %s' % (value, e))


class Shape:
    def __init__(self, type_name, members=None, member=None, name=None):
        self.type_name = type_name
        self.members = members or {}  # member name -> Shape
        self.member = member
        self.serialization = {'name': name} if name else {}

    def named(self, name):
        return Shape(self.type_name, self.members, self.member, name)


def _structure(**members):
    return Shape('structure', {k: v[0].named(v[1]) for k, v in members.items()})


def _list(member):
    return Shape('list', member=member.named('item'))


STRING, INTEGER, BOOLEAN, TIMESTAMP = (Shape(t) for t in ('string', 'integer', 'boolean',
                                                          'timestamp'))
TAG = _structure(Key=(STRING, 'key'), Value=(STRING, 'value'))
ATTACHMENT = _structure(AttachTime=(TIMESTAMP, 'attachTime'), Device=(STRING, 'device'),
                        InstanceId=(STRING, 'instanceId'), State=(STRING, 'status'),
                        VolumeId=(STRING, 'volumeId'),
                        DeleteOnTermination=(BOOLEAN, 'deleteOnTermination'),
                        AssociatedResource=(STRING, 'associatedResource'),
                        InstanceOwningService=(STRING, 'instanceOwningService'))
VOLUME = _structure(Attachments=(_list(ATTACHMENT), 'attachmentSet'),
                    AvailabilityZone=(STRING, 'availabilityZone'),
                    CreateTime=(TIMESTAMP, 'createTime'), Encrypted=(BOOLEAN, 'encrypted'),
                    KmsKeyId=(STRING, 'kmsKeyId'), OutpostArn=(STRING, 'outpostArn'),
                    Size=(INTEGER, 'size'), SnapshotId=(STRING, 'snapshotId'),
                    State=(STRING, 'status'), VolumeId=(STRING, 'volumeId'),
                    Iops=(INTEGER, 'iops'), Tags=(_list(TAG), 'tagSet'),
                    VolumeType=(STRING, 'volumeType'), FastRestored=(BOOLEAN, 'fastRestored'),
                    MultiAttachEnabled=(BOOLEAN, 'multiAttachEnabled'),
                    Throughput=(INTEGER, 'throughput'), SseType=(STRING, 'sseType'))
RESULT = _structure(Volumes=(_list(VOLUME), 'volumeSet'), NextToken=(STRING, 'nextToken'))


def _text_content(func):
    def get_text(self, shape, node):
        text = node.text if hasattr(node, 'text') else node
        return func(self, shape, '' if text is None else text)
    return get_text


class EC2QueryParser:
    """The response walk of botocore's EC2QueryParser."""

    def __init__(self, timestamp_parser=parse_timestamp):
        self._timestamp_parser = timestamp_parser
        self._namespace_re = re.compile('{.*}')

    def parse(self, body):
        root = self._parse_xml_string_to_dom(body)
        parsed = self._parse_shape(RESULT, root)
        mapping = self._build_name_to_xml_node(root)
        if mapping.get('requestId') is not None:
            parsed['ResponseMetadata'] = {'RequestId': mapping['requestId'].text}
        return parsed

    def _parse_xml_string_to_dom(self, body):
        parser = ETree.XMLParser(target=ETree.TreeBuilder(), encoding='utf-8')
        parser.feed(body)
        return parser.close()

    def _parse_shape(self, shape, node):
        return getattr(self, '_handle_%s' % shape.type_name)(shape, node)

    def _node_tag(self, node):
        return self._namespace_re.sub('', node.tag)

    def _build_name_to_xml_node(self, parent_node):
        xml_dict = {}
        for item in parent_node:
            key = self._node_tag(item)
            if key in xml_dict:
                if isinstance(xml_dict[key], list):
                    xml_dict[key].append(item)
                else:
                    xml_dict[key] = [xml_dict[key], item]
            else:
                xml_dict[key] = item
        return xml_dict

    def _handle_structure(self, shape, node):
        parsed = {}
        xml_dict = self._build_name_to_xml_node(node)
        for member_name, member_shape in shape.members.items():
            member_node = xml_dict.get(member_shape.serialization.get('name', member_name))
            if member_node is not None:
                parsed[member_name] = self._parse_shape(member_shape, member_node)
        return parsed

    def _handle_list(self, shape, node):
        return [self._parse_shape(shape.member, item) for item in node]

    def _handle_string(self, shape, node):
        return node.text

    @_text_content
    def _handle_integer(self, shape, text):
        return int(text)

    @_text_content
    def _handle_boolean(self, shape, text):
        return text == 'true'

    @_text_content
    def _handle_timestamp(self, shape, text):
        return self._timestamp_parser(text)


# --- peers_digest: the digest every peer and the C reference agree on (volumes_peer.rb) --------
VOLUME_FIELDS = [('volumeId', 'VolumeId'), ('size', 'Size'), ('snapshotId', 'SnapshotId'),
                 ('availabilityZone', 'AvailabilityZone'), ('status', 'State'),
                 ('createTime', 'CreateTime'), ('volumeType', 'VolumeType'), ('iops', 'Iops'),
                 ('throughput', 'Throughput'), ('encrypted', 'Encrypted'),
                 ('multiAttachEnabled', 'MultiAttachEnabled')]
ATTACHMENT_FIELDS = [('volumeId', 'VolumeId'), ('instanceId', 'InstanceId'),
                     ('device', 'Device'), ('status', 'State'), ('attachTime', 'AttachTime'),
                     ('deleteOnTermination', 'DeleteOnTermination')]
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _canon(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, datetime.datetime):
        d = value - EPOCH
        return '%d.%06d' % (d.days * 86400 + d.seconds, d.microseconds)
    return str(value)


def _field(out, obj, name, key):
    """A member present in obj; botocore's None for an empty element counts as ''."""
    if key in obj:
        v = _canon('' if obj[key] is None else obj[key]).encode('utf-8')
        out += b'%s:%d:%s\n' % (name.encode(), len(v), v)


def peers_digest(volumes, key=lambda name, py: py):
    """SHA-256 hex of the canonical lines; volumes are dicts keyed by key(xmlName, botoName)."""
    out = bytearray()
    for v in volumes:
        out += b'V\n'
        for xml, py in VOLUME_FIELDS:
            _field(out, v, xml, key(xml, py))
        for a in v.get(key('attachments', 'Attachments'), []):
            out += b'A\n'
            for xml, py in ATTACHMENT_FIELDS:
                _field(out, a, xml, key(xml, py))
        for t in v.get(key('tags', 'Tags'), []):
            out += b'T\n'
            _field(out, {'k': t.get(key('key', 'Key')) or ''}, 'key', 'k')
            _field(out, {'v': t.get(key('value', 'Value')) or ''}, 'value', 'v')
    return hashlib.sha256(out).hexdigest()


def c_reference_digest(json_text):
    """peers_digest of `hotbench-decode volumes` output (keys are the XML names; timestamps
    are the RFC 3339 text, parsed here)."""
    volumes = json.loads(json_text)
    for v in volumes:
        for obj, name in [(v, 'createTime')] + [(a, 'attachTime') for a in v['attachments']]:
            if name in obj:
                obj[name] = datetime.datetime.fromisoformat(obj[name].replace('Z', '+00:00'))
    return peers_digest(volumes, key=lambda name, py: name), volumes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--warmup', type=int, default=3)
    ap.add_argument('--runs', type=int, default=10)
    ap.add_argument('--timestamps', choices=['dateutil', 'identity'], default='dateutil')
    ap.add_argument('--digest-json', action='store_true',
                    help='FILE is `hotbench-decode volumes` JSON: print its digest and counts')
    ap.add_argument('file')
    a = ap.parse_args()
    if a.runs < 1 or a.warmup < 0:
        ap.error('--runs >= 1, --warmup >= 0')
    try:
        with open(a.file, 'rb') as f:
            body = f.read()
    except OSError as e:
        print('volumes_etree.py: %s: %s' % (a.file, e.strerror), file=sys.stderr)
        return 1
    if a.digest_json:
        try:
            digest, vols = c_reference_digest(body)
        except (ValueError, KeyError, TypeError) as e:
            print('volumes_etree.py: %s: not hotbench-decode volumes JSON: %s' % (a.file, e),
                  file=sys.stderr)
            return 1
        print(json.dumps({'volumes': len(vols), 'tags': sum(len(v['tags']) for v in vols),
                          'digest': digest}))
        return 0
    parser = EC2QueryParser(parse_timestamp if a.timestamps == 'dateutil' else (lambda t: t))
    ms = []
    try:
        for i in range(a.warmup + a.runs):
            t0 = time.perf_counter()
            parsed = parser.parse(body)
            t = (time.perf_counter() - t0) * 1000.0
            if i >= a.warmup:
                ms.append(t)
    except (ETree.ParseError, ValueError) as e:
        print('volumes_etree.py: %s: %s' % (a.file, e), file=sys.stderr)
        return 1
    vols = parsed.get('Volumes', [])
    if a.timestamps == 'identity':  # the digest wants instants
        for v in vols:
            for obj, k in [(v, 'CreateTime')] + [(x, 'AttachTime') for x in v.get('Attachments', [])]:
                if k in obj:
                    obj[k] = dateutil.parser.parse(obj[k])
    print(json.dumps({
        'peer': 'python-etree' + ('' if a.timestamps == 'dateutil' else '-identity'),
        'engine': 'etree', 'file': a.file, 'bytes': len(body), 'volumes': len(vols),
        'tags': sum(len(v.get('Tags', [])) for v in vols), 'digest': peers_digest(vols),
        'warmup': a.warmup, 'ms': [round(x, 3) for x in ms],
        'ms_median': round(sorted(ms)[len(ms) // 2], 3), 'python': sys.version.split()[0]}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
