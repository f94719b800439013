/* test_volumes.c - the DescribeVolumes decoders (cases/volumes) against the decode contract.
 *
 * Table-driven: each row is {document, expected JSON or error, why}. Every decoding strategy
 * decodes every row from a copy placed flush against a PROT_NONE page; the streaming (expat)
 * strategies also get it fed in 1-, 7- and 4096-byte pieces, which splits multi-byte UTF-8
 * characters, references and tags across feeds. All must print exactly the expected JSON, or all
 * must reject the document (the reference with the expected code and reason). Then: the botocore
 * fixture and a small generated response against golden files; every strategy against the
 * reference on random generated and random "messy" documents (comments, CDATA, references, CR
 * LF, prefixes, unknown members, attributes, any member order); and every decoder against the
 * reference on random mutations of a document, where each must reject whatever the reference
 * rejects and decode the rest as the reference does (fast may refuse, as "unsupported: ...", what
 * lies outside its documented subset). Also: documents with NUL bytes, other encodings and XML
 * 1.1, read as 1.0 (the reviewer's repros; UTF-16 rules in test_volumes_utf16.c), a document
 * over 4 GiB, error columns in characters, and error reasons that stay one line of valid UTF-8.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include <expat.h>

#include "hb_guard.h"
#include "vol_reason.h"

#include "hb_err.h"
#include "hb_gen_xml.h"
#include "hb_prng.h"
#include "hb_volumes.h"
#include "volumes_impl.h"

#define GUARD_CAP (4u << 20)

/* ---- memory ending at a PROT_NONE page -------------------------------------------------- */


/* ---- JSON into a growing string ----------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static int sbuf_write(void *ctx, const char *p, size_t n)
{
    sbuf *b = ctx;
    if (b->cap - b->len < n + 1) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc - b->len < n + 1)
            nc *= 2;
        b->p = realloc(b->p, nc);
        assert_non_null(b->p);
        b->cap = nc;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

static char *to_json(const hb_volumes *v)
{
    sbuf b = {NULL, 0, 0};
    assert_int_equal(hb_volumes_json(v, sbuf_write, &b), 0);
    return b.p;
}

/* ---- the table ---------------------------------------------------------------------------- */

#define DECL "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define OPEN DECL "<DescribeVolumesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
#define CLOSE "</DescribeVolumesResponse>\n"
/* one volume holding BODY */
#define VOL(body) OPEN "<volumeSet><item>" body "</item></volumeSet>" CLOSE
#define J1(vol) "[\n" vol "\n]\n"
#define NOTHING "\"attachments\": [], \"tags\": []}"

typedef struct row {
    const char *doc;
    const char *json;       /* NULL: rejected */
    int rc;                 /* the reference's code when rejected */
    const char *why_substr; /* hotbench's words in the reference's reason ("": any reason) */
    const char *why;
    int xml_error; /* expat's enum XML_Error, when expat finds it (the reference is expat's) */
} row;

