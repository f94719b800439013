/* case.c - the RFC 3339 timestamps case describes itself (harness/hb_case.h): its groups,
 * strategies, views, the CI gate's selection, the whole-process runs and the peers. Data only. */
#include "hb_case.h"
#include "rfc3339_impl.h" /* HB_RFC3339_X86: the SIMD builds exist on x86-64 only */

/* clang-format off */
#define S(name) {name, HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL}
#define CEILING(name) {name, HB_ROLE_CEILING, 1, HB_MODEL_POWER, NULL}
#if HB_RFC3339_X86
#define SIMD_BUILDS S("simd-sse4.1"), S("simd-avx2"),
#else
#define SIMD_BUILDS
#endif
/* hb_rfc3339_strategies of rfc3339.c, in its order */
static const hb_strategy_desc parsers[] = {
    CEILING("int64-binary"), S("millis-parse"), S("millis-strtoll"), S("strptime"), S("sscanf"),
    S("scalar"), S("swar"), S("simd"), SIMD_BUILDS {NULL, 0, 0, 0, NULL},
};
/* hb_days_strategies of rfc3339.c */
static const hb_strategy_desc days[] = {S("hinnant"), S("table"), S("timegm"),
                                         {NULL, 0, 0, 0, NULL}};

static const hb_arg none[] = {{NULL, 0}};
static const char *const rows_charts[] = {"table", "bars", "scaling", NULL};
static const char *const lines_charts[] = {"lines", NULL};

static const hb_view_desc rows_views[] = {
    {"rfc3339", "RFC 3339 timestamps, one column", "rows", "rows N", "ts", none, 1e5,
     "100k rows", 1, "time per timestamp (ns)", 1e9, "", rows_charts, NULL, NULL, NULL, 0, NULL,
     NULL},
    {0},
};
static const hb_view_desc digits_views[] = {
    {"rfc3339-digits", "ns per timestamp against time-secfrac digits", "digits",
     "fraction digits", "ts", none, 9, "9 digits", 0, "time per timestamp (ns)", 1e9, "",
     lines_charts, NULL, NULL, NULL, 0, NULL, "rfc3339_variant_rows"},
    {0},
};

/* What limits the batch `simd` now: the report's paragraph, make limits' probe */
static const hb_limits_desc rows_limits = {
    "simd", "int64-binary", "rows:100000", "rows:1000", "timestamp",
    "`simd` takes the column in groups of 8 rows (AVX2; 4 with SSE4.1): each row's bytes are "
    "checked against a template and its digits paired in vector registers, then a transpose "
    "puts one field of every row in one register, so the range checks, the month's length, the "
    "leap rule, the day count and the offset run once per group; a group with any row it does "
    "not take goes through the one-row kernel. A fixed number of instructions per timestamp, "
    "branches only on the layout (fraction digits, offset); it reads the column once, far below "
    "memory bandwidth. `int64-binary` reads each row's milliseconds as 8 bytes, range-checks "
    "them and splits them into seconds and nanoseconds: no text to validate, no calendar; the "
    "gap is those two."};

#define IR_PARSERS "(int64-binary|millis-parse|millis-strtoll|scalar|swar|simd|simd-sse4.1|simd-avx2)/"
static const hb_group_desc groups[] = {
    {"rfc3339", "RFC 3339 timestamps, one column",
     "One iteration parses every row of a column into seconds and nanoseconds (or millis) and "
     "checksums them.",
     "millis-parse", "strptime", parsers, rows_views, "[^/]+/rows:(1000|10000|100000)/",
     "[^/]+/rows:1000/", NULL, NULL /* parsers allocate nothing: not in the allocator matrix */,
     .limits = &rows_limits},
    {"rfc3339-digits", "time-secfrac digits",
     "The same column with 0, 1, 3, 6 or 9 time-secfrac digits.",
     "millis-parse", "strptime", parsers, digits_views, "", IR_PARSERS, NULL, NULL, NULL, 0},
    {"rfc3339-offset", "time-offset Z or numeric",
     "The same column with every time-offset Z (numeric:0) or numeric (numeric:1).",
     "millis-parse", "strptime", parsers, NULL, "", IR_PARSERS, NULL, NULL, NULL, 0},
    {"rfc3339-columns", "timestamp columns per row",
     "Rows of 1 or 5 timestamp columns.",
     "millis-parse", "strptime", parsers, NULL, "", IR_PARSERS, NULL, NULL, NULL, 0},
    {"rfc3339-days", "civil date to days since the epoch",
     "One iteration converts 100,000 civil dates to days since 1970-01-01.",
     "timegm", "timegm", days, NULL, "", "(table|hinnant|timegm)/", NULL, NULL, NULL, 0},
    {0},
};

static const char *const gen_ts[] = {"timestamps", "--rows", "100000", "--encoding", "rfc3339",
                                     "--seed", "20210304", NULL};
/* the millis strategies read the UNIX_MILLIS column of the same instants */
static const char *const gen_ms[] = {"timestamps", "--rows", "100000", "--encoding", "millis",
                                     "--seed", "20210304", NULL};
static const char *const dec_ts[] = {"rfc3339", NULL};
static const hb_e2e_desc e2e[] = {
    {"rfc3339", "rfc3339", gen_ts, dec_ts, "scalar", "rfc3339/%s/rows:100000/real_time", 1e5,
     "timestamps", 0, .check = "output", .alt_gen_args = gen_ms, .alt_select = "^millis",
     .alt_check = "output-ms", .startup = 1},
    {0},
};

static const char *const jdk_pkgs[] = {"default-jdk-headless", NULL};
static const hb_peer_desc peers[] = {{"java.time", "java", jdk_pkgs}, {0}};
/* clang-format on */

const hb_case_desc hb_rfc3339_case = {
    "rfc3339", "RFC 3339 timestamp parsing",
    "100,000 rows of RFC 3339 timestamps parsed by a generic formatter dominated a database "
    "client's CPU.",
    groups, e2e, peers, "cases/rfc3339/peers/driver.py",
};
