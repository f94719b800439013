/* BufgrowPeer.java - the real library of incident 1, measured on hotbench's chunked bodies.
 *
 * Models nothing: it runs Apache httpcore 4.4 (Debian's libhttpcore-java 4.4.16,
 * /usr/share/java/httpcore.jar) and the JDK 17 on a body file written by `hotbench-gen chunked`.
 * The file is the raw message body of a Transfer-Encoding: chunked response; it is decoded by
 * httpcore's own org.apache.http.impl.io.ChunkedInputStream over a SessionInputBufferImpl of
 * 8192 bytes (HttpClient 4.5's default ConnectionConfig buffer), bound to the file as the socket
 * stream, then (--gzip) by java.util.zip.GZIPInputStream, as HttpClient's decompressing entity
 * does. The decoded bytes are read into one byte[] one of three ways (--way):
 *   toByteArray   EntityUtils.toByteArray on a BasicHttpEntity of unknown length (-1), the
 *                 incident: ByteArrayBuffer(4096), reads of 4096, capacity << 1 on an int
 *   readAllBytes  InputStream.readAllBytes (JDK 17: 8 KiB blocks, one gather copy)
 *   baos          a ByteArrayOutputStream fed reads of 4096 (JDK 17 growth, clamped at the
 *                 maximum array size), then toByteArray
 *   count         no array: reads of 4096 counted and checksummed; prints toByteArray's growth
 *                 plan (the httpcore ByteArrayBuffer rule replayed on the real read sizes)
 *
 * Every run checksums what it read (java.util.zip.CRC32 of the decoded payload, the value
 * `hotbench-gen chunked` prints). The step probe (toByteArray only) wraps the stream the entity
 * returns and times the gap between one read returning and the next starting: that gap is
 * ByteArrayBuffer.append, so the gaps at reads that grow the buffer are the growth steps.
 *
 * Output: one JSON object on standard output (schema in scripts/peers.sh); progress on stderr.
 * Exit status: 0 done, 1 I/O or malformed body (the message names the file), 2 usage.
 */
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;

import org.apache.http.entity.BasicHttpEntity;
import org.apache.http.impl.io.ChunkedInputStream;
import org.apache.http.impl.io.HttpTransportMetricsImpl;
import org.apache.http.impl.io.SessionInputBufferImpl;
import org.apache.http.util.EntityUtils;

public final class BufgrowPeer {
    static final int READ = 4096;            /* EntityUtils.DEFAULT_BUFFER_SIZE */
    static final int SESSION_BUFFER = 8192;  /* HttpClient 4.5 ConnectionConfig.DEFAULT */

    /* The decoded stream of one body file: chunked (and gzip) over a session input buffer. */
    static InputStream open(String path, boolean gzip) throws IOException {
        SessionInputBufferImpl sib = new SessionInputBufferImpl(new HttpTransportMetricsImpl(),
                                                                SESSION_BUFFER);
        sib.bind(new FileInputStream(path));
        InputStream in = new ChunkedInputStream(sib);
        return gzip ? new GZIPInputStream(in) : in;
    }

    /* Replays httpcore's ByteArrayBuffer growth on the reads it sees and times each append. */
    static final class StepProbe extends InputStream {
        final InputStream in;
        long len;          /* bytes appended so far */
        long reads;        /* reads that returned bytes */
        int cap = READ;    /* ByteArrayBuffer capacity (int, as in httpcore) */
        long lastReturn;   /* System.nanoTime() when the last read returned */
        long pendingCopy = -1; /* the last read grew the buffer: bytes that growth copied */
        boolean pendingAdditive;
        long additiveSteps, additiveNs, additiveCopied, doublingSteps;
        long minStepNs = Long.MAX_VALUE, maxStepNs;

        StepProbe(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            throw new IOException("single-byte read not expected from EntityUtils");
        }

        @Override
        public int read(byte[] b, int off, int n) throws IOException {
            long now = System.nanoTime();
            if (pendingCopy >= 0 && pendingAdditive) {
                long ns = now - lastReturn;
                additiveSteps++;
                additiveNs += ns;
                additiveCopied += pendingCopy;
                minStepNs = Math.min(minStepNs, ns);
                maxStepNs = Math.max(maxStepNs, ns);
            }
            pendingCopy = -1;
            int l = in.read(b, off, n);
            if (l > 0) {
                reads++;
                long need = len + l;
                if (need > cap) {
                    int doubled = cap << 1; /* wraps to negative at 2^30, as in httpcore */
                    pendingAdditive = doubled < need;
                    if (!pendingAdditive) {
                        doublingSteps++;
                    }
                    pendingCopy = len;
                    cap = (int) Math.max(doubled, need);
                }
                len = need;
            }
            lastReturn = System.nanoTime();
            return l;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    static String gcNames() {
        StringBuilder b = new StringBuilder();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            b.append(b.length() > 0 ? ", " : "").append(gc.getName());
        }
        return b.toString();
    }