/* clang-format off */
static const row rows[] = {
    /* contents */
    {VOL("<volumeId>a&amp;b&lt;c&gt;d&quot;e&apos;f</volumeId>"),
     J1("{\"volumeId\": \"a&b<c>d\\\"e'f\", " NOTHING), 0, NULL, "the five predefined entities", 0},
    {VOL("<volumeId>&#65;&#x42;&#x20AC;&#128640;&#13;&#9;&#0000067;</volumeId>"),
     J1("{\"volumeId\": \"AB\xe2\x82\xac\xf0\x9f\x9a\x80\\r\\tC\", " NOTHING), 0, NULL,
     "character references, decimal and hex, to 1- to 4-byte UTF-8, CR kept as CR", 0},
    {VOL("<volumeId><![CDATA[<b>&amp;]]]></volumeId>"),
     J1("{\"volumeId\": \"<b>&amp;]\", " NOTHING), 0, NULL, "CDATA is literal", 0},
    {VOL("<volumeId>x<![CDATA[y]]>z<![CDATA[]]></volumeId>"),
     J1("{\"volumeId\": \"xyz\", " NOTHING), 0, NULL, "CDATA between text, empty CDATA", 0},
    {VOL("<volumeId>ab<!-- c -->cd<?pi x?>ef</volumeId><!--x--><size>1<!---->2</size>"),
     J1("{\"volumeId\": \"abcdef\", \"size\": 12, " NOTHING), 0, NULL,
     "comments and PIs inside values and between members", 0},
    {VOL("<volumeId/><snapshotId></snapshotId><tagSet/><attachmentSet></attachmentSet>"),
     J1("{\"volumeId\": \"\", \"snapshotId\": \"\", " NOTHING), 0, NULL,
     "empty elements give empty strings, empty sets give no items", 0},
    {VOL("<volumeId>   </volumeId><status>\n\t </status>"),
     J1("{\"volumeId\": \"   \", \"status\": \"\\n\\t \", " NOTHING), 0, NULL,
     "whitespace-only values are kept, never trimmed", 0},
    {"<?xml version=\"1.0\"?>\r\n<R>\r\n <volumeSet>\r\n  <item>\r\n   <volumeId>a\r\nb\rc\r</volumeId>"
     "\r\n   <status><![CDATA[x\r\ny]]></status>\r\n  </item>\r\n </volumeSet>\r\n</R>\r\n",
     J1("{\"volumeId\": \"a\\nb\\nc\\n\", \"status\": \"x\\ny\", " NOTHING), 0, NULL,
     "CR LF and lone CR become LF, also in CDATA", 0},
    {"\xef\xbb\xbf" DECL "<R><volumeSet><item><volumeId>\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x9a\x80</volumeId>"
     "</item></volumeSet></R>",
     J1("{\"volumeId\": \"\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x9a\x80\", " NOTHING), 0, NULL,
     "a byte order mark; 2-, 3- and 4-byte UTF-8", 0},
    {"<ec2:R xmlns:ec2=\"urn:x\"><ec2:volumeSet><ec2:item><ec2:volumeId>p</ec2:volumeId>"
     "<ec2:tagSet><ec2:item><ec2:key>k</ec2:key><ec2:value>v</ec2:value></ec2:item></ec2:tagSet>"
     "</ec2:item></ec2:volumeSet></ec2:R>",
     J1("{\"volumeId\": \"p\", \"attachments\": [], \"tags\": [{\"key\": \"k\", \"value\": \"v\"}]}"),
     0, NULL, "prefixed names match by local name", 0},
    {VOL("<size:>7</size:><x:y:size>5</x:y:size><sizex:>8</sizex:><itemize>9</itemize>"),
     J1("{\"size\": 5, " NOTHING), 0, NULL,
     "the local name follows the last ':'; a name ending in ':' or only starting like a member "
     "is no member", 0},
    {VOL("<a:volumeId>q</a:volumeId><b:size xmlns:b=\"urn:other\">3</b:size>"),
     J1("{\"volumeId\": \"q\", \"size\": 3, " NOTHING), 0, NULL,
     "undeclared prefixes and other namespace URIs are ignored", 0},
    {VOL("<tagSet><item><value x=\"1\">v</value><key>k</key><extra>e</extra></item></tagSet>"
         "<foo a=\"b\"><volumeId>no</volumeId></foo><size>12</size><volumeId id='x>y'>r</volumeId >"),
     J1("{\"volumeId\": \"r\", \"size\": 12, \"attachments\": [], \"tags\": [{\"key\": \"k\", "
        "\"value\": \"v\"}]}"),
     0, NULL, "unknown members skipped, members in any order, attributes ignored", 0},
    {VOL("<tagSet><item><key>k</key><value>1</value></item><item><key>k</key><value>2</value></item>"
         "<item><key>k</key><value>1</value></item></tagSet>"),
     J1("{\"attachments\": [], \"tags\": [{\"key\": \"k\", \"value\": \"1\"}, {\"key\": \"k\", "
        "\"value\": \"2\"}, {\"key\": \"k\", \"value\": \"1\"}]}"),
     0, NULL, "duplicate tag keys kept in order", 0},
    {VOL("<tagSet><item><key>a</key></item></tagSet><tagSet><item><value>b</value></item></tagSet>"),
     J1("{\"attachments\": [], \"tags\": [{\"key\": \"a\"}, {\"value\": \"b\"}]}"), 0, NULL,
     "two tagSets append; missing key or value are absent", 0},
    {VOL("<volumeId>a<b>x</b>c<c/></volumeId><volumeId>last</volumeId>"),
     J1("{\"volumeId\": \"last\", " NOTHING), 0, NULL,
     "elements inside a leaf are skipped; a leaf given twice keeps the last", 0},
    {VOL("<size>-5</size><iops>0</iops><throughput>9223372036854775807</throughput>"
         "<encrypted>true</encrypted><multiAttachEnabled>false</multiAttachEnabled>"
         "<attachmentSet><item><device>/dev/x</device><deleteOnTermination>false</deleteOnTermination>"
         "</item><item><volumeId>v</volumeId></item></attachmentSet>"),
     J1("{\"size\": -5, \"iops\": 0, \"throughput\": 9223372036854775807, \"encrypted\": true, "
        "\"multiAttachEnabled\": false, \"attachments\": [{\"device\": \"/dev/x\", "
        "\"deleteOnTermination\": false}, {\"volumeId\": \"v\"}], \"tags\": []}"),
     0, NULL, "integers and booleans typed; attachments", 0},
    {"<!-- before --><?pi before?>\n<R><requestId>r</requestId><volumeSet><item><volumeId>1</volumeId>"
     "</item></volumeSet><volumeSet><item><volumeId>2</volumeId></item><other/></volumeSet>"
     "<nextToken>t</nextToken></R>\n<!-- after --><?pi after?>\n",
     "[\n{\"volumeId\": \"1\", " NOTHING ",\n{\"volumeId\": \"2\", " NOTHING "\n]\n", 0, NULL,
     "misc around the root; two volumeSets append; non-item children skipped", 0},
    {OPEN "<requestId>r</requestId><volumeSet/>" CLOSE, "[]\n", 0, NULL, "no volumes", 0},
    {"<R/>", "[]\n", 0, NULL, "a lone empty root", 0},
    {VOL("<volumeId>]]&gt; ] ]] &gt; > </volumeId>"),
     J1("{\"volumeId\": \"]]> ] ]] > > \", " NOTHING), 0, NULL, "']' and '>' in text", 0},
    {VOL("<volumeId>\x7f\xc2\x80\xef\xbf\xbd\xf4\x8f\xbf\xbf</volumeId>"),
     J1("{\"volumeId\": \"\x7f\xc2\x80\xef\xbf\xbd\xf4\x8f\xbf\xbf\", " NOTHING), 0, NULL,
     "edge characters: DEL, U+0080, U+FFFD, U+10FFFF", 0},
    {VOL("<volumeId>\"\\\x01</volumeId>"), NULL, HB_EPARSE, "", "a control character", 0},

    /* rejected */
    {"", NULL, HB_ETRUNC, NULL, "an empty document", XML_ERROR_NO_ELEMENTS},
    {OPEN "<volumeSet><item><volumeId>x</volumeId>", NULL, HB_ETRUNC, "", "a truncated document", 0},
    {OPEN "<volumeSet><item><volumeId>x</volum", NULL, HB_ETRUNC, "", "truncated in an end tag", 0},
    {OPEN "<volumeSet><item><volumeId>x&am", NULL, HB_ETRUNC, "", "truncated in a reference", 0},
    {"<R><volumeSet><item><volumeId>x\xe2\x82", NULL, HB_ETRUNC, "", "truncated in UTF-8", 0},
    {"<!DOCTYPE R><R/>", NULL, HB_EPARSE, "DOCTYPE", "a DOCTYPE", 0},
    {DECL "<!DOCTYPE R [<!ENTITY a \"x\">]><R><volumeSet><item><volumeId>&a;</volumeId></item>"
     "</volumeSet></R>", NULL, HB_EPARSE, "DOCTYPE", "a DOCTYPE declaring an entity", 0},
    {DECL "<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;"
     "&lol;&lol;&lol;\"><!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"
     "&lol1;\"><!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">"
     "<!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">"
     "<!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">"
     "<!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">"
     "<!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">"
     "<!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">"
     "<!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">]>"
     "<R><volumeSet><item><volumeId>&lol9;</volumeId></item></volumeSet></R>",
     NULL, HB_EPARSE, "DOCTYPE", "entity amplification (billion laughs)", 0},
    {VOL("<volumeId>&foo;</volumeId>"), NULL, HB_EPARSE, NULL, "an undefined entity",
     XML_ERROR_UNDEFINED_ENTITY},
    {VOL("<volumeId>&amp</volumeId>"), NULL, HB_EPARSE, "", "a reference without ';'", 0},
    {VOL("<volumeId>&#0;</volumeId>"), NULL, HB_EPARSE, "", "a reference to NUL", 0},
    {VOL("<volumeId>&#xD800;</volumeId>"), NULL, HB_EPARSE, "", "a reference to a surrogate", 0},
    {VOL("<volumeId>&#x110000;</volumeId>"), NULL, HB_EPARSE, "", "a reference past U+10FFFF", 0},
    {VOL("<volumeId>x</volumeid>"), NULL, HB_EPARSE, NULL, "a mismatched end tag",
     XML_ERROR_TAG_MISMATCH},
    {VOL("<size>12a</size>"), NULL, HB_ERANGE, "size: not an integer", "a bad integer", 0},
    {VOL("<size></size>"), NULL, HB_ERANGE, "size: not an integer", "an empty integer", 0},
    {VOL("<iops>99999999999999999999</iops>"), NULL, HB_ERANGE, "iops: not an integer",
     "an integer past int64", 0},
    {VOL("<size> 1</size>"), NULL, HB_ERANGE, "size", "an integer with a space (never trimmed)", 0},
    {VOL("<createTime>2012-10-16 20:00:16Z</createTime>"), NULL, HB_ERANGE,
     "createTime: not an RFC 3339 timestamp", "a createTime the RFC 3339 parser rejects", 0},
    {VOL("<attachmentSet><item><attachTime/></item></attachmentSet>"), NULL, HB_ERANGE,
     "attachTime: not an RFC 3339 timestamp", "an empty attachTime", 0},
    {VOL("<encrypted>True</encrypted>"), NULL, HB_ERANGE, "encrypted: not a boolean",
     "a boolean other than true or false", 0},
    {VOL("<volumeId>a]]>b</volumeId>"), NULL, HB_EPARSE, "", "']]>' in character data", 0},
    {VOL("<!-- a -- b -->"), NULL, HB_EPARSE, "", "'--' in a comment", 0},
    {VOL("<volumeId>\xff</volumeId>"), NULL, HB_EPARSE, "", "a byte that is not UTF-8", 0},
    {VOL("<volumeId>\xc0\xaf</volumeId>"), NULL, HB_EPARSE, "", "overlong UTF-8", 0},
    {VOL("<volumeId>\xed\xa0\x80</volumeId>"), NULL, HB_EPARSE, "", "an encoded surrogate", 0},
    {VOL("<volumeId>\xef\xbf\xbe</volumeId>"), NULL, HB_EPARSE, "", "U+FFFE is not a Char", 0},
    {VOL("<volumeId a=\"1\" a=\"2\">x</volumeId>"), NULL, HB_EPARSE, "", "a duplicate attribute", 0},
    {VOL("<volumeId a=\"<\">x</volumeId>"), NULL, HB_EPARSE, "", "'<' in an attribute value", 0},
    {VOL("<volumeId a=1>x</volumeId>"), NULL, HB_EPARSE, "", "an unquoted attribute value", 0},
    {VOL("<volumeId a=\"1\"b=\"2\">x</volumeId>"), NULL, HB_EPARSE, "",
     "attributes without whitespace between", 0},
    {"<R/>junk", NULL, HB_EPARSE, NULL, "text after the root", XML_ERROR_JUNK_AFTER_DOC_ELEMENT},
    {"<R/><R/>", NULL, HB_EPARSE, NULL, "two root elements", XML_ERROR_JUNK_AFTER_DOC_ELEMENT},
    {"x<R/>", NULL, HB_EPARSE, "", "text before the root", 0},
    {"<R/>\n<?xml version=\"1.0\"?>", NULL, HB_EPARSE, "", "an XML declaration not at the start", 0},
    {"<R><1a/></R>", NULL, HB_EPARSE, "", "a name starting with a digit", 0},
    {"<R><![CDATA[x]></R>", NULL, HB_ETRUNC, "", "an unclosed CDATA section", 0},

    /* held to expat's rules (the reviewer's repros: libxml2 took them) */
    {"<?xml version=\"1.0\" encoding=\"UTF-7\"?><R><volumeSet><item><volumeId>a+AGEA-</volumeId>"
     "</item></volumeSet></R>", NULL, HB_EPARSE, NULL,
     "an encoding expat does not know (UTF-7)", XML_ERROR_UNKNOWN_ENCODING},
    {"<?xml version=\"1.0\" encoding=\"windows-1252\"?><R><volumeSet><item><volumeId>\x80"
     "</volumeId></item></volumeSet></R>", NULL, HB_EPARSE, NULL,
     "an encoding expat does not know (windows-1252)", XML_ERROR_UNKNOWN_ENCODING},
    {"<R><\xef\xbb\xbfvolumeId/></R>", NULL, HB_EPARSE, "",
     "U+FEFF starting a name: XML 1.0 fourth edition rules (expat's), not the fifth's", 0},
    {"<R><a\xcd\xbe/></R>", NULL, HB_EPARSE, "",
     "U+037E in a name: XML 1.0 fourth edition rules (expat's), not the fifth's", 0},
    /* XML 1.0 Fifth Edition section 2.8: a 1.x document is read as 1.0 (issue 15) */
    {"<?xml version=\"1.1\"?><R><volumeSet><item><volumeId>a</volumeId></item></volumeSet></R>",
     J1("{\"volumeId\": \"a\", " NOTHING), 0, NULL, "XML 1.1 is read as 1.0 by every strategy", 0},
    {"<?xml version='1.1' encoding='UTF-8'?>\n<R/>", "[]\n", 0, NULL,
     "XML 1.1 with an encoding", 0},
    {"<?xml version=\"1.01\"?><R/>", "[]\n", 0, NULL, "version 1.01: '1.' and digits", 0},
        /* hotbench's version rule (expat 2.5 passes both to the XML declaration handler), or expat's
     * own refusal of the declaration (newer expat checks the version itself) */
    {"<?xml version=\"2.0\"?><R/>", NULL, HB_EPARSE, "version other than 1.x", "version 2.0",
     XML_ERROR_XML_DECL},
    {"<?xml version=\"1.\"?><R/>", NULL, HB_EPARSE, "version other than 1.x",
     "version '1.': no digit after the dot", XML_ERROR_XML_DECL},
    {"<?xml version=\"1.1\"?><R><a\xcd\xbe/></R>", NULL, HB_EPARSE, "",
     "XML 1.1 is read by 1.0 fourth edition name rules too (libxml2 after its declaration)", 0},

    /* a bad value is quoted on one line: escaped, cut at a character boundary */
    {VOL("<size>1\n2</size>"), NULL, HB_ERANGE, "size: not an integer: '1\\n2'",
     "an LF in a bad value is escaped", 0},
    {VOL("<iops>1&#13;2&#9;3\\'</iops>"), NULL, HB_ERANGE, "iops: not an integer: '1\\r2\\t3\\\\\\''",
     "CR, tab, backslash and quote in a bad value are escaped", 0},
    {VOL("<throughput>\x7f</throughput>"), NULL, HB_ERANGE, "throughput: not an integer: '\\x7f'",
     "DEL in a bad value as \\x7f", 0},
    {VOL("<size>111111111111111111111111111111111111111\xc3\xa9</size>"), NULL, HB_ERANGE,
     "size: not an integer: '111111111111111111111111111111111111111...'",
     "a 40-byte cut never splits a UTF-8 character", 0},
    {VOL("<size>11111111111111111111111111111111111111\xc3\xa9x</size>"), NULL, HB_ERANGE,
     "size: not an integer: '11111111111111111111111111111111111111\xc3\xa9...'",
     "a character ending at the cut is kept whole", 0},
    {VOL("<createTime>2012-10-16T20:00:16\n</createTime>"), NULL, HB_ERANGE,
     "'2012-10-16T20:00:16\\n'", "a bad timestamp is escaped too", 0},
};
/* clang-format on */

