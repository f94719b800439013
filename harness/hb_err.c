#include "hb_err.h"

const char *hb_err_str(int err)
{
    switch (err) {
    case HB_OK:
        return "success";
    case HB_ENOMEM:
        return "out of memory";
    case HB_EINVAL:
        return "invalid argument";
    case HB_EPARSE:
        return "malformed input";
    case HB_ETRUNC:
        return "premature end of input";
    case HB_ERANGE:
        return "value out of range";
    case HB_EIO:
        return "I/O error";
    case HB_EZLIB:
        return "zlib error";
    case HB_ELIMIT:
        return "limit exceeded";
    }
    return "unknown error";
}
