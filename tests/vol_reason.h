/* vol_reason.h - the volumes tests' check of a rejection's reason (test_volumes.c,
 * test_volumes_utf16.c). */
#ifndef HB_VOL_REASON_H
#define HB_VOL_REASON_H

#include <string.h>

#include "hb_volumes.h"

/* Whether err gives the row's reason: the parser library's own code (err->lib_code, e.g. expat's
 * enum XML_Error) equal to lib_code when the library found the error, never its message text,
 * which changes between the library's versions (expat 2.5 and 2.9 word the same error
 * differently); hotbench's own words (why_substr in err->reason) when hotbench's code found it.
 * A row may give both where the library's versions differ in who finds it. why_substr "" takes
 * any reason. */
static inline int hb_vol_reason_is(const hb_vol_error *err, const char *why_substr, int lib_code)
{
    if (why_substr && !*why_substr)
        return 1;
    if (err->lib_code)
        return err->lib_code == lib_code;
    return why_substr && err->reason && strstr(err->reason, why_substr);
}

#endif