#define NROWS (sizeof rows / sizeof rows[0])

static const size_t pieces[] = {0, 1, 7, 4096};

/* 1 when s is valid UTF-8 without control characters: an error reason fit for one line. */
static int one_line_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        unsigned c = *u;
        size_t k = c < 0x80                 ? 1
                   : c >= 0xc2 && c <= 0xdf ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        if (k == 0 || c < 0x20 || c == 0x7f)
            return 0;
        for (size_t j = 1; j < k; j++)
            if ((u[j] & 0xc0) != 0x80)
                return 0;
        u += k;
    }
    return 1;
}

/* Decodes doc with s fed as piece; checks the outcome against json (or a rejection). */
static void check_one(const hb_vol_strategy *s, const uint8_t *doc, size_t len, size_t piece,
                      const char *json, int want_rc, const char *why_substr, int xml_error,
                      const char *why)
{
    hb_volumes v;
    hb_vol_error err;
    const uint8_t *d = hb_guard_place(doc, len);
    int rc = hb_volumes_decode(s, d, len, piece, &v, &err);
    if (json) {
        if (rc != HB_OK)
            fail_msg("%s: %s (piece %zu) rejects: %s at line %llu, column %llu", why, s->name,
                     piece, err.reason, (unsigned long long)err.line,
                     (unsigned long long)err.column);
        char *got = to_json(&v);
        if (strcmp(got, json) != 0)
            fail_msg("%s: %s (piece %zu) gives\n%s\nexpected\n%s", why, s->name, piece, got, json);
        free(got);
    } else {
        if (rc == HB_OK)
            fail_msg("%s: %s (piece %zu) accepts it", why, s->name, piece);
        assert_non_null(err.reason);
        if (!one_line_utf8(err.reason))
            fail_msg("%s: %s (piece %zu): the reason is not one line of UTF-8: '%s'", why, s->name,
                     piece, err.reason);
        int reference = strcmp(s->name, HB_VOL_REFERENCE) == 0;
        if ((reference || strcmp(s->name, "fast") == 0) && want_rc && rc != want_rc)
            fail_msg("%s: %s (piece %zu) returns %d (%s), expected %d", why, s->name, piece, rc,
                     err.reason, want_rc);
        if (reference && !hb_vol_reason_is(&err, why_substr, xml_error))
            fail_msg("%s: %s says '%s' (library code %d), expected '%s' or expat's code %d", why,
                     s->name, err.reason, err.lib_code, why_substr ? why_substr : "-", xml_error);
    }
    hb_volumes_free(&v);
}

/* Every decoder, whole; the streaming ones also in pieces. */
static void check_all(const uint8_t *doc, size_t len, const char *json, int want_rc,
                      const char *why_substr, int xml_error, const char *why)
{
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        if (s->output != HB_VOL_OUT_VOLUMES)
            continue;
        for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
            if (pieces[i] == 0 || s->streaming)
                check_one(s, doc, len, pieces[i], json, want_rc, why_substr, xml_error, why);
    }
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++)
        check_all((const uint8_t *)rows[i].doc, strlen(rows[i].doc), rows[i].json, rows[i].rc,
                  rows[i].why_substr, rows[i].xml_error, rows[i].why);
}

/* Rows holding NUL bytes (explicit lengths): every strategy rejects them, as expat does. */
typedef struct bin_row {
    const char *doc;
    size_t len;
    int rc; /* the reference's code */
    const char *why;
} bin_row;
#define BIN(s) s, sizeof(s) - 1

static const bin_row bin_rows[] = {
    {BIN("<R><volumeSet><item><volumeId>a</volumeId></item></volumeSet></R>\0<garbage"), HB_EPARSE,
     "a NUL after the root, then garbage (libxml2 stopped at the NUL)"},
    {BIN("<R/>\n\0"), HB_EPARSE, "a NUL in the whitespace after the root"},
    {BIN("<R><volumeSet><item><volumeId>a\0b</volumeId></item></volumeSet></R>"), HB_EPARSE,
     "a NUL in text"},
    {BIN("<R a=\"\0\"/>"), HB_EPARSE, "a NUL in an attribute value"},
    {BIN("\0<R/>"), HB_EPARSE, "a NUL before the root (UTF-16BE without a byte order mark)"},
    {BIN("\xff\xfe<\0R\0/\0>\0\0\0"), HB_EPARSE, "a U+0000 code unit after the root in UTF-16LE"},
    {BIN("\xfe\xff\0<\0R\0>\0\0\0<\0/\0R\0>"), HB_EPARSE, "a U+0000 code unit in UTF-16BE text"},
};

static void test_nul_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bin_rows / sizeof bin_rows[0]; i++)
        check_all((const uint8_t *)bin_rows[i].doc, bin_rows[i].len, NULL, bin_rows[i].rc, "", 0,
                  bin_rows[i].why);
}

/* An ASCII document re-encoded as UTF-16 (be: big-endian) with or without a byte order mark
 * (malloc'd, *len bytes). */
static uint8_t *to_utf16(const char *ascii, int be, int bom, size_t *len)
{
    size_t n = strlen(ascii), o = 0;
    uint8_t *d = malloc(2 * n + 2);
    assert_non_null(d);
    if (bom) {
        d[o++] = be ? 0xfe : 0xff;
        d[o++] = be ? 0xff : 0xfe;
    }
    for (size_t i = 0; i < n; i++) {
        d[o++] = be ? 0 : (uint8_t)ascii[i];
        d[o++] = be ? (uint8_t)ascii[i] : 0;
    }
    *len = o;
    return d;
}

/* Encodings expat knows but fast does not support: every other decoder gives the JSON (the
 * declared name in any case; libxml2-dom must not refuse them), fast refuses with
 * "unsupported: ...". UTF-16 without a byte order mark is rejected by all (issue 15; rows in
 * tests/test_volumes_utf16.c). */
static void check_other_encoding(const uint8_t *doc, size_t len, const char *json, const char *why)
{
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        if (s->output != HB_VOL_OUT_VOLUMES)
            continue;
        if (strcmp(s->name, "fast") == 0) {
            hb_volumes v;
            hb_vol_error err;
            int rc = hb_volumes_decode(s, hb_guard_place(doc, len), len, 0, &v, &err);
            if (rc == HB_OK || strncmp(err.reason, "unsupported: ", 13) != 0)
                fail_msg("%s: fast gives %d (%s), expected an 'unsupported' refusal", why, rc,
                         rc == HB_OK ? "accepted" : err.reason);
            hb_volumes_free(&v);
            continue;
        }
        for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
            if (pieces[i] == 0 || s->streaming)
                check_one(s, doc, len, pieces[i], json, 0, NULL, 0, why);
    }
}

static void test_other_encodings(void **state)
{
    (void)state;
    static const char *const decls[] = {"ISO-8859-1", "iso-8859-1", "US-ASCII", "us-ascii"};
    static const char latin1_json[] = J1("{\"volumeId\": \"caf\xc3\xa9\", " NOTHING);
    static const char ascii_json[] = J1("{\"volumeId\": \"cafe\", " NOTHING);
    char doc[256];
    for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++) {
        int latin1 = decls[i][0] == 'I' || decls[i][0] == 'i';
        int n = snprintf(doc, sizeof doc,
                         "<?xml version=\"1.0\" encoding=\"%s\"?><R><volumeSet><item><volumeId>"
                         "caf%s</volumeId></item></volumeSet></R>",
                         decls[i], latin1 ? "\xe9" : "e");
        check_other_encoding((const uint8_t *)doc, (size_t)n, latin1 ? latin1_json : ascii_json,
                             decls[i]);
    }
    static const char body[] =
        "<R><volumeSet><item><volumeId>cafe</volumeId></item></volumeSet></R>";
    static const char decl16[] =
        "<?xml version=\"1.0\" encoding=\"utf-16\"?>"
        "<R><volumeSet><item><volumeId>cafe</volumeId></item></volumeSet></R>";
    static const struct {
        const char *ascii;
        int be, bom;
        const char *why;
    } u16[] = {
        {body, 0, 1, "UTF-16LE with a byte order mark"},
        {body, 1, 1, "UTF-16BE with a byte order mark"},
        {decl16, 0, 1, "UTF-16LE, declared"},
        {decl16, 1, 1, "UTF-16BE, declared"},
    };
    for (size_t i = 0; i < sizeof u16 / sizeof u16[0]; i++) {
        size_t len;
        uint8_t *d = to_utf16(u16[i].ascii, u16[i].be, u16[i].bom, &len);
        check_other_encoding(d, len, ascii_json, u16[i].why);
        free(d);
    }
}

/* A document over 4 GiB whose first 70 bytes are a complete response and the rest NUL bytes: no
 * strategy may decode only the prefix (an int-truncated length: 2^32 + 70 as int is 70). The
 * expat strategies read it all (and fail at the first NUL), libxml2-dom refuses the size. */
static void test_over_4gib(void **state)
{
    (void)state;
    size_t len = ((size_t)1 << 32) + 70;
    uint8_t *d =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (d == MAP_FAILED) {
        skip(); /* no address space for it */
        return;
    }
    static const char doc[] = "<R><volumeSet><item><volumeId>prefix</volumeId></item></volumeSet>"
                              "</R>";
    assert_true(sizeof doc - 1 <= 70);
    memcpy(d, doc, sizeof doc - 1);
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        if (s->output == HB_VOL_OUT_LT)
            continue; /* memchr-scan would read all 4 GiB: nothing to parse */
        hb_volumes v;
        hb_vol_error err;
        int rc = hb_volumes_decode(s, d, len, 0, &v, &err);
        if (rc == HB_OK)
            fail_msg("%s accepts a 4 GiB document that is NUL after its first 70 bytes", s->name);
        if (strcmp(s->name, "libxml2-dom") == 0)
            assert_int_equal(rc, HB_ELIMIT);
        else
            assert_int_equal(rc, HB_EPARSE);
        hb_volumes_free(&v);
    }
    munmap(d, len);
}

