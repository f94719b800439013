# volumes_peer.rb - the real XML engines of incident 3, driven the way the AWS SDK for Ruby
# drives them, on an EC2 DescribeVolumes response written by `hotbench-gen volumes`.
#
# What it models: aws-sdk-core 3.x Aws::Xml::Parser (lib/aws-sdk-core/xml/parser.rb, stack.rb,
# frame.rb, engines/{ox,libxml,nokogiri,rexml}.rb). The SDK streams the response through the
# first XML engine that loads (Ox, Oga, LibXML, Nokogiri, REXML; Oga is not in Debian) into a
# Stack of Frames: every element opens a frame chosen by the output shape, character data is
# collected into an Array and joined when the frame closes, each structure frame builds a Struct
# (and a Hash of its members' XML names) and each scalar is converted by its shape type
# (Integer#to_i, == 'true', Time.parse(...).utc for timestamps). Unmodelled elements (requestId,
# attributes) go to null frames. The shapes are those of aws-sdk-ec2 for DescribeVolumesResult,
# Volume, VolumeAttachment and Tag (list members named "item"). This file re-implements that
# machinery compactly (no aws-sdk-core gem in Debian); the engines are the real Debian gems:
# ruby-ox 2.14, ruby-libxml 3.2, ruby-nokogiri 1.13, REXML 3.2 (Ruby 3.1).
#
# Usage: ruby volumes_peer.rb --engine ox|libxml|nokogiri|rexml [--warmup N] [--runs N] FILE
# Prints one JSON object (schema in scripts/peers.sh): ms per response (each run, median), volume
# and tag counts, and the digest of the decoded volumes (peers_digest below; the same function is
# in volumes_etree.py and scripts/peers.sh computes it from `hotbench-decode volumes`).
# Exit status: 0 done, 1 unreadable or malformed document (named), 2 usage.
require 'digest'
require 'json'
require 'time'

