/* hb_build_info.c - hb_build_info_get (hb_build_info.h). CMakeLists.txt defines the macros
 * below on this file alone (its own library, hb_build_info); a build without them says
 * "unknown". */
#include "hb_build_info.h"

#ifndef HB_GIT_REV_BUILD
#define HB_GIT_REV_BUILD "unknown"
#endif
#ifndef HB_COMPILER
#define HB_COMPILER "unknown"
#endif
#ifndef HB_BUILD_FLAGS
#define HB_BUILD_FLAGS "unknown"
#endif
#ifndef HB_BUILD_TYPE
#define HB_BUILD_TYPE "unknown"
#endif
#ifndef HB_BENCHMARK_VERSION
#define HB_BENCHMARK_VERSION "unknown"
#endif

static const struct hb_build_info info = {
    HB_GIT_REV_BUILD, HB_COMPILER, HB_BUILD_FLAGS, HB_BUILD_TYPE, HB_BENCHMARK_VERSION,
};

const struct hb_build_info *hb_build_info_get(void)
{
    return &info;
}