/* Error columns count characters, not bytes, in every strategy (expat's way); a byte order mark
 * is one character to expat and fast (libxml2 leaves it out). */
static void test_error_columns(void **state)
{
    (void)state;
    static const struct {
        const char *doc;
        uint64_t line, column;
        int with_libxml2;
    } cols[] = {
        {"<R>\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x9a\x80<1/></R>", 1, 8, 1},
        {"<R>\n\xc3\xa9\xc3\xa9<1/></R>", 2, 4, 1},
        {"\xef\xbb\xbf<R><1/></R>", 1, 6, 0},
    };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        for (size_t k = 0; k < hb_vol_strategy_count; k++) {
            const hb_vol_strategy *s = &hb_vol_strategies[k];
            if (s->output != HB_VOL_OUT_VOLUMES ||
                (!cols[i].with_libxml2 && strcmp(s->name, "libxml2-dom") == 0))
                continue;
            hb_volumes v;
            hb_vol_error err;
            size_t len = strlen(cols[i].doc);
            assert_int_equal(hb_volumes_decode(s, hb_guard_place(cols[i].doc, len), len, 0, &v, &err),
                             HB_EPARSE);
            if (err.line != cols[i].line || err.column != cols[i].column)
                fail_msg("row %zu: %s says line %llu, column %llu; expected %llu, %llu", i, s->name,
                         (unsigned long long)err.line, (unsigned long long)err.column,
                         (unsigned long long)cols[i].line, (unsigned long long)cols[i].column);
            hb_volumes_free(&v);
        }
    }
}

/* A document with a 70 KB tag value (references spread through it) and one with unknown
 * elements nested 200 deep (libxml2's default limit is 256) inside a volume. */
static void test_big_value_and_deep_nesting(void **state)
{
    (void)state;
    size_t n = 70000;
    char *doc = malloc(n * 2 + 1024), *want = malloc(n + 1024);
    assert_non_null(doc);
    assert_non_null(want);
    char *p = doc, *w = want;
    p += sprintf(p, "%s", OPEN "<volumeSet><item><tagSet><item><key>big</key><value>");
    w += sprintf(w, "[\n{\"attachments\": [], \"tags\": [{\"key\": \"big\", \"value\": \"");
    for (size_t i = 0; i < n; i++) {
        if (i % 1000 == 999) {
            p += sprintf(p, "&amp;");
            *w++ = '&';
        } else {
            *p++ = (char)('a' + i % 26);
            *w++ = (char)('a' + i % 26);
        }
    }
    p += sprintf(p, "</value></item></tagSet></item></volumeSet>" CLOSE);
    sprintf(w, "\"}]}\n]\n");
    check_all((const uint8_t *)doc, (size_t)(p - doc), want, 0, NULL, 0, "a 70 KB value");

    p = doc;
    p += sprintf(p, "%s", OPEN "<volumeSet><item><size>1</size>");
    for (int d = 0; d < 200; d++)
        p += sprintf(p, "<x%d a=\"%d\">t", d % 7, d);
    p += sprintf(p, "<volumeId>deep</volumeId><item><key>k</key></item>");
    for (int d = 199; d >= 0; d--)
        p += sprintf(p, "</x%d>", d % 7);
    p += sprintf(p, "<volumeId>v</volumeId></item></volumeSet>" CLOSE);
    check_all((const uint8_t *)doc, (size_t)(p - doc),
              J1("{\"volumeId\": \"v\", \"size\": 1, " NOTHING), 0, NULL, 0,
              "deep unknown nesting is skipped");
    free(doc);
    free(want);
}

/* Nesting 5000 deep: the streaming decoders and fast skip it; expat-tree (recursive second pass)
 * refuses it past its documented limit and libxml2 past its default depth limit, with an error,
 * never a crash or a wrong answer. */
static void test_very_deep(void **state)
{
    (void)state;
    int depth = 5000;
    char *doc = malloc((size_t)depth * 10 + 256), *p = doc;
    assert_non_null(doc);
    p += sprintf(p, "<R><volumeSet><item>");
    for (int d = 0; d < depth; d++)
        p += sprintf(p, "<x>");
    for (int d = 0; d < depth; d++)
        p += sprintf(p, "</x>");
    p += sprintf(p, "<volumeId>v</volumeId></item></volumeSet></R>");
    size_t len = (size_t)(p - doc);
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        hb_volumes v;
        hb_vol_error err;
        int rc = hb_volumes_decode(s, hb_guard_place(doc, len), len, 0, &v, &err);
        if (strcmp(s->name, "expat-tree") == 0) {
            assert_int_equal(rc, HB_ELIMIT);
        } else if (strcmp(s->name, "libxml2-dom") == 0) {
            assert_int_not_equal(rc, HB_OK);
        } else {
            assert_int_equal(rc, HB_OK);
            if (s->output == HB_VOL_OUT_VOLUMES) {
                assert_int_equal(v.nvolumes, 1);
                assert_int_equal(v.volumes[0]->volume_id.len, 1);
            }
        }
        hb_volumes_free(&v);
    }
    free(doc);
}

/* ---- files -------------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *buf = NULL;
    size_t cap = 0, n = 0, r;
    do {
        if (cap - n < 65536) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
        r = fread(buf + n, 1, cap - n, f);
        n += r;
    } while (r > 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The botocore fixture (real EC2 output) decodes to its golden JSON, by every strategy. */
static void test_botocore_fixture(void **state)
{
    (void)state;
    size_t len, jlen;
    char *doc = read_file(HB_FIXTURES "/botocore-ec2-describe-volumes.xml", &len);
    char *json = read_file(HB_GOLDEN "/volumes-botocore.json", &jlen);
    check_all((const uint8_t *)doc, len, json, 0, NULL, 0, "botocore fixture");
    free(doc);
    free(json);
}

/* A small generated response is byte for byte the golden XML and decodes to the golden JSON. */
static void test_generated_golden(void **state)
{
    (void)state;
    hb_volumes_params p;
    hb_volumes_params_default(&p);
    p.volumes = 4;
    p.tags = 3;
    p.next_token = 1;
    uint8_t *doc;
    size_t len, glen, jlen;
    assert_int_equal(hb_volumes_generate(&p, &doc, &len, NULL), HB_OK);
    char *golden = read_file(HB_GOLDEN "/volumes-gen-4x3.xml", &glen);
    if (glen != len || memcmp(golden, doc, len) != 0)
        fail_msg("the generator's 4 x 3 response differs from tests/golden/volumes-gen-4x3.xml");
    char *json = read_file(HB_GOLDEN "/volumes-gen-4x3.json", &jlen);
    check_all(doc, len, json, 0, NULL, 0, "generated 4 x 3");
    free(doc);
    free(golden);
    free(json);
}

/* ---- every strategy against the reference on random documents --------------------------- */

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(hb_splitmix64(s) % n);
}

/* Checks every strategy (decoders, and the baselines' counts) against the reference. */
static void against_reference(const uint8_t *doc, size_t len, const char *what)
{
    hb_volumes ref, v;
    hb_vol_error err;
    const uint8_t *d = hb_guard_place(doc, len);
    int rc = hb_volumes_decode(hb_vol_find(HB_VOL_REFERENCE), d, len, 0, &ref, &err);
    if (rc != HB_OK)
        fail_msg("%s: the reference rejects it: %s at line %llu, column %llu\n%.*s", what,
                 err.reason, (unsigned long long)err.line, (unsigned long long)err.column,
                 (int)(len > 2000 ? 2000 : len), (const char *)doc);
    uint64_t digest = hb_volumes_digest(&ref);
    uint64_t lt = 0;
    for (size_t i = 0; i < len; i++)
        lt += doc[i] == '<';
    char msg[256];
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
            size_t piece = pieces[i];
            if (piece == 1 && len > 20000)
                continue; /* 1-byte feeding is covered by the table; keep the test fast */
            if (piece && !s->streaming)
                continue;
            rc = hb_volumes_decode(s, d, len, piece, &v, &err);
            if (rc != HB_OK)
                fail_msg("%s: %s (piece %zu) rejects it: %s at line %llu", what, s->name, piece,
                         err.reason, (unsigned long long)err.line);
            if (s->output == HB_VOL_OUT_LT)
                assert_int_equal(v.count, lt);
            else if (s->output == HB_VOL_OUT_ELEMENTS)
                assert_int_equal(v.count, ref.elements);
            else if (hb_volumes_compare(&v, &ref, msg, sizeof msg) != 0 ||
                     hb_volumes_digest(&v) != digest || v.elements != ref.elements)
                fail_msg("%s: %s (piece %zu) differs from the reference: %s", what, s->name, piece,
                         msg);
            hb_volumes_free(&v);
        }
    }
    hb_volumes_free(&ref);
}

/* fast classifies text 64 bytes at a time (vol_fast.c, fx_window): a byte needing attention -
 * a reference, CR, ']', a non-ASCII character, a comment, a bad character - at every offset
 * around the first window boundaries, in a leaf and between elements, gives the reference's
 * answer; a bad character is rejected at the reference's line and column. */