module VolumesPeer
  # --- shapes: the subset of the EC2 API model the response touches --------------------------
  Ref = Struct.new(:shape, :location_name)
  Shape = Struct.new(:type, :members, :member, :struct_class) # members: name => Ref

  def self.scalar(type)
    Shape.new(type)
  end

  def self.structure(members)
    refs = members.to_h { |name, (shape, xml)| [name, Ref.new(shape, xml)] }
    Shape.new(:structure, refs, nil, Struct.new(*refs.keys))
  end

  def self.list(member_shape)
    Shape.new(:list, nil, Ref.new(member_shape, 'item'))
  end

  STRING = scalar(:string)
  INTEGER = scalar(:integer)
  BOOLEAN = scalar(:boolean)
  TIMESTAMP = scalar(:timestamp)
  TAG = structure(key: [STRING, 'key'], value: [STRING, 'value'])
  ATTACHMENT = structure(attach_time: [TIMESTAMP, 'attachTime'], device: [STRING, 'device'],
                         instance_id: [STRING, 'instanceId'], state: [STRING, 'status'],
                         volume_id: [STRING, 'volumeId'],
                         delete_on_termination: [BOOLEAN, 'deleteOnTermination'],
                         associated_resource: [STRING, 'associatedResource'],
                         instance_owning_service: [STRING, 'instanceOwningService'])
  VOLUME = structure(attachments: [list(ATTACHMENT), 'attachmentSet'],
                     availability_zone: [STRING, 'availabilityZone'],
                     create_time: [TIMESTAMP, 'createTime'], encrypted: [BOOLEAN, 'encrypted'],
                     kms_key_id: [STRING, 'kmsKeyId'], outpost_arn: [STRING, 'outpostArn'],
                     size: [INTEGER, 'size'], snapshot_id: [STRING, 'snapshotId'],
                     state: [STRING, 'status'], volume_id: [STRING, 'volumeId'],
                     iops: [INTEGER, 'iops'], tags: [list(TAG), 'tagSet'],
                     volume_type: [STRING, 'volumeType'], fast_restored: [BOOLEAN, 'fastRestored'],
                     multi_attach_enabled: [BOOLEAN, 'multiAttachEnabled'],
                     throughput: [INTEGER, 'throughput'], sse_type: [STRING, 'sseType'])
  RESULT = Ref.new(structure(volumes: [list(VOLUME), 'volumeSet'],
                             next_token: [STRING, 'nextToken']), nil)

  # --- frames: one per open element, as Aws::Xml::Parser::Frame ------------------------------
  class Frame
    def self.for(xml_name, parent, ref)
      klass = case ref.shape.type
              when :structure then StructureFrame
              when :list then ListFrame
              when :integer then IntegerFrame
              when :boolean then BooleanFrame
              when :timestamp then TimestampFrame
              else StringFrame
              end
      klass.new(xml_name, parent, ref)
    end

    attr_reader :parent, :result

    def initialize(xml_name, parent, ref)
      @path = xml_name
      @parent = parent
      @ref = ref
      @text = []
    end

    def set_text(value)
      @text << value
    end

    def child_frame(xml_name)
      NullFrame.new(xml_name, self, nil)
    end

    def consume_child_frame(_child); end
  end

  class StructureFrame < Frame
    def initialize(*)
      super
      @result = @ref.shape.struct_class.new
      @members = {}
      @ref.shape.members.each do |name, ref|
        @result[name] = [] if ref.shape.type == :list # DefaultList
        @members[ref.location_name] = { name: name, ref: ref }
      end
    end

    def child_frame(xml_name)
      if (@member = @members[xml_name])
        Frame.for(xml_name, self, @member[:ref])
      else
        NullFrame.new(xml_name, self, nil)
      end
    end

    def consume_child_frame(child)
      @result[@member[:name]] = child.result unless child.is_a?(NullFrame)
    end
  end

  class ListFrame < Frame
    def initialize(*)
      super
      @result = []
      @member_xml_name = @ref.shape.member.location_name
    end

    def child_frame(xml_name)
      raise "unexpected <#{xml_name}> in a list" unless xml_name == @member_xml_name

      Frame.for(xml_name, self, @ref.shape.member)
    end

    def consume_child_frame(child)
      @result << child.result unless child.is_a?(NullFrame)
    end
  end

  class NullFrame < Frame; end

  class StringFrame < Frame
    def result
      @text.join
    end
  end

  class IntegerFrame < Frame
    def result
      @text.empty? ? nil : @text.join.to_i
    end
  end

  class BooleanFrame < Frame
    def result
      @text.empty? ? nil : (@text.join == 'true')
    end
  end

  class TimestampFrame < Frame
    def result
      return nil if @text.empty?

      value = @text.join
      value.match?(/^\d+$/) ? Time.at(value.to_i) : Time.parse(value).utc
    end
  end

  # --- the stack the engines call, as Aws::Xml::Parser::Stack --------------------------------
  class Stack
    attr_reader :result

    def initialize(ref)
      @ref = ref
      @frame = self
    end

    def start_element(name)
      @frame = @frame.child_frame(name.to_s)
    end

    def attr(name, value)
      start_element(name)
      text(value)
      end_element(name)
    end

    def text(value)
      @frame.set_text(value)
    end

    def end_element(*)
      @frame.parent.consume_child_frame(@frame)
      @frame = @frame.parent
    end

    def error(msg, line = nil, column = nil)
      raise "XML error: #{msg}#{line ? " at line #{line}, column #{column}" : ''}"
    end

    def child_frame(name)
      Frame.for(name, self, @ref)
    end

    def consume_child_frame(frame)
      @result = frame.result
    end
  end

  # --- the engines, as aws-sdk-core's engines/*.rb call them ---------------------------------
  ENGINES = {
    'ox' => lambda do
      require 'ox'
      require 'stringio'
      ->(stack, xml) { Ox.sax_parse(stack, StringIO.new(xml), convert_special: true, skip: :skip_return) }
    end,
    'libxml' => lambda do
      require 'libxml'
      handler = Class.new do
        include LibXML::XML::SaxParser::Callbacks
        def initialize(stack) = @stack = stack
        def on_start_element_ns(name, attributes, _prefix = nil, _uri = nil, ns = {})
          attr_ns_prefix = ns.keys.first
          @stack.start_element(name)
          attributes.each do |attr_name, attr_value|
            attr_name = "#{attr_ns_prefix}:#{attr_name}" if attr_ns_prefix
            @stack.attr(attr_name, attr_value)
          end
        end
        def on_end_element_ns(*) = @stack.end_element
        def on_characters(chars) = @stack.text(chars)
        def on_error(msg) = @stack.error(msg)
      end
      lambda do |stack, xml|
        parser = LibXML::XML::SaxParser.string(xml)
        parser.callbacks = handler.new(stack)
        parser.parse
      end
    end,
    'nokogiri' => lambda do
      require 'nokogiri'
      handler = Class.new(Nokogiri::XML::SAX::Document) do
        def initialize(stack) = @stack = stack
        def start_element_namespace(name, attributes = [], *)
          @stack.start_element(name)
          attributes.each do |a|
            @stack.attr(a.prefix ? "#{a.prefix}:#{a.localname}" : a.localname, a.value)
          end
        end
        def characters(chars) = @stack.text(chars)
        def end_element_namespace(*) = @stack.end_element
        def error(msg) = @stack.error(msg)
      end
      ->(stack, xml) { Nokogiri::XML::SAX::Parser.new(handler.new(stack)).parse(xml) }
    end,
    'rexml' => lambda do
      require 'rexml/document'
      require 'rexml/streamlistener'
      handler = Class.new do
        include REXML::StreamListener
        def initialize(stack)
          @stack = stack
          @depth = 0
        end
        def tag_start(name, attrs)
          @depth += 1
          @stack.start_element(name)
          attrs.each { |a| @stack.attr(*a) }
        end
        def text(value)
          @stack.text(value) if @depth.positive?
        end
        def tag_end(_name)
          @stack.end_element
          @depth -= 1
        end
      end
      lambda do |stack, xml|
        REXML::Parsers::StreamParser.new(REXML::Source.new(xml.dup), handler.new(stack)).parse
      rescue REXML::ParseException => e
        stack.error(e.message)
      end
    end
  }.freeze

  # Aws::Xml::Parser#parse: a new stack per response, the engine streams into it.
  def self.parse(engine, xml)
    stack = Stack.new(RESULT)
    engine.call(stack, xml)
    stack.result
  end

  # --- the digest every peer and the C reference agree on ------------------------------------
  # SHA-256 (hex) of lines, per volume in document order:
  #   "V\n", then "<xmlName>:<bytes>:<value>\n" for each present member of
  #     volumeId size snapshotId availabilityZone status createTime volumeType iops throughput
  #     encrypted multiAttachEnabled
  #   then per attachment "A\n" and the same for volumeId instanceId device status attachTime
  #     deleteOnTermination; then per tag "T\n", "key:<bytes>:<key>\n", "value:<bytes>:<value>\n".
  # Integers in decimal, booleans true/false, timestamps "<unix seconds>.<6-digit microseconds>"
  # (floor seconds), strings as UTF-8; <bytes> is the byte length of <value>.
  VOLUME_FIELDS = [%w[volumeId volume_id], %w[size size], %w[snapshotId snapshot_id],
                   %w[availabilityZone availability_zone], %w[status state],
                   %w[createTime create_time], %w[volumeType volume_type], %w[iops iops],
                   %w[throughput throughput], %w[encrypted encrypted],
                   %w[multiAttachEnabled multi_attach_enabled]].freeze
  ATTACHMENT_FIELDS = [%w[volumeId volume_id], %w[instanceId instance_id], %w[device device],
                       %w[status state], %w[attachTime attach_time],
                       %w[deleteOnTermination delete_on_termination]].freeze

  def self.field(out, name, value)
    return if value.nil?

    value = format('%d.%06d', value.to_i, value.usec) if value.is_a?(Time)
    value = value.to_s
    out << "#{name}:#{value.bytesize}:#{value}\n"
  end

  def self.peers_digest(volumes)
    out = +''
    volumes.each do |v|
      out << "V\n"
      VOLUME_FIELDS.each { |xml, m| field(out, xml, v[m]) }
      v.attachments.each do |a|
        out << "A\n"
        ATTACHMENT_FIELDS.each { |xml, m| field(out, xml, a[m]) }
      end
      v.tags.each do |t|
        out << "T\n"
        field(out, 'key', t.key || '')
        field(out, 'value', t.value || '')
      end
    end
    Digest::SHA256.hexdigest(out.force_encoding(Encoding::BINARY))
  end
