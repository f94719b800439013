/* hb_build_info.h - what a run records about its own build (DESIGN.md, measurement rule 6):
 * the git revision it was built from, the compiler, the flags, the build type and the
 * google-benchmark version.
 *
 * These strings are the only bytes two builds of the same code may differ in: a commit that
 * changes one comment still changes `git describe`, and build-ci/ and build-rev/<commit>/ are
 * configured with different CMAKE_C_FLAGS strings for the same compile options. They live in
 * their own translation unit (hb_build_info.c, the only file CMakeLists.txt gives their
 * definitions), so every other object file is the same bytes for the same code, and the
 * compare's object-code witness (scripts/hotbench/compare/objcode.py) leaves this one out by
 * its file name.
 */
#ifndef HB_BUILD_INFO_H
#define HB_BUILD_INFO_H

#ifdef __cplusplus
extern "C" {
#endif

/* The build's description, fixed at configure time. Every field is a static, NUL-terminated
 * string, never NULL ("unknown" when the build did not define it), owned by the program. */
struct hb_build_info {
    const char *git_revision;      /* `git describe --always --dirty --abbrev=12` at configure */
    const char *compiler;          /* "<CMAKE_C_COMPILER_ID> <CMAKE_C_COMPILER_VERSION>" */
    const char *build_flags;       /* the C flags of the build type, -DHB_TEST_HOOKS, ... */
    const char *build_type;        /* CMAKE_BUILD_TYPE */
    const char *benchmark_version; /* google-benchmark's CMake package version */
};

/* The build's description: a pointer to one static, read-only struct (no allocation, no
 * failure, thread-safe). */
const struct hb_build_info *hb_build_info_get(void);

#ifdef __cplusplus
}
#endif

#endif