static void test_window_boundaries(void **state)
{
    (void)state;
    static const char *const ins[] = {"&amp;", "\r\n", "]", "\xc3\xa9", "<!--c-->", "", "&#x41;"};
    char doc[512];
    for (int k = 0; k < 140; k++) {
        for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
            int n = snprintf(doc, sizeof doc,
                             "<r><volumeSet><item><volumeId>%*s%sz</volumeId></item>%*s%s"
                             "</volumeSet></r>",
                             k, "", ins[i], k % 70, "", i == 4 ? ins[i] : "");
            against_reference((const uint8_t *)doc, (size_t)n, "a byte at a window boundary");
        }
        for (int where = 0; where < 2; where++) {
            int n = snprintf(doc, sizeof doc,
                             "<r><volumeSet><item>%*s%s<volumeId>%*s%sz</volumeId></item>"
                             "</volumeSet></r>",
                             where ? 0 : k, "", where ? "" : "\x01", where ? k : 0, "",
                             where ? "\x01" : "");
            hb_volumes ref, v;
            hb_vol_error rerr, ferr;
            const uint8_t *d = hb_guard_place((const uint8_t *)doc, (size_t)n);
            int rrc =
                hb_volumes_decode(hb_vol_find(HB_VOL_REFERENCE), d, (size_t)n, 0, &ref, &rerr);
            int frc = hb_volumes_decode(hb_vol_find("fast"), d, (size_t)n, 0, &v, &ferr);
            assert_int_equal(rrc, HB_EPARSE);
            assert_int_equal(frc, HB_EPARSE);
            assert_int_equal(ferr.line, rerr.line);
            assert_int_equal(ferr.column, rerr.column);
            hb_volumes_free(&ref);
            hb_volumes_free(&v);
        }
    }
}

/* fast's window classifier, SSE2 and (where the CPU has it) AVX2, against the definition: every
 * byte value at every position of a window, among neighbours that need nothing or all need
 * attention. */
static void test_window_mask(void **state)
{
    (void)state;
    uint8_t w[64];
    for (int isa = 0; isa < 2; isa++) {
        uint64_t m;
        if (hb_vol_fast_window_mask(w, isa, &m) != HB_OK) {
            assert_int_equal(isa, 1); /* no AVX2 here: the SSE2 path is what fast runs */
            continue;
        }
        for (int fill = 0; fill < 2; fill++) {
            for (int pos = 0; pos < 64; pos++) {
                for (int c = 0; c < 256; c++) {
                    memset(w, fill ? '<' : 'a', sizeof w);
                    w[pos] = (uint8_t)c;
                    int special = c == '<' || c == '&' || c == ']' || c >= 0x80 ||
                                  (c < 0x20 && c != '\t' && c != '\n');
                    uint64_t want = fill ? ~(uint64_t)0 : 0;
                    want = special ? want | (uint64_t)1 << pos : want & ~((uint64_t)1 << pos);
                    assert_int_equal(hb_vol_fast_window_mask(w, isa, &m), HB_OK);
                    if (m != want)
                        fail_msg("isa %d, byte 0x%02x at %d among '%c': mask %016llx, want "
                                 "%016llx", isa, c, pos, fill ? '<' : 'a', (unsigned long long)m,
                                 (unsigned long long)want);
                }
            }
        }
    }
    uint64_t m;
    assert_int_equal(hb_vol_fast_window_mask(w, 2, &m), HB_EINVAL);
}

static void test_random_generated(void **state)
{
    (void)state;
    uint64_t rng = 42;
    for (int i = 0; i < 12; i++) {
        hb_volumes_params p;
        hb_volumes_params_default(&p);
        p.volumes = rng_below(&rng, 12);
        p.tags = rng_below(&rng, 30);
        p.compact = (int)rng_below(&rng, 2);
        p.next_token = (int)rng_below(&rng, 2);
        p.seed = hb_splitmix64(&rng);
        uint8_t *doc;
        size_t len;
        hb_volumes_info info;
        assert_int_equal(hb_volumes_generate(&p, &doc, &len, &info), HB_OK);
        char what[96];
        snprintf(what, sizeof what, "generated %u x %u seed %llu", p.volumes, p.tags,
                 (unsigned long long)p.seed);
        against_reference(doc, len, what);
        free(doc);
    }
}

/* A random "messy" document: what the contract allows, in random places. */
typedef struct mbuf {
    char *p;
    size_t len, cap;
    uint64_t rng;
} mbuf;

static void m_puts(mbuf *m, const char *s)
{
    size_t n = strlen(s);
    if (m->cap - m->len < n + 1) {
        while (m->cap - m->len < n + 1)
            m->cap = m->cap ? m->cap * 2 : 4096;
        m->p = realloc(m->p, m->cap);
        assert_non_null(m->p);
    }
    memcpy(m->p + m->len, s, n + 1);
    m->len += n;
}

/* Whitespace, a comment or a PI between members, sometimes. */
static void m_gap(mbuf *m)
{
    static const char *const gaps[] = {"",      "\n  ",          "\r\n\t", "<!-- c -->",
                                       "<?p?>", "<!--x-y-->\n ", " ",      ""};
    m_puts(m, gaps[rng_below(&m->rng, 8)]);
}

/* An element name with a random prefix. */
static void m_name(mbuf *m, const char *name)
{
    static const char *const prefixes[] = {"", "", "", "ec2:", "a:"};
    m_puts(m, prefixes[rng_below(&m->rng, 5)]);
    m_puts(m, name);
}

/* A text value with random pieces that need decoding. */
static void m_text(mbuf *m)
{
    static const char *const parts[] = {
        "abc",   "&amp;",        "&lt;",     "&#x20AC;", "<![CDATA[<&>]]>",
        " ",     "\r\n",         "\xc3\xa9", "<!--n-->", "\xf0\x9f\x9a\x80",
        "&#65;", "&quot;&apos;", "x]y",      "<?pi z?>", "\t",
        "&gt;",
    };
    uint32_t n = rng_below(&m->rng, 5);
    for (uint32_t i = 0; i < n; i++)
        m_puts(m, parts[rng_below(&m->rng, sizeof parts / sizeof parts[0])]);
}

static void m_leaf(mbuf *m, const char *name, const char *value)
{
    char open[64];
    m_gap(m);
    size_t start = m->len;
    m_puts(m, "<");
    m_name(m, name);
    size_t nend = m->len;
    if (rng_below(&m->rng, 4) == 0)
        m_puts(m, " attr=\"v&amp;\" b='2'");
    if (!value && rng_below(&m->rng, 6) == 0) {
        m_puts(m, "/>");
        return;
    }
    m_puts(m, ">");
    snprintf(open, sizeof open, "%.*s", (int)(nend - start - 1), m->p + start + 1);
    if (value)
        m_puts(m, value);
    else
        m_text(m);
    m_puts(m, "</");
    m_puts(m, open);
    m_puts(m, rng_below(&m->rng, 5) == 0 ? " >" : ">");
}

static void m_unknown(mbuf *m)
{
    m_gap(m);
    m_puts(m, "<unknown k=\"1\"><volumeId>no</volumeId><item><key>no</key></item>t</unknown>");
}

static void m_volume(mbuf *m)
{
    static const char *const strs[] = {"volumeId", "snapshotId", "availabilityZone",
                                       "status",   "createTime", "volumeType"};
    static const char *const ints[] = {"size", "iops", "throughput"};
    static const char *const bools[] = {"encrypted", "multiAttachEnabled"};
    m_gap(m);
    m_puts(m, "<item>");
    uint32_t members = 4 + rng_below(&m->rng, 10);
    for (uint32_t i = 0; i < members; i++) {
        uint32_t r = rng_below(&m->rng, 14);
        char num[32];
        if (r == 4) {
            static const char *const times[] = {
                "2012-10-16T20:00:16.000Z", "2021-03-04T05:06:07.123456789+05:30",
                "1969-12-31T23:59:59.5z", "2023-02-28t23:59:59-00:00"};
            m_leaf(m, strs[r], times[rng_below(&m->rng, 4)]);
        } else if (r < 6) {
            m_leaf(m, strs[r], NULL);
        } else if (r < 8) {
            snprintf(num, sizeof num, "%d", (int)rng_below(&m->rng, 20000) - 100);
            m_leaf(m, ints[rng_below(&m->rng, 3)], num);
        } else if (r < 9) {
            uint32_t value = rng_below(&m->rng, 2); /* then the name: one order everywhere */
            m_leaf(m, bools[rng_below(&m->rng, 2)], value ? "true" : "false");
        } else if (r < 10) {
            m_unknown(m);
        } else if (r < 12) {
            m_gap(m);
            m_puts(m, "<tagSet>");
            uint32_t nt = rng_below(&m->rng, 5);
            for (uint32_t t = 0; t < nt; t++) {
                m_gap(m);
                m_puts(m, "<item>");
                if (rng_below(&m->rng, 2)) {
                    m_leaf(m, "value", NULL);
                    m_leaf(m, "key", NULL);
                } else {
                    m_leaf(m, "key", NULL);
                    m_leaf(m, "value", NULL);
                }
                m_gap(m);
                m_puts(m, "</item>");
            }
            m_puts(m, "</tagSet>");
        } else {
            m_gap(m);
            m_puts(m, "<attachmentSet><item>");
            m_leaf(m, "instanceId", NULL);
            m_leaf(m, "device", NULL);
            m_leaf(m, "deleteOnTermination", rng_below(&m->rng, 2) ? "true" : "false");
            m_puts(m, "</item></attachmentSet>");
        }
    }
    m_gap(m);
    m_puts(m, "</item>");
}

static void make_messy(mbuf *m, uint64_t seed)
{
    m->len = 0;
    m->rng = seed;
    if (rng_below(&m->rng, 4) == 0)
        m_puts(m, "\xef\xbb\xbf");
    if (rng_below(&m->rng, 2))
        m_puts(m, DECL);
    m_gap(m);
    m_puts(m, "<ec2:DescribeVolumesResponse xmlns:ec2=\"urn:ec2\" xmlns=\"urn:x\">");
    m_leaf(m, "requestId", NULL);
    m_gap(m);
    m_puts(m, "<volumeSet>");
    uint32_t n = rng_below(&m->rng, 6);
    for (uint32_t i = 0; i < n; i++) {
        m_volume(m);
        if (rng_below(&m->rng, 8) == 0)
            m_unknown(m);
    }
    m_gap(m);
    m_puts(m, "</volumeSet>");
    if (rng_below(&m->rng, 2))
        m_leaf(m, "nextToken", NULL);
    m_gap(m);
    m_puts(m, "</ec2:DescribeVolumesResponse>");
    m_gap(m);
}

