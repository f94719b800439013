/* Rfc3339Peer.java - the real library of incident 2, measured on hotbench's timestamp rows.
 *
 * Models nothing: it runs the JDK 17 java.time parsers (Debian's openjdk-17) on a file written by
 * `hotbench-gen timestamps --encoding both` (column 1 RFC 3339, column 2 the same instant as
 * decimal Unix milliseconds). The ways (--way):
 *   spanner       the formatter of com.google.cloud.Timestamp.parseTimestamp (google-cloud-core,
 *                 used by the Java Spanner client for every TIMESTAMP it reads):
 *                 DateTimeFormatterBuilder().appendOptional(ISO_LOCAL_DATE_TIME).optionalStart()
 *                 .appendOffsetId().optionalEnd().toFormatter().withZone(ZoneOffset.UTC), then
 *                 Instant.from(parsed). (google-cloud-core 1.x used the threetenbp backport of
 *                 the same classes, which Debian does not package; 2.x uses java.time.)
 *   instant       Instant.parse (DateTimeFormatter.ISO_INSTANT)
 *   offset        OffsetDateTime.parse (ISO_OFFSET_DATE_TIME), then toEpochSecond / getNano
 *   millis        Long.parseLong on column 2 (the UNIX_MILLIS(ts) workaround)
 *
 * The checksum of a way over the rows in file order, with seconds s and nanoseconds n of each
 * instant (millis m gives s = floorDiv(m, 1000), n = floorMod(m, 1000) * 1000000):
 *     h = 0;  h = h * 1000003 + (s * 1000000000 + n)   for each row, in unsigned 64-bit arithmetic
 * printed as 16 hex digits; scripts/peers.sh computes the same from `hotbench-decode rfc3339`.
 * Each timed pass computes it, so the JIT cannot drop the parse.
 *
 * Timing: --warmup passes over all rows (JIT), then --runs timed passes; ns per timestamp.
 * Output: one JSON object per way on standard output (schema in scripts/peers.sh).
 * Exit status: 0 done, 1 unreadable file or a value a way rejects (named), 2 usage.
 */
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

public final class Rfc3339Peer {
    /* com.google.cloud.Timestamp's parser, built as google-cloud-core builds it. */
    static final DateTimeFormatter SPANNER = new DateTimeFormatterBuilder()
                                                 .appendOptional(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
                                                 .optionalStart()
                                                 .appendOffsetId()
                                                 .optionalEnd()
                                                 .toFormatter()
                                                 .withZone(ZoneOffset.UTC);

    static long mix(long h, long s, long n) {
        return h * 1000003L + (s * 1000000000L + n);
    }

    /* One pass of one way over all values; returns the checksum. */
    static long pass(String way, String[] v) {
        long h = 0;
        switch (way) {
        case "spanner":
            for (String s : v) {
                Instant i = Instant.from(SPANNER.parse(s));
                h = mix(h, i.getEpochSecond(), i.getNano());
            }
            break;
        case "instant":
            for (String s : v) {
                Instant i = Instant.parse(s);
                h = mix(h, i.getEpochSecond(), i.getNano());
            }
            break;
        case "offset":
            for (String s : v) {
                OffsetDateTime o = OffsetDateTime.parse(s);
                h = mix(h, o.toEpochSecond(), o.getNano());
            }
            break;
        case "millis":
            for (String s : v) {
                long m = Long.parseLong(s);
                h = mix(h, Math.floorDiv(m, 1000L), Math.floorMod(m, 1000L) * 1000000L);
            }
            break;
        default:
            throw new IllegalArgumentException(way);
        }
        return h;
    }

    static void usage(String msg) {
        System.err.println("Rfc3339Peer: " + msg);
        System.err.println("usage: java -cp DIR Rfc3339Peer [--way spanner,instant,offset,millis]"
                           + " [--warmup N] [--runs N] FILE");
        System.exit(2);
    }

    public static void main(String[] args) {
        String ways = "spanner,instant,offset,millis", path = null;
        int warmup = 10, runs = 10;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                case "--way": ways = args[++i]; break;
                case "--warmup": warmup = Integer.parseInt(args[++i]); break;
                case "--runs": runs = Integer.parseInt(args[++i]); break;
                default:
                    if (args[i].startsWith("-") || path != null) {
                        usage("unknown argument '" + args[i] + "'");
                    }
                    path = args[i];
                }
            }
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            usage("bad or missing option value");
        }
        if (path == null || runs < 1 || warmup < 0) {
            usage("FILE is required; --runs >= 1, --warmup >= 0");
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8);
        } catch (IOException e) {
            System.err.println("Rfc3339Peer: " + path + ": " + e);
            System.exit(1);
            return;
        }
        int rows = lines.size();
        String[] rfc = new String[rows], millis = new String[rows];
        for (int r = 0; r < rows; r++) {
            String[] f = lines.get(r).split("\t", -1);
            rfc[r] = f[0];
            millis[r] = f.length > 1 ? f[1] : null;
        }
        for (String way : ways.split(",")) {
            if (!way.matches("spanner|instant|offset|millis")) {
                usage("unknown way '" + way + "'");
            }
            String[] v = way.equals("millis") ? millis : rfc;
            if (rows > 0 && v[0] == null) {
                System.err.println("Rfc3339Peer: " + path + ": no millis column (write the file"
                                   + " with hotbench-gen timestamps --encoding both)");
                System.exit(1);
            }
            long h = 0;
            double[] ns = new double[runs];
            try {
                for (int r = 0; r < warmup + runs; r++) {
                    long t0 = System.nanoTime();
                    long c = pass(way, v);
                    long t = System.nanoTime() - t0;
                    if (r > 0 && c != h) {
                        throw new IllegalStateException("checksum changed between passes");
                    }
                    h = c;
                    if (r >= warmup) {
                        ns[r - warmup] = (double) t / Math.max(rows, 1);
                    }
                }
            } catch (DateTimeParseException | NumberFormatException e) {
                System.err.println("Rfc3339Peer: " + path + ": " + way + " rejected a value: "
                                   + e.getMessage());
                System.exit(1);
            }
            double[] sorted = ns.clone();
            Arrays.sort(sorted);
            StringBuilder all = new StringBuilder();
            for (double x : ns) {
                all.append(all.length() > 0 ? ", " : "").append(String.format(Locale.ROOT, "%.2f", x));
            }
            System.out.println(String.format(
                Locale.ROOT,
                "{\"peer\": \"java-%s\", \"way\": \"%s\", \"rows\": %d, \"checksum\": \"%016x\", "
                    + "\"warmup\": %d, \"ns_per_ts\": [%s], \"ns_per_ts_median\": %.2f, "
                    + "\"java\": \"%s\"}",
                way, way, rows, h, warmup, all, sorted[runs / 2],
                System.getProperty("java.vm.version")));
        }
    }
}
