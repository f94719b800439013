/* case.c - the tag-heavy XML case describes itself (harness/hb_case.h): its group, strategies,
 * views, the CI gate's selection, the whole-process run and the peers. Data only. */
#include "hb_case.h"

/* clang-format off */
#define S(name) {name, HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL}
#define CEILING(name) {name, HB_ROLE_CEILING, 1, HB_MODEL_POWER, NULL}
/* expat-typed allocates each struct and string on its own; expat-typed-arena builds the same
 * structs in a region: its custom-allocator twin */
#define TYPED {"expat-typed", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, "expat-typed-arena"}
/* hb_vol_strategies of volumes.c, in its order */
static const hb_strategy_desc decoders[] = {
    CEILING("memchr-scan"), S("expat-count"), S("expat-tree"), TYPED,
    S("expat-typed-arena"), S("libxml2-dom"), S("fast"), {NULL, 0, 0, 0, NULL},
};

static const hb_arg at300[] = {{"volumes", 300}, {"compact", 0}, {"piece", 0}, {NULL, 0}};
static const hb_arg tags20[] = {{"tags", 20}, {"compact", 0}, {"piece", 0}, {NULL, 0}};
static const char *const tags_charts[] = {"table", "scaling", "per-element", NULL};
static const char *const volumes_charts[] = {"k-table", "scaling", NULL};

static const hb_view_desc views[] = {
    {"volumes-tags", "DescribeVolumes, 300 volumes, tags scaled", "tags", "tags per volume T",
     "tag", at300, 20, "300 volumes x 20 tags", 300, "time per tag (ns)", 1e9, "1", tags_charts,
     NULL, NULL, NULL, 1, NULL, NULL},
    {"volumes", "DescribeVolumes, 20 tags each, volumes scaled", "volumes", "volumes V",
     "volume", tags20, 300, "300 volumes x 20 tags", 1, "time per volume (us)", 1e6, "",
     volumes_charts, NULL, NULL, NULL, 1, NULL, NULL},
    {0},
};

/* What limits `fast` now: the report's paragraph, make limits' probe (harness/hb_case.h) */
static const hb_limits_desc fast_limits = {
    "fast", "memchr-scan", "volumes:300/tags:20/compact:0/piece:0",
    "volumes:30/tags:20/compact:0/piece:0", "element",
    "`fast` reads the members in the order the service sends them: the expected start tag is "
    "two 16-byte compares, a plain value one look-up in a 64-byte window, a tag item one "
    "builder call. What it pays is per element: those compares, the window's refills and the "
    "builder's stores into the arena, plus the values that need decoding (entities, "
    "timestamps). `memchr-scan` only finds each '<' with libc's vector memchr and builds "
    "nothing: the gap is instructions per element, not memory bandwidth."};

static const hb_group_desc groups[] = {
    {"volumes", "DescribeVolumes responses",
     "One iteration decodes a whole DescribeVolumes response (indented, fed whole) into the "
     "strategy's model.",
     "expat-count", "expat-count", decoders, views,
     "[^/]+/volumes:((30|100|300)/tags:20|300/tags:(0|100))/compact:0/piece:0/"
     "|[^/]+/volumes:300/tags:20/compact:1/piece:4096/",
     "[^/]+/volumes:30/tags:20/compact:0/piece:0/",
     /* the allocator matrix: the strategies that allocate per element (a struct and a string
      * each, a DOM), and expat-typed's region twin; not memchr-scan and expat-count (no model
      * built) nor fast (an arena and strings in the input) */
     "(expat-tree|expat-typed|expat-typed-arena|libxml2-dom)/volumes:300/tags:20/compact:0/"
     "piece:0/", NULL, .limits = &fast_limits},
    {0},
};

static const char *const gen_xml[] = {"volumes", "--volumes", "300", "--tags", "20", "--seed",
                                      "20161115", NULL};
static const char *const dec_xml[] = {"volumes", NULL};
static const char *const not_decoders[] = {
    "memchr-scan: not a decoder (hotbench-decode volumes --help: not usable here)",
    "expat-count: not a decoder (hotbench-decode volumes --help: not usable here)", NULL};
static const hb_e2e_desc e2e[] = {
    {"volumes", "volumes", gen_xml, dec_xml, "expat-typed",
     "volumes/%s/volumes:300/tags:20/compact:0/piece:0/real_time", 0, "elements", 0,
     .check = "output", .items_counter = "elements", .skip = not_decoders},
    {0},
};

static const char *const ruby_pkgs[] = {"ruby", "ruby-ox", "ruby-libxml", "ruby-nokogiri", NULL};
static const char *const python_pkgs[] = {"python3-dateutil", NULL};
static const hb_peer_desc peers[] = {
    {"ox", "ruby", ruby_pkgs},
    {"libxml", "ruby", ruby_pkgs},
    {"nokogiri", "ruby", ruby_pkgs},
    {"rexml", "ruby", ruby_pkgs},
    {"elementtree", "python3", python_pkgs},
    {0},
};
/* clang-format on */

const hb_case_desc hb_volumes_case = {
    "volumes", "Tag-heavy XML decoding",
    "An EC2 DescribeVolumes response of 300 volumes x 20 tags, decoded into a struct per element.",
    groups, e2e, peers, "cases/volumes/peers/driver.py",
};