static void test_random_messy(void **state)
{
    (void)state;
    mbuf m = {NULL, 0, 0, 0};
    const char *env = getenv("HB_MESSY"); /* more seeds, for a longer search by hand */
    uint64_t seeds = env ? strtoull(env, NULL, 10) : 150;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        make_messy(&m, seed);
        char what[64];
        snprintf(what, sizeof what, "messy document, seed %llu", (unsigned long long)seed);
        against_reference((const uint8_t *)m.p, m.len, what);
    }
    free(m.p);
}

/* Writes a failing document to test_volumes_failure.xml (in the working folder) for a look. */
static void dump_doc(const char *doc, size_t len)
{
    FILE *f = fopen("test_volumes_failure.xml", "wb");
    if (f) {
        fwrite(doc, 1, len, f);
        fclose(f);
    }
}

/* One decoder against the reference's outcome on a mutated document: it must reject whatever the
 * reference rejects and decode the rest exactly as the reference does; only fast may refuse what
 * the reference accepts, and only as "unsupported: ..." (its documented subset). Returns 1 when
 * it accepted. */
static int mutation_check(const hb_vol_strategy *s, size_t piece, const uint8_t *d, size_t len,
                          int ra, const hb_volumes *a, const hb_vol_error *ea)
{
    hb_volumes b;
    hb_vol_error eb;
    char msg[256];
    int rb = hb_volumes_decode(s, d, len, piece, &b, &eb);
    int fast = strcmp(s->name, "fast") == 0;
    if ((ra != HB_OK) != (rb != HB_OK))
        dump_doc((const char *)d, len);
    if (ra != HB_OK && rb == HB_OK)
        fail_msg("%s (piece %zu) accepts what the reference rejects (%s at line %llu, column "
                 "%llu):\n%.*s",
                 s->name, piece, ea->reason, (unsigned long long)ea->line,
                 (unsigned long long)ea->column, (int)len, (const char *)d);
    if (ra == HB_OK && rb == HB_OK && hb_volumes_compare(a, &b, msg, sizeof msg) != 0) {
        dump_doc((const char *)d, len);
        fail_msg("%s (piece %zu) decodes differently: %s\n%.*s", s->name, piece, msg, (int)len,
                 (const char *)d);
    }
    if (ra == HB_OK && rb != HB_OK && !(fast && strncmp(eb.reason, "unsupported", 11) == 0))
        fail_msg("%s (piece %zu) rejects what the reference accepts (%s at line %llu, column "
                 "%llu):\n%.*s",
                 s->name, piece, eb.reason, (unsigned long long)eb.line,
                 (unsigned long long)eb.column, (int)len, (const char *)d);
    if (rb != HB_OK && !one_line_utf8(eb.reason))
        fail_msg("%s: the reason is not one line of UTF-8: '%s'", s->name, eb.reason);
    hb_volumes_free(&b);
    return rb == HB_OK;
}

/* No decoder accepts what the reference rejects or decodes differently: random byte mutations of
 * messy documents (deletions, insertions of markup characters and NUL, replacements), each
 * decoded by every decoder whole and by the streaming ones also in 7-byte pieces. */
static void test_mutations(void **state)
{
    (void)state;
    static const char inserts[] = "<>&;/!?-[]]\"'=:# \r\n\x80\xc3\xff\x01x\0";
    const hb_vol_strategy *ref = hb_vol_find(HB_VOL_REFERENCE);
    mbuf m = {NULL, 0, 0, 0};
    uint64_t rng = 7;
    size_t accepted = 0, rejected = 0;
    char *mut = NULL;
    /* HB_MUTATIONS=N (and HB_MUTATION_SEED) run more rounds, for a longer search by hand */
    const char *env = getenv("HB_MUTATIONS");
    int rounds = env ? atoi(env) : 3000;
    env = getenv("HB_MUTATION_SEED");
    if (env)
        rng = strtoull(env, NULL, 10);
    for (int round = 0; round < rounds; round++) {
        make_messy(&m, 1000 + (uint64_t)round % 40 + (rng & 0xffff) * 64);
        mut = realloc(mut, m.len + 8);
        assert_non_null(mut);
        memcpy(mut, m.p, m.len);
        size_t len = m.len;
        uint32_t edits = 1 + rng_below(&rng, 2);
        for (uint32_t e = 0; e < edits && len > 0; e++) {
            size_t at = rng_below(&rng, (uint32_t)len);
            uint32_t op = rng_below(&rng, 3);
            char c = inserts[rng_below(&rng, sizeof inserts - 1)];
            if (op == 0) {
                memmove(mut + at, mut + at + 1, len - at - 1);
                len--;
            } else if (op == 1) {
                memmove(mut + at + 1, mut + at, len - at);
                mut[at] = c;
                len++;
            } else {
                mut[at] = c;
            }
        }
        hb_volumes a;
        hb_vol_error ea;
        const uint8_t *d = hb_guard_place(mut, len);
        int ra = hb_volumes_decode(ref, d, len, 0, &a, &ea);
        for (size_t k = 0; k < hb_vol_strategy_count; k++) {
            const hb_vol_strategy *s = &hb_vol_strategies[k];
            if (s->output != HB_VOL_OUT_VOLUMES)
                continue;
            if (s != ref)
                mutation_check(s, 0, d, len, ra, &a, &ea);
            if (s->streaming)
                mutation_check(s, 7, d, len, ra, &a, &ea);
        }
        accepted += ra == HB_OK;
        rejected += ra != HB_OK;
        hb_volumes_free(&a);
    }
    free(mut);
    free(m.p);
    /* the mutations must exercise both sides */
    assert_true(accepted > 100);
    assert_true(rejected > 100);
}

/* ---- fast's expected-member path (vol_fast.c, fx_members) ---------------------------------- */

/* A response in the order the service sends it (hotbench-gen's order), one tag a row: two volumes,
 * the first attached with two tags (one value longer than a window), the second with throughput,
 * an empty snapshotId and an empty attachmentSet; then a nextToken. fast reads such a document
 * by comparing each tag with the one it expects next; each row perturbed in turn must still give
 * the reference's answer or rejection. */
static const char *const order_rows[] = {
    "<DescribeVolumesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">",
    "<requestId>req-1</requestId>",
    "<volumeSet>",
    "<item>",
    "<volumeId>vol-1</volumeId>",
    "<size>30</size>",
    "<snapshotId>snap-1</snapshotId>",
    "<availabilityZone>us-east-1d</availabilityZone>",
    "<status>in-use</status>",
    "<createTime>2022-06-14T20:37:07.881Z</createTime>",
    "<attachmentSet>",
    "<item>",
    "<volumeId>vol-1</volumeId>",
    "<instanceId>i-1</instanceId>",
    "<device>/dev/sdf</device>",
    "<status>attached</status>",
    "<attachTime>2022-06-14T20:40:00.000Z</attachTime>",
    "<deleteOnTermination>true</deleteOnTermination>",
    "</item>",
    "</attachmentSet>",
    "<volumeType>gp2</volumeType>",
    "<iops>100</iops>",
    "<encrypted>false</encrypted>",
    "<multiAttachEnabled>false</multiAttachEnabled>",
    "<tagSet>",
    "<item>",
    "<key>Name</key>",
    "<value>a value longer than one 64-byte window of the scanner, so that it crosses one</value>",
    "</item>",
    "<item>",
    "<key>k2</key>",
    "<value>v2</value>",
    "</item>",
    "</tagSet>",
    "</item>",
    "<item>",
    "<volumeId>vol-2</volumeId>",
    "<size>8</size>",
    "<snapshotId></snapshotId>",
    "<availabilityZone>us-west-2a</availabilityZone>",
    "<status>available</status>",
    "<createTime>2023-01-01T00:00:00Z</createTime>",
    "<attachmentSet/>",
    "<volumeType>gp3</volumeType>",
    "<iops>3000</iops>",
    "<throughput>125</throughput>",
    "<encrypted>true</encrypted>",
    "<multiAttachEnabled>false</multiAttachEnabled>",
    "</item>",
    "</volumeSet>",
    "<nextToken>tok</nextToken>",
    "</DescribeVolumesResponse>",
};
#define ORDER_ROWS (sizeof order_rows / sizeof order_rows[0])

/* How a row is perturbed (a leaf row is "<N>V</N>"; other rows are one tag). */
enum {
    OV_NONE,      /* as sent */
    OV_PREFIX,    /* leaf: <ec2:N>V</ec2:N> */
    OV_ATTR,      /* a start tag with an attribute */
    OV_END_SPACE, /* an end tag with a space before '>' */
    OV_CHARREF,   /* leaf: the value's first character as a character reference */
    OV_ENTITY,    /* leaf: "&amp;" before the value */
    OV_CDATA,     /* leaf: the value's first character in a CDATA section */
    OV_COMMENT,   /* a comment inside the leaf's value, or before the row */
    OV_PI,        /* a processing instruction before the row */
    OV_UNKNOWN,   /* an unknown element (holding known names) before the row */
    OV_SWAP,      /* the row after the next one: out of order */
    OV_DROP,      /* the row left out */
    OV_TWICE,     /* the row given twice */
    OV_EMPTY,     /* leaf: <N/> */
    OV_CRLF,      /* leaf: CR LF after the value */
    OV_UTF8,      /* leaf: a two-byte UTF-8 character after the value */
    OV_BAD,       /* leaf: '!' after the value (a bad integer, boolean or time) */
    OV_CDEND,     /* leaf: "]]>" after the value (not allowed in character data) */
    OV_MISMATCH,  /* leaf: its end tag's name one letter longer */
    OV_CASE,      /* leaf: its name's first letter in upper case (an unknown member) */
    OV_CHILD,     /* leaf: an element inside its value */
    OV_COUNT
};

