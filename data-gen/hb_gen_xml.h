/* hb_gen_xml.h - the deterministic EC2 DescribeVolumes XML response generator.
 *
 * Incident 3 of DESIGN.md: the AWS SDK for Ruby decoding DescribeVolumes with 300 volumes of 20
 * tags each. The generator writes the response the EC2 Query API sends (API version 2016-11-15):
 *
 *     <?xml version="1.0" encoding="UTF-8"?>
 *     <DescribeVolumesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
 *         <requestId>UUID</requestId>
 *         <volumeSet>
 *             <item>  volumeId size snapshotId availabilityZone status createTime
 *                     attachmentSet/item{volumeId instanceId device status attachTime
 *                                        deleteOnTermination}   (in-use volumes only)
 *                     volumeType iops throughput encrypted multiAttachEnabled
 *                     tagSet/item{key value} x tags              (omitted when tags is 0)
 *             </item> x volumes
 *         </volumeSet>
 *         <nextToken>...</nextToken>                             (with next_token only)
 *     </DescribeVolumesResponse>
 *
 * Indented by four spaces per level with LF line ends, as the service sends it; compact writes no
 * whitespace between elements. Empty values are written as empty-element tags (<snapshotId/>,
 * <attachmentSet/>) as the service does. iops is omitted for st1, sc1 and standard volumes and
 * throughput for all but gp3, as the service does. About one tag value in eight contains
 * characters that must be escaped (&amp; &lt; &gt; &quot;) and about one in ten non-ASCII UTF-8
 * (2-, 3- and 4-byte sequences). The 300 x 20 response is about 1.2 MB indented (0.68 MB compact).
 *
 * Same parameters, same bytes, on every machine: the PRNG is the generator's own (splitmix64),
 * never rand() or the time. Volume i's content depends only on (seed, i), so the first k volumes of
 * a response of n > k volumes are those of the response of k volumes with the same tags and seed.
 */
#ifndef HB_GEN_XML_H
#define HB_GEN_XML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_VOLUMES_DEFAULT_VOLUMES 300u
#define HB_VOLUMES_DEFAULT_TAGS 20u
#define HB_VOLUMES_DEFAULT_SEED 20161115u /* the EC2 API version the responses carry */
#define HB_VOLUMES_MAX_VOLUMES 1000000u   /* largest --volumes accepted */
#define HB_VOLUMES_MAX_TAGS 10000u        /* largest --tags accepted */
#define HB_VOLUMES_FORMAT_VERSION 1 /* bumped whenever the bytes for given parameters change */

typedef struct hb_volumes_params {
    uint32_t volumes; /* item children of volumeSet; 0 gives an empty <volumeSet/> */
    uint32_t tags;    /* tags per volume; 0 omits tagSet */
    uint64_t seed;
    int compact;    /* nonzero: no whitespace between elements */
    int next_token; /* nonzero: end with a <nextToken> (a paginated response) */
} hb_volumes_params;

/* What a generated response holds: the counts a decoder must reproduce. */
typedef struct hb_volumes_info {
    uint64_t bytes;       /* bytes of the document */
    uint64_t elements;    /* elements (start tags and empty-element tags), the root included */
    uint64_t volumes;     /* volumes */
    uint64_t tags;        /* tags of all volumes */
    uint64_t attachments; /* attachment items of all volumes */
    uint64_t escaped;     /* tag values holding an entity reference */
    uint64_t non_ascii;   /* tag values holding non-ASCII UTF-8 */
} hb_volumes_info;

/* Sets *p to the defaults: 300 volumes, 20 tags, the default seed, indented, no nextToken. */
void hb_volumes_params_default(hb_volumes_params *p);

/* Checks *p (NULL is refused): volumes <= HB_VOLUMES_MAX_VOLUMES, tags <= HB_VOLUMES_MAX_TAGS.
 * Returns HB_OK (*why = NULL) or HB_EINVAL with a static reason in *why. why may be NULL. */
int hb_volumes_params_check(const hb_volumes_params *p, const char **why);

/* Generates the response for *p into malloc'd memory: *out (NUL-terminated for convenience, the
 * NUL not counted) and *len bytes; fills *info if not NULL. The caller frees *out with free().
 * Returns HB_OK, HB_EINVAL (bad parameters) or HB_ENOMEM (*out is then NULL). */
int hb_volumes_generate(const hb_volumes_params *p, uint8_t **out, size_t *len,
                        hb_volumes_info *info);

#ifdef __cplusplus
}
#endif

#endif /* HB_GEN_XML_H */