end

def usage(msg)
  warn "volumes_peer.rb: #{msg}"
  warn 'usage: ruby volumes_peer.rb --engine ox|libxml|nokogiri|rexml [--warmup N] [--runs N] FILE'
  exit 2
end

engine_name = nil
warmup = 3
runs = 10
path = nil
args = ARGV.dup
until args.empty?
  a = args.shift
  case a
  when '--engine' then engine_name = args.shift
  when '--warmup' then warmup = Integer(args.shift || 'x', exception: false) || usage('bad --warmup')
  when '--runs' then runs = Integer(args.shift || 'x', exception: false) || usage('bad --runs')
  else
    usage("unknown argument '#{a}'") if a.start_with?('-') || path
    path = a
  end
end
usage('--engine and FILE are required') unless engine_name && path
usage("unknown engine '#{engine_name}'") unless VolumesPeer::ENGINES.key?(engine_name)
usage('--runs >= 1, --warmup >= 0') if runs < 1 || warmup.negative?

begin
  xml = File.binread(path).force_encoding(Encoding::UTF_8)
rescue SystemCallError => e
  warn "volumes_peer.rb: #{path}: #{e.message}"
  exit 1
end
engine = VolumesPeer::ENGINES.fetch(engine_name).call
ms = []
result = nil
begin
  (warmup + runs).times do |i|
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    result = VolumesPeer.parse(engine, xml)
    t = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1000.0
    ms << t if i >= warmup
  end
rescue StandardError => e
  warn "volumes_peer.rb: #{path}: #{engine_name}: #{e.message.lines.first&.strip}"
  exit 1
end
vols = result&.volumes || []
versions = { 'ox' => -> { Ox::VERSION }, 'libxml' => -> { LibXML::XML::VERSION },
             'nokogiri' => -> { Nokogiri::VERSION }, 'rexml' => -> { REXML::VERSION } }
puts JSON.generate(
  peer: "ruby-#{engine_name}", engine: engine_name, file: path, bytes: xml.bytesize,
  volumes: vols.size, tags: vols.sum { |v| v.tags.size }, digest: VolumesPeer.peers_digest(vols),
  warmup: warmup, ms: ms.map { |x| x.round(3) }, ms_median: ms.sort[ms.size / 2].round(3),
  ruby: RUBY_VERSION, engine_version: versions.fetch(engine_name).call
)