/* Appends row r perturbed by kind to m. */
static void order_row(mbuf *m, const char *r, int kind)
{
    char buf[512];
    const char *gt = strchr(r, '>'), *close = strstr(r, "</");
    int leaf = close && close != r, start = r[1] != '/' && !leaf && gt[-1] != '/';
    int n = (int)(gt - r - 1), vn = leaf ? (int)(close - gt - 1) : 0; /* name, value length */
    const char *name = r + 1, *v = gt + 1;
    if (kind == OV_COMMENT && !leaf)
        m_puts(m, "<!--c-->");
    else if (kind == OV_PI)
        m_puts(m, "<?pi x?>");
    else if (kind == OV_UNKNOWN)
        m_puts(m, "<unknown><volumeId>no</volumeId><item><key>no</key></item></unknown>");
    if (kind == OV_DROP)
        return;
    if (leaf && kind != OV_NONE && kind < OV_COUNT && kind != OV_COMMENT) {
        const char *pre = kind == OV_PREFIX ? "ec2:" : "";
        char first[16] = "", rest[8] = "", lead[16] = "";
        int skip = 0;
        if (vn > 0 && (kind == OV_CHARREF || kind == OV_CDATA)) {
            snprintf(first, sizeof first, kind == OV_CHARREF ? "&#%d;" : "<![CDATA[%c]]>",
                     kind == OV_CHARREF ? (int)(unsigned char)v[0] : v[0]);
            skip = 1;
        }
        strcpy(lead, kind == OV_ENTITY ? "&amp;" : kind == OV_CHILD ? "<b>x</b>" : "");
        strcpy(rest, kind == OV_CRLF    ? "\r\n"
                     : kind == OV_UTF8  ? "\xc3\xa9"
                     : kind == OV_BAD   ? "!"
                     : kind == OV_CDEND ? "]]>"
                                        : "");
        if (kind == OV_EMPTY)
            snprintf(buf, sizeof buf, "<%.*s/>", n, name);
        else
            snprintf(buf, sizeof buf, "<%s%.*s%s>%s%s%.*s%s</%s%.*s%s%s>", pre, n, name,
                     kind == OV_ATTR ? " a=\"1\"" : "", lead, first, vn - skip, v + skip, rest, pre,
                     n, name, kind == OV_MISMATCH ? "x" : "", kind == OV_END_SPACE ? " " : "");
        if (kind == OV_CASE)
            buf[1] = (char)(buf[1] - 'a' + 'A'), buf[strlen(buf) - n - 1] = buf[1];
        m_puts(m, buf);
    } else if (leaf && kind == OV_COMMENT && vn > 0) {
        snprintf(buf, sizeof buf, "<%.*s>%c<!--c-->%.*s</%.*s>", n, name, v[0], vn - 1, v + 1, n,
                 name);
        m_puts(m, buf);
    } else if (kind == OV_ATTR && start) {
        snprintf(buf, sizeof buf, "<%.*s a='1'>", n, name);
        m_puts(m, buf);
    } else if (kind == OV_END_SPACE && r[1] == '/') {
        snprintf(buf, sizeof buf, "%.*s >", (int)(gt - r), r);
        m_puts(m, buf);
    } else {
        m_puts(m, r);
    }
    if (kind == OV_TWICE)
        m_puts(m, r);
}

/* The document with row at perturbed by kind (OV_SWAP: rows at and at + 1 exchanged), rows
 * joined by sep (compact "" or an indentation). */
static void order_doc(mbuf *m, size_t at, int kind, const char *sep)
{
    m->len = 0;
    m_puts(m, DECL);
    for (size_t i = 0; i < ORDER_ROWS; i++) {
        size_t r = i;
        if (kind == OV_SWAP && at + 1 < ORDER_ROWS && (i == at || i == at + 1))
            r = i == at ? at + 1 : at;
        if (i)
            m_puts(m, sep);
        order_row(m, order_rows[r], i == at && kind != OV_SWAP ? kind : OV_NONE);
    }
}

/* fast against the reference on doc: when the reference accepts it, every decoder gives its
 * answer (the streaming ones fed at every split point too: against_reference); when it rejects
 * it, every decoder rejects it (the streaming ones at every split point) and fast with the
 * reference's code - and for a bad value (HB_ERANGE, found by the builder they share) with its
 * reason. Positions are each parser's own (hb_vol_error: as near to the offending token as the
 * strategy can tell; expat places a bad value after its end tag, fast at it). */
static void order_check(const char *doc, size_t len, const char *what)
{
    hb_volumes ref, v;
    hb_vol_error rerr, ferr;
    const uint8_t *d = hb_guard_place((const uint8_t *)doc, len);
    int rrc = hb_volumes_decode(hb_vol_find(HB_VOL_REFERENCE), d, len, 0, &ref, &rerr);
    if (rrc == HB_OK) {
        hb_volumes_free(&ref);
        against_reference((const uint8_t *)doc, len, what);
        return;
    }
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        if (s->output != HB_VOL_OUT_VOLUMES)
            continue;
        for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
            if (pieces[i] == 0 || s->streaming)
                mutation_check(s, pieces[i], d, len, rrc, &ref, &rerr);
    }
    int frc = hb_volumes_decode(hb_vol_find("fast"), d, len, 0, &v, &ferr);
    if (getenv("HB_ORDER_DUMP")) { /* HB_ORDER_DUMP=dir: each rejected document, for a look */
        static int dumped;
        char path[512];
        snprintf(path, sizeof path, "%s/%05d.xml", getenv("HB_ORDER_DUMP"), dumped++);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(doc, 1, len, f);
            fclose(f);
        }
    }
    if (frc != rrc || (rrc == HB_ERANGE && strcmp(ferr.reason, rerr.reason) != 0)) {
        dump_doc(doc, len);
        fail_msg("%s: fast gives %d (%s) at %llu:%llu, the reference %d (%s) at %llu:%llu\n%s",
                 what, frc, ferr.reason, (unsigned long long)ferr.line,
                 (unsigned long long)ferr.column, rrc, rerr.reason, (unsigned long long)rerr.line,
                 (unsigned long long)rerr.column, doc);
    }
    hb_volumes_free(&v);
    hb_volumes_free(&ref);
}

/* Every row of a service-order document perturbed in every way (out of order, left out, twice,
 * unknown elements, prefixes, attributes, references, CDATA, comments, PIs, CR LF, UTF-8,
 * empty-element tags, bad values, mismatched end tags, children inside a leaf), compact and
 * indented, against the reference: fast's expected-member path must fall back to the generic
 * one at each and give the same answer or the same error. */
static void test_expected_members(void **state)
{
    (void)state;
    static const char *const seps[] = {"", "\n    "};
    mbuf m = {NULL, 0, 0, 0};
    char what[96];
    for (size_t s = 0; s < 2; s++) {
        order_doc(&m, 0, OV_NONE, seps[s]);
        against_reference((const uint8_t *)m.p, m.len, "a service-order document");
        for (size_t at = 0; at < ORDER_ROWS; at++) {
            for (int kind = OV_PREFIX; kind < OV_COUNT; kind++) {
                order_doc(&m, at, kind, seps[s]);
                snprintf(what, sizeof what, "row %zu (%s) perturbed (%d)%s", at, order_rows[at],
                         kind, s ? ", indented" : "");
                order_check(m.p, m.len, what);
            }
        }
    }
    free(m.p);
}

/* Generated (service-order) documents whose lists outgrow what fast's whole-item path assumes
 * room for - a volume's scratch list of tags (32, then doubled), the arena's newest chunk (16 KiB,
 * doubling) - so it declines mid-document and the member path grows them: every decoder against
 * the reference, compact and indented. */
static void test_expected_long_lists(void **state)
{
    (void)state;
    static const unsigned shapes[][2] = {{1, 31}, {1, 32}, {1, 33}, {2, 65}, {40, 70}, {3, 200}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (int compact = 0; compact < 2; compact++) {
            hb_volumes_params p;
            hb_volumes_params_default(&p);
            p.volumes = shapes[i][0];
            p.tags = shapes[i][1];
            p.compact = compact;
            uint8_t *doc;
            size_t len;
            hb_volumes_info info;
            assert_int_equal(hb_volumes_generate(&p, &doc, &len, &info), HB_OK);
            char what[96];
            snprintf(what, sizeof what, "generated %u x %u%s", p.volumes, p.tags,
                     compact ? ", compact" : "");
            against_reference(doc, len, what);
            free(doc);
        }
    }
}

/* Every prefix of a service-order document (compact and indented) is truncated: every decoder
 * rejects it, fast with the reference's code, line and column. */
static void test_expected_truncated(void **state)
{
    (void)state;
    static const char *const seps[] = {"", "\n    "};
    mbuf m = {NULL, 0, 0, 0};
    char what[64];
    for (size_t s = 0; s < 2; s++) {
        order_doc(&m, 0, OV_NONE, seps[s]);
        for (size_t n = 0; n < m.len; n++) {
            snprintf(what, sizeof what, "the first %zu bytes%s", n, s ? ", indented" : "");
            char keep = m.p[n];
            m.p[n] = '\0'; /* for the message */
            order_check(m.p, n, what);
            m.p[n] = keep;
        }
    }
    free(m.p);
}

/* createTime and attachTime are parsed into instants (through cases/rfc3339), by every decoder. */
static void test_instants(void **state)
{
    (void)state;
    static const char doc[] =
        VOL("<createTime>2012-10-16T20:00:16.000Z</createTime><attachmentSet><item>"
            "<attachTime>1970-01-01T00:00:01.5+01:00</attachTime></item></attachmentSet>");
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        if (s->output != HB_VOL_OUT_VOLUMES)
            continue;
        hb_volumes v;
        hb_vol_error err;
        assert_int_equal(hb_volumes_decode(s, (const uint8_t *)doc, sizeof doc - 1, 0, &v, &err),
                         HB_OK);
        assert_int_equal(v.nvolumes, 1);
        assert_int_equal(v.volumes[0]->create_instant.seconds, 1350417616);
        assert_int_equal(v.volumes[0]->create_instant.nanos, 0);
        assert_int_equal(v.volumes[0]->nattachments, 1);
        assert_int_equal(v.volumes[0]->attachments[0]->attach_instant.seconds, 1 - 3600);
        assert_int_equal(v.volumes[0]->attachments[0]->attach_instant.nanos, 500000000);
        hb_volumes_free(&v);
    }
}

