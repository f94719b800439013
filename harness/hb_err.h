/* hb_err.h - the one error enum of hotbench.
 *
 * Every library function returns HB_OK (0) or one of these negative codes and gives its results
 * through out-parameters (the picohttpparser / yxml convention). Where a code concerns input bytes,
 * the module that returned it also offers a reason string and a byte offset.
 */
#ifndef HB_ERR_H
#define HB_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

enum hb_err {
    HB_OK = 0,
    HB_ENOMEM = -1, /* an allocation failed or would exceed a configured bound */
    HB_EINVAL = -2, /* a bad argument from the caller (programmer or command-line error) */
    HB_EPARSE = -3, /* malformed input; the module reports the reason and the byte offset */
    HB_ETRUNC = -4, /* the input ended before the grammar allows */
    HB_ERANGE = -5, /* a number in the input is out of range (e.g. chunk-size past 2^63 - 1) */
    HB_EIO = -6,    /* reading or writing a file failed; errno is kept */
    HB_EZLIB = -7,  /* zlib reported an error (corrupt or truncated gzip stream) */
    HB_ELIMIT = -8, /* a documented limit was exceeded (chunk-ext length, exact capacity) */
};

/* Returns a static, human-readable name for an hb_err code ("out of memory", ...). Never NULL;
 * unknown codes give "unknown error". */
const char *hb_err_str(int err);

#ifdef __cplusplus
}
#endif

#endif /* HB_ERR_H */
