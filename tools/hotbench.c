/* hotbench - the benchmark runner: every case of cases/cases.def, verified, then timed.
 *
 * Accepts every --benchmark_* flag of google-benchmark and hotbench's --hb_* flags (--help).
 * Exit status: 0 when every run strategy was verified, 1 when one failed, 2 on a usage error. */
#include "hb.h"

#include <expat.h>
#include <stdio.h>
#include <zlib.h>

#define HB_CASE(name)                                                                          \
    int hb_##name##_register(const hb_options *opt);                                           \
    extern const hb_case_desc hb_##name##_case;
#include "cases.def"
#undef HB_CASE

static const hb_case cases[] = {
#define HB_CASE(name) {#name, hb_##name##_register, &hb_##name##_case},
#include "cases.def"
#undef HB_CASE
};

int main(int argc, char **argv)
{
    char expat[64];
    XML_Expat_Version v = XML_ExpatVersionInfo();
    snprintf(expat, sizeof expat, "%d.%d.%d", v.major, v.minor, v.micro);
    hb_add_context("zlib_version", zlibVersion());
    hb_add_context("expat_version", expat);
    return hb_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