    static byte[] readWay(String way, InputStream in) throws IOException {
        switch (way) {
        case "toByteArray": {
            BasicHttpEntity entity = new BasicHttpEntity(); /* content length -1: unknown */
            entity.setContent(in);
            entity.setChunked(true);
            return EntityUtils.toByteArray(entity);
        }
        case "readAllBytes":
            try (InputStream s = in) {
                return s.readAllBytes();
            }
        case "baos": {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] tmp = new byte[READ];
            try (InputStream s = in) {
                for (int l; (l = s.read(tmp)) != -1;) {
                    out.write(tmp, 0, l);
                }
            }
            return out.toByteArray();
        }
        default:
            throw new IllegalArgumentException(way);
        }
    }

    static void usage(String msg) {
        System.err.println("BufgrowPeer: " + msg);
        System.err.println("usage: java -Xmx6g -cp httpcore.jar:DIR BufgrowPeer"
                           + " --way toByteArray|readAllBytes|baos|count [--gzip] [--runs N]"
                           + " [--warmup N] FILE");
        System.exit(2);
    }

    public static void main(String[] args) {
        String way = null, path = null;
        boolean gzip = false;
        int runs = 1, warmup = 0;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                case "--way": way = args[++i]; break;
                case "--gzip": gzip = true; break;
                case "--runs": runs = Integer.parseInt(args[++i]); break;
                case "--warmup": warmup = Integer.parseInt(args[++i]); break;
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
        if (way == null || path == null || runs < 1 || warmup < 0) {
            usage("--way and FILE are required; --runs >= 1, --warmup >= 0");
        }
        if (!way.matches("toByteArray|readAllBytes|baos|count")) {
            usage("unknown --way '" + way + "'");
        }
        try {
            System.out.println(run(way, path, gzip, runs, warmup));
        } catch (IOException | RuntimeException e) {
            System.err.println("BufgrowPeer: " + path + ": " + e);
            System.exit(1);
        } catch (OutOfMemoryError e) {
            System.err.println("BufgrowPeer: " + path + ": out of memory (raise -Xmx): " + e);
            System.exit(1);
        }
    }

    static String run(String way, String path, boolean gzip, int runs, int warmup)
        throws IOException {
        StringBuilder times = new StringBuilder();
        long size = -1, crc = -1;
        StepProbe probe = null;
        if (way.equals("count")) {
            /* Reads of 4096 as EntityUtils makes them; the plan is the probe's replay. */
            long t0 = System.nanoTime();
            probe = new StepProbe(open(path, gzip));
            CRC32 c = new CRC32();
            byte[] tmp = new byte[READ];
            try (InputStream s = probe) {
                for (int l; (l = s.read(tmp)) != -1;) {
                    c.update(tmp, 0, l);
                }
            }
            times.append(String.format(Locale.ROOT, "%.6f", (System.nanoTime() - t0) / 1e9));
            size = probe.len;
            crc = c.getValue();
        } else {
            for (int r = 0; r < warmup + runs; r++) {
                InputStream in = open(path, gzip);
                if (way.equals("toByteArray")) {
                    in = probe = new StepProbe(in);
                }
                long t0 = System.nanoTime();
                byte[] out = readWay(way, in);
                double s = (System.nanoTime() - t0) / 1e9;
                CRC32 c = new CRC32();
                c.update(out, 0, out.length);
                if (size >= 0 && (out.length != size || c.getValue() != crc)) {
                    throw new IOException("run " + r + " read different bytes");
                }
                size = out.length;
                crc = c.getValue();
                out = null;
                System.err.printf(Locale.ROOT, "BufgrowPeer: %s %s%s %d bytes %.3f s%s%n", way,
                                  path, gzip ? " (gzip)" : "", size, s,
                                  r < warmup ? " (warm-up)" : "");
                if (r >= warmup) {
                    times.append(times.length() > 0 ? ", " : "")
                        .append(String.format(Locale.ROOT, "%.6f", s));
                }
            }
        }
        StringBuilder j = new StringBuilder();
        j.append(String.format(Locale.ROOT,
                               "{\"peer\": \"httpcore-%s\", \"way\": \"%s\", \"gzip\": %b, "
                                   + "\"file\": \"%s\", \"size\": %d, \"crc32\": \"%08x\", "
                                   + "\"warmup\": %d, \"seconds\": [%s], \"java\": \"%s\", "
                                   + "\"gc\": \"%s\", \"max_heap\": %d",
                               way, way, gzip, path.replace("\\", "\\\\").replace("\"", "\\\""),
                               size, crc, warmup, times, System.getProperty("java.vm.version"),
                               gcNames(), Runtime.getRuntime().maxMemory()));
        if (probe != null) {
            /* The growth steps of the last run (or the plan, for count). */
            j.append(String.format(Locale.ROOT,
                                   ", \"reads\": %d, \"doubling_steps\": %d, \"additive_steps\": %d,"
                                       + " \"additive_bytes_copied\": %d",
                                   probe.reads, probe.doublingSteps,
                                   probe.additiveSteps, probe.additiveCopied));
            if (!way.equals("count") && probe.additiveSteps > 0) {
                j.append(String.format(Locale.ROOT,
                                       ", \"additive_step_s\": {\"mean\": %.6f, \"min\": %.6f,"
                                           + " \"max\": %.6f, \"total\": %.6f}",
                                       probe.additiveNs / 1e9 / probe.additiveSteps,
                                       probe.minStepNs / 1e9, probe.maxStepNs / 1e9,
                                       probe.additiveNs / 1e9));
            }
        }
        return j.append("}").toString();
    }
}