/* The generated 30 volumes x 20 tags response (malloc'd, the caller frees it). */
static uint8_t *doc_30x20(size_t *len, hb_volumes_info *info)
{
    hb_volumes_params p;
    hb_volumes_params_default(&p);
    p.volumes = 30;
    p.tags = 20;
    uint8_t *doc;
    assert_int_equal(hb_volumes_generate(&p, &doc, len, info), HB_OK);
    return doc;
}

/* Counting: the malloc strategy allocates per string, the arena and fast strategies do not. */
static void test_allocation_counts(void **state)
{
    (void)state;
    size_t len;
    hb_volumes_info info;
    uint8_t *doc = doc_30x20(&len, &info);
    hb_volumes v;
    hb_vol_error err;
    assert_int_equal(hb_volumes_decode(hb_vol_find("expat-typed"), doc, len, 0, &v, &err), HB_OK);
    assert_true(v.mem.allocations > 2 * info.tags);
    assert_true(v.mem.peak_bytes > 0);
    hb_volumes_free(&v);
    assert_int_equal(hb_volumes_decode(hb_vol_find("expat-typed-arena"), doc, len, 0, &v, &err),
                     HB_OK);
    assert_true(v.mem.allocations < 100);
    hb_volumes_free(&v);
    assert_int_equal(hb_volumes_decode(hb_vol_find("fast"), doc, len, 0, &v, &err), HB_OK);
    assert_true(v.mem.allocations < 30);
    hb_volumes_free(&v);
    /* a non-streaming strategy refuses pieces */
    assert_int_equal(hb_volumes_decode(hb_vol_find("fast"), doc, len, 7, &v, &err), HB_EINVAL);
    hb_volumes_free(&v);
    assert_null(hb_vol_find("nope"));
    assert_null(hb_vol_find(NULL));
    free(doc);
}

/* Verification's heap (hb_volumes_set_poisoned_heap under M_PERTURB) moves grown blocks instead of
 * realloc'ing them: every strategy must decode the same volumes and, except libxml2's (whose
 * counts vary from run to run), count the same allocations and peak bytes as with the ordinary heap (the counts the
 * benchmark reports come from the verification run). */
static void test_poisoned_heap(void **state)
{
    (void)state;
    size_t len;
    hb_volumes_info info;
    uint8_t *doc = doc_30x20(&len, &info);
    char msg[256];
    for (size_t k = 0; k < hb_vol_strategy_count; k++) {
        const hb_vol_strategy *s = &hb_vol_strategies[k];
        hb_volumes plain, poisoned;
        hb_vol_error err;
        assert_int_equal(hb_volumes_decode(s, doc, len, 0, &plain, &err), HB_OK);
        /* libxml2 seeds its dictionary's hash at random, so its allocation counts vary by a few
         * from run to run: for it only the answer is compared */
        int compare_counts = strncmp(s->name, "libxml2", 7) != 0;
        mallopt(M_PERTURB, 0x5a);
        hb_volumes_set_poisoned_heap(1);
        int rc = hb_volumes_decode(s, doc, len, 0, &poisoned, &err);
        hb_volumes_set_poisoned_heap(0);
        mallopt(M_PERTURB, 0);
        assert_int_equal(rc, HB_OK);
        if (s->output == HB_VOL_OUT_VOLUMES && hb_volumes_compare(&poisoned, &plain, msg,
                                                                   sizeof msg) != 0)
            fail_msg("%s: the poisoned heap changed the answer: %s", s->name, msg);
        if (poisoned.count != plain.count ||
            (compare_counts && (poisoned.mem.allocations != plain.mem.allocations ||
                               poisoned.mem.peak_bytes != plain.mem.peak_bytes)))
            fail_msg("%s: count %llu/%llu, allocations %llu/%llu, peak %llu/%llu (poisoned/plain)",
                     s->name, (unsigned long long)poisoned.count, (unsigned long long)plain.count,
                     (unsigned long long)poisoned.mem.allocations,
                     (unsigned long long)plain.mem.allocations,
                     (unsigned long long)poisoned.mem.peak_bytes,
                     (unsigned long long)plain.mem.peak_bytes);
        hb_volumes_free(&plain);
        hb_volumes_free(&poisoned);
    }
    free(doc);
}

/* ---- hb_volumes_compare's message ---------------------------------------------------------- */

/* A present string: the NUL-terminated s. */
static hb_vol_str vs(const char *s)
{
    hb_vol_str r = {s, strlen(s)};
    return r;
}

/* One volume with an attachment and a tag: b is changed by change_row(i), then compared with a
 * copy made as a. */
typedef struct cmp_doc {
    hb_vol_tag tag, *tags[1];
    hb_vol_attachment att, *atts[1];
    hb_volume vol, *vols[1];
    hb_volumes v;
} cmp_doc;

static void cmp_doc_init(cmp_doc *d)
{
    memset(d, 0, sizeof *d);
    d->tag = (hb_vol_tag){vs("Name"), vs("web")};
    d->att = (hb_vol_attachment){vs("vol-1"),
                                 vs("i-1"),
                                 vs("/dev/sda"),
                                 vs("attached"),
                                 vs("2020-01-01T00:00:00Z"),
                                 {1577836800, 0},
                                 1,
                                 HB_VOL_HAS_DELETE_ON_TERMINATION};
    d->vol.volume_id = vs("vol-1");
    d->vol.size = 8;
    d->vol.create_time = vs("2020-01-01T00:00:00Z");
    d->vol.create_instant = (hb_rfc3339_time){1577836800, 0};
    d->vol.iops = 3000;
    d->vol.present = HB_VOL_HAS_SIZE | HB_VOL_HAS_IOPS | HB_VOL_HAS_MULTI_ATTACH;
    d->tags[0] = &d->tag;
    d->atts[0] = &d->att;
    d->vol.tags = d->tags;
    d->vol.ntags = 1;
    d->vol.attachments = d->atts;
    d->vol.nattachments = 1;
    d->vols[0] = &d->vol;
    d->v.volumes = d->vols;
    d->v.nvolumes = 1;
    d->v.request_id = vs("req-1");
}

/* {the change made to b, the message expected} */
static const struct {
    const char *change, *want;
} cmp_rows[] = {
    {"none", ""},
    {"requestId", "requestId: \"req-1\" vs \"req-2\""},
    {"nextToken", "nextToken: absent vs \"tok\""},
    {"no volume", "1 volumes vs 0"},
    {"size", "volume 0 size: 8 vs 9"},
    {"iops absent", "volume 0 iops: 3000 vs 3000 (absent)"},
    {"createTime instant", "volume 0 createTime instant: 1577836800.000000000 vs "
                           "1577836800.000000001"},
    {"multiAttachEnabled", "volume 0 multiAttachEnabled: 0 vs 1"},
    {"no attachment", "volume 0: 1 attachments vs 0"},
    {"attachment device", "volume 0 attachment 0 device: \"/dev/sda\" vs \"/dev/sdb\""},
    {"attachTime instant", "volume 0 attachment 0 attachTime instant: 1577836800.000000000 vs "
                           "1577836801.000000000"},
    {"deleteOnTermination", "volume 0 attachment 0 deleteOnTermination: 1 vs 0"},
    {"no tag", "volume 0: 1 tags vs 0"},
    {"tag value", "volume 0 tag 0 value: \"web\" vs \"db\""},
};

static void change_row(size_t i, cmp_doc *b)
{
    switch (i) {
    case 1:
        b->v.request_id = vs("req-2");
        break;
    case 2:
        b->v.next_token = vs("tok");
        break;
    case 3:
        b->v.nvolumes = 0;
        break;
    case 4:
        b->vol.size = 9;
        break;
    case 5:
        b->vol.present &= ~(uint32_t)HB_VOL_HAS_IOPS;
        break;
    case 6:
        b->vol.create_instant.nanos = 1;
        break;
    case 7:
        b->vol.multi_attach_enabled = 1;
        break;
    case 8:
        b->vol.nattachments = 0;
        break;
    case 9:
        b->att.device = vs("/dev/sdb");
        break;
    case 10:
        b->att.attach_instant.seconds++;
        break;
    case 11:
        b->att.delete_on_termination = 0;
        break;
    case 12:
        b->vol.ntags = 0;
        break;
    case 13:
        b->tag.value = vs("db");
        break;
    default:
        break;
    }
}

/* hb_volumes_compare names the first difference, whichever member it is, in one line. */
static void test_compare_message(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cmp_rows / sizeof cmp_rows[0]; i++) {
        cmp_doc a, b;
        char msg[256];
        cmp_doc_init(&a);
        cmp_doc_init(&b);
        change_row(i, &b);
        int rc = hb_volumes_compare(&a.v, &b.v, msg, sizeof msg);
        if (rc != (*cmp_rows[i].want != '\0') || strcmp(msg, cmp_rows[i].want) != 0)
            fail_msg("%s: %d \"%s\", expected \"%s\"", cmp_rows[i].change, rc, msg,
                     cmp_rows[i].want);
    }
}

int main(void)
{
    hb_guard_init(GUARD_CAP);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_nul_rows),
        cmocka_unit_test(test_other_encodings),
        cmocka_unit_test(test_over_4gib),
        cmocka_unit_test(test_error_columns),
        cmocka_unit_test(test_big_value_and_deep_nesting),
        cmocka_unit_test(test_very_deep),
        cmocka_unit_test(test_botocore_fixture),
        cmocka_unit_test(test_generated_golden),
        cmocka_unit_test(test_window_boundaries),
        cmocka_unit_test(test_window_mask),
        cmocka_unit_test(test_random_generated),
        cmocka_unit_test(test_random_messy),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_expected_members),
        cmocka_unit_test(test_expected_truncated),
        cmocka_unit_test(test_expected_long_lists),
        cmocka_unit_test(test_instants),
        cmocka_unit_test(test_allocation_counts),
        cmocka_unit_test(test_poisoned_heap),
        cmocka_unit_test(test_compare_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
