package io.sluice.compat.official;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The driver's command line: a mode and its options. Immutable.
 *
 * @param mode            {@code verify} or {@code bench}
 * @param controller      controller URI, {@code tcp://host:port}
 * @param scope           scope to create and use
 * @param stream          base name of the streams (verify derives {@code -txn}, {@code -bytes}, ... from it)
 * @param events          events to write and read back
 * @param size            bytes per event (at least {@link Payload#HEADER_BYTES})
 * @param segments        fixed segment count of the event stream
 * @param readers         readers in the reader group
 * @param timeoutSeconds  bound on the whole run; the watchdog ends it after that
 * @param latencySamples  bench: awaited single writes measured after the throughput phase
 * @param warmupEvents    bench: events written and read on a separate stream before the measured run
 * @param parts           verify: which parts to run
 * @param keep            leave streams, tables and the scope in place (no cleanup)
 * @param keysFile        route: the routing keys, one a line as the hex of their UTF-16 code units; else null
 * @param action          txn-interop: {@code write}, {@code read}, {@code write-open} or {@code commit}; else null
 * @param transactions    bench: transactions to write instead of the plain workload (0: none)
 * @param txnEvents       bench: events per transaction
 * @param writer          txn-interop read: whose committed events to expect ({@code sluice} by default)
 * @param txnId           txn-interop commit: the transaction to commit; else null
 * @param leaseSeconds    txn-interop write-open: the transaction's lease

 * @param role            watermarks and large-events: {@code write} or {@code read}; else null
 * @param largeEvents     bench: the writer enables large events (needed for --size over 8 MiB)
 * @param byteStream      bench: measure a byte stream ({@link ByteStreamBench}) instead of events
 * @param kvt             bench: measure a key-value table ({@link KvtBenchPart}) instead of events
 * @param kvtConcurrency  bench --kvt: concurrent callers
 * @param kvtBatch        bench --kvt: entries per atomic batch
 * @param batch           bench: measure batch reads ({@link BatchBench}) instead of a reader group
 * @param writers         bench: writers of the scale workload ({@link ScaleBench}) when more than 1
 * @param pooling         bench --writers: the writers share pooled connections
 *                        ({@code EventWriterConfig.enableConnectionPooling}; off by default, as in the client)
 * @param writers         bench: writers, each on a thread of its own with one routing key; more than one runs
 *                        {@link ScaleBench} instead of the plain workload
 * @param virtualLatencyThread bench: the awaited writes are made on a virtual thread (JDK 21 or newer) instead of
 *                        the driver's own platform thread
 */
record Options(String mode, URI controller, String scope, String stream, int events, int size, int segments,
               int readers, int timeoutSeconds, int latencySamples, int warmupEvents, Set<String> parts,
               boolean keep, Path keysFile, String action, int transactions, int txnEvents, String writer,
               String txnId, int leaseSeconds, String role, boolean largeEvents, boolean byteStream,
               boolean kvt, int kvtConcurrency, int kvtBatch, boolean batch, int writers, boolean pooling,
               boolean virtualLatencyThread) {

    /** Most segments of the event stream: bench allows more than the other modes (the scale workload). */
    static final int MAX_SEGMENTS = 1000;
    /** Most segments of bench's stream. */
    static final int MAX_BENCH_SEGMENTS = 10_000;
    /** Most writers of bench --writers. */
    static final int MAX_WRITERS = 10_000;

    /** Every part of {@code verify}, in the order they run. */
    static final List<String> ALL_PARTS = List.of("events", "txn", "kvt", "bytestream", "synchronizer");

    static final String USAGE = """
            usage: Driver verify|bench|route|txn-interop|watermarks|large-events [options]
              verify   functional check of the official Pravega 0.13 client against a server: events through a
                       reader group (count, content, per-key order, no duplicates), transactions (commit, abort),
                       key-value table, byte stream, state synchronizer
              bench    write/read throughput and awaited-write latency (the workload of `sluice bench`);
                       with --transactions, transactions and their commit latency instead; with --kvt, a
                       key-value table's puts, gets, batched puts and getAll (see KvtBenchPart); with
                       --writers W > 1, W writers on W threads, one routing key each (see ScaleBench)
              route    writes one event "official:<i>" with the i-th routing key of --keys-file to the EXISTING
                       --scope/--stream (nothing created or deleted), so another client can check where the
                       official client routed each key
              txn-interop  transactions on the EXISTING --scope/--stream (nothing created or deleted but
                       a reader group of its own). --action write: the official client commits a
                       transaction of --events events "official-commit:k<i%8>:<i>" and aborts one of
                       "official-abort:...". --action read: it reads the stream and checks it holds exactly
                       "<W>-commit:k<i%8>:<i>" for i < --events (each once, per key in order) and no
                       "<W>-abort:..." (W: --writer, default sluice). --action write-open: it begins a
                       transaction (lease --lease-seconds), writes "official-commit:..." to it, flushes and
                       exits without committing (its pinger dies with it). --action commit --txn ID: it looks
                       the transaction up by id, commits it, and reports the status before and after and
                       whether the commit failed
              watermarks  on the EXISTING --scope/--stream: --role write writes --events events in three rounds,
                       noting times 1000, 2000, 3000 after each; --role read reads --events events with a new
                       reader group and reports getCurrentTimeWindow before and after (see WatermarkPart)
              large-events  --role write: the official writer (enableLargeEvents) writes --events events of
                       --size bytes (over 8 MiB allowed) with key "large" to the EXISTING --scope/--stream, event i
                       holding known bytes; --role read: the official reader reads them back and checks each, whole
                       and in order. Both report the CRC-32 of every event. Nothing created or deleted
              bytestream-interop  on the EXISTING one-segment --scope/--stream: --role write: the official
                       ByteStreamWriter writes --size known bytes in writes of varied sizes (one over 8 MiB when
                       --size allows), flushes and seals with closeAndSeal; --role read: the official
                       ByteStreamReader reads --size bytes from the head, checks them and that the sealed stream
                       then ends (read() = -1). Both report the CRC-32 of the bytes (see ByteStreamInteropPart)
              kvt-interop  on the EXISTING key-value table --scope/--stream (8-byte primary, 4-byte secondary
                       keys): --role write puts "official:i:j" under (i, j) for i < --events, j < 3 and reports
                       the versions; --role read checks (i, j) hold "sluice:i:j", reports the versions read,
                       iterates primary key 0, then puts (0, 0) conditionally on the version read (must work)
                       and again on the same, now stale, version (must fail) (see KvtInteropPart)
              batch-read  the official BatchClientFactory reads every segment of the EXISTING --scope/--stream
                       (UNBOUNDED to UNBOUNDED, all ranges at once, events as UTF-8) and reports ranges, read,
                       the sorted events and their CRC-32 (see BatchInteropPart). Nothing created or deleted
              autoscale  writes rounds of one event per key ("official:k<k>:<round>", 16 keys) to the EXISTING
                       --scope/--stream until the server splits it, then --events more rounds (see AutoScalePart)
              sync-interop  on the EXISTING one-segment streams --scope/--stream and --scope/--stream-rev:
                       --role write: the official StateSynchronizer (UTF-8 text state, updates appending an item)
                       initializes "official-init", appends "official:i" for i < --events, one unconditional
                       update, compacts, appends once more; its RevisionedStreamClient writes "official-rev:i"
                       conditionally and sets the mark. --role read: reads both and writes once more
                       conditionally; both report states, revisions and marks as text (see SyncInteropPart)
              retention  on the EXISTING --scope/--stream (with a retention policy): a new group with retention
                       type MANUAL_RELEASE_AT_USER_STREAMCUT reads --events events, releases them with
                       updateRetentionStreamCut and watches the head for 15 s; reports whether it moved
                       (see RetentionInteropPart)
            options (--name value or --name=value):
              --controller URI        controller, default tcp://127.0.0.1:9090
              --scope NAME            default official-<random>
              --stream NAME           default events-<random> (verify derives -txn, -bytes, -sync, -kvt, -rg)
              --events N              default 100000
              --size BYTES            bytes per event, >= 8, default 100 (units KiB, MiB, GiB allowed); over
                                      8 MiB (up to 1 GiB) only with large-events or bench --large-events
              --segments K            fixed segments of the event stream, default: verify 4, bench 1 (at most
                                      1000; bench: 10000)
              --readers R             readers in the reader group, default: verify 2, bench 1
              --timeout-seconds T     bound on the whole run, default 300
              --latency-samples L     bench: awaited single writes, default 2000
              --latency-thread KIND   bench: the thread that makes the awaited writes: platform (the driver's
                                      own, the default) or virtual (a new virtual thread; needs JDK 21+)
              --warmup-events W       bench: write and read W events on another stream first, default 0
              --parts a,b,...         verify: subset of events,txn,kvt,bytestream,synchronizer (default all)
              --keep                  do not delete what the run created
              --byte-stream           bench: --events writes of --size bytes to a one-segment byte stream
                                      (ByteStreamWriter), flush, then ByteStreamReader reads and checks them;
                                      reports write.mb_per_s and read.mb_per_s (see ByteStreamBench)
              --kvt                   bench: a key-value table instead (--segments partitions): --events single
                                      puts and gets, batches of --kvt-batch puts and getAll, by
                                      --kvt-concurrency callers; reports entries/s, p50/p99 (see KvtBenchPart)
              --kvt-concurrency C     bench --kvt: concurrent callers, default 1 (the latency run)
              --kvt-batch B           bench --kvt: entries per atomic batch (one primary key), default 100
              --batch                 bench: N events over --segments K segments, then the official
                                      BatchClientFactory reads every range at once and checks every event;
                                      reports write and read events_per_s and mb_per_s (see BatchBench)
              --writers W             bench: W writers (1 to 10000, default 1). W > 1 runs the scale workload:
                                      writer w writes N/W events with ONE routing key that the official router
                                      sends to segment w % K, all W on their own threads at once, then flush;
                                      R readers read all N back; then --latency-samples awaited writes shared by
                                      the W writers. Reports setup (writers_ms, readers_ms), write, read,
                                      latency, resources (heap_live_mib, heap_peak_mib, threads_peak,
                                      threads_now) and verify (see ScaleBench)
              --connection-pooling    bench --writers: the writers share pooled connections
                                      (EventWriterConfig.enableConnectionPooling); without it every writer
                                      opens a connection of its own to every segment, the client's default
              --large-events          bench: the writer enables large events (events over 8 MiB go through
                                      transient segments)
              --keys-file FILE        route: one routing key a line, as the hex of its UTF-16 code units
                                      (4 digits a char, so any key survives; an empty line is the empty key)
              --action A              txn-interop: write, read, write-open or commit
              --writer W              txn-interop read: whose events to expect, default sluice
              --txn ID                txn-interop commit: the transaction's id (a UUID)
              --lease-seconds S       txn-interop write-open: the transaction's lease, default 60
              --transactions T        bench: instead of the plain workload, T transactions one after the other
                                      (begin, --txn-events writes, commit awaited), read back; reports
                                      events/s and commit latency p50/p99 under "transactions" (default 0)
              --txn-events N          bench: events per transaction, default 100
              --role write|read       watermarks, large-events, bytestream-interop, kvt-interop,
                                      sync-interop: which side the official client plays
            stdout: one JSON line; logs: stderr. exit 0 = every check passed, 1 = a check failed,
            2 = bad usage, 3 = timed out.""";

    /** Thrown for a bad command line; the message names what is wrong. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /**
     * Parses the command line.
     *
     * @throws UsageException naming the bad argument
     */
    static Options parse(String[] args) throws UsageException {
        if (args.length == 0) {
            throw new UsageException("missing mode: verify or bench");
        }
        String mode = args[0];
        if (mode.equals("-h") || mode.equals("--help") || mode.equals("help")) {
            throw new UsageException("help");
        }
        if (!List.of("verify", "bench", "route", "txn-interop", "watermarks", "large-events", "bytestream-interop",
                "kvt-interop", "batch-read", "sync-interop", "autoscale", "retention").contains(mode)) {
            throw new UsageException("unknown mode '" + mode
                    + "': expected verify, bench, route, txn-interop, watermarks or large-events");
        }
        boolean verify = mode.equals("verify");
        String suffix = HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
        URI controller = URI.create("tcp://127.0.0.1:9090");
        String scope = "official-" + suffix;
        String stream = "events-" + suffix;
        int events = 100_000;
        int size = 100;
        int segments = verify ? 4 : 1;
        int readers = verify ? 2 : 1;
        int timeout = 300;
        int latency = 2000;
        int warmup = 0;
        Set<String> parts = new LinkedHashSet<>(ALL_PARTS);
        boolean keep = false;
        Path keysFile = null;
        String role = null;
        boolean largeEvents = false;
        boolean byteStream = false;
        boolean kvtBench = false;
        int kvtConcurrency = 1;
        int kvtBatch = 100;
        boolean batch = false;
        boolean pooling = false;
        boolean virtualLatencyThread = false;
        int writers = 1;
        boolean scopeGiven = false;
        boolean streamGiven = false;
        String action = null;
        String writer = "sluice";
        String txnId = null;
        int leaseSeconds = 60;
        int transactions = 0;
        int txnEvents = 100;

        List<String> rest = new ArrayList<>(List.of(args).subList(1, args.length));
        for (int i = 0; i < rest.size(); i++) {
            String arg = rest.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (name.equals("--keep")) {
                if (value != null) {
                    throw new UsageException("--keep takes no value");
                }
                keep = true;
                continue;
            }
            if (name.equals("--large-events")) {
                if (value != null) {
                    throw new UsageException("--large-events takes no value");
                }
                largeEvents = true;
                continue;
            }
            if (name.equals("--connection-pooling")) {
                if (value != null) {
                    throw new UsageException("--connection-pooling takes no value");
                }
                pooling = true;
                continue;
            }
            if (name.equals("--batch")) {
                if (value != null) {
                    throw new UsageException("--batch takes no value");
                }
                batch = true;
                continue;
            }
            if (name.equals("--byte-stream")) {
                if (value != null) {
                    throw new UsageException("--byte-stream takes no value");
                }
                byteStream = true;
                continue;
            }
            if (name.equals("--kvt")) {
                if (value != null) {
                    throw new UsageException("--kvt takes no value");
                }
                kvtBench = true;
                continue;
            }
            if (name.equals("-h") || name.equals("--help")) {
                throw new UsageException("help");
            }
            if (!name.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            if (value == null) {
                if (i + 1 >= rest.size()) {
                    throw new UsageException(name + " needs a value");
                }
                value = rest.get(++i);
            }
            switch (name) {
                case "--controller" -> controller = controllerUri(value);
                case "--scope" -> {
                    scope = streamName(name, value);
                    scopeGiven = true;
                }
                case "--stream" -> {
                    stream = streamName(name, value);
                    streamGiven = true;
                }
                case "--keys-file" -> keysFile = Path.of(value);
                case "--events" -> events = intArg(name, value, 1, Integer.MAX_VALUE / 2);
                case "--size" -> size = intArg(name, bytesArg(value), Payload.HEADER_BYTES, 1024 * 1024 * 1024);
                case "--segments" -> segments = intArg(name, value, 1,
                        mode.equals("bench") ? MAX_BENCH_SEGMENTS : MAX_SEGMENTS);
                case "--writers" -> writers = intArg(name, value, 1, MAX_WRITERS);
                case "--readers" -> readers = intArg(name, value, 1, 256);
                case "--timeout-seconds" -> timeout = intArg(name, value, 1, 24 * 3600);
                case "--latency-samples" -> latency = intArg(name, value, 0, 10_000_000);
                case "--latency-thread" -> virtualLatencyThread = switch (value.toLowerCase(java.util.Locale.ROOT)) {
                    case "platform" -> false;
                    case "virtual" -> true;
                    default -> throw new UsageException("--latency-thread must be platform or virtual, but is '"
                            + value + "'");
                };
                case "--warmup-events" -> warmup = intArg(name, value, 0, Integer.MAX_VALUE / 2);
                case "--parts" -> parts = partsArg(value);
                case "--action" -> {
                    if (!List.of("write", "read", "write-open", "commit").contains(value)) {
                        throw new UsageException("--action must be write, read, write-open or commit, but is '"
                                + value + "'");
                    }
                    action = value;
                }
                case "--writer" -> writer = streamName(name, value);
                case "--txn" -> {
                    try {
                        txnId = java.util.UUID.fromString(value).toString();
                    } catch (IllegalArgumentException e) {
                        throw new UsageException("--txn needs a transaction id (a UUID), but got '" + value + "'");
                    }
                }
                case "--lease-seconds" -> leaseSeconds = intArg(name, value, 10, 600);
                case "--transactions" -> transactions = intArg(name, value, 0, 10_000_000);
                case "--txn-events" -> txnEvents = intArg(name, value, 1, 10_000_000);
                case "--role" -> role = roleArg(value);
                case "--kvt-concurrency" -> kvtConcurrency = intArg(name, value, 1, 10_000);
                case "--kvt-batch" -> kvtBatch = intArg(name, value, 1, 256);
                default -> throw new UsageException("unknown option '" + name + "'");
            }
        }
        if (mode.equals("route") && (keysFile == null || !scopeGiven || !streamGiven)) {
            throw new UsageException("route needs --scope, --stream (an existing stream) and --keys-file");
        }
        if (mode.equals("txn-interop") && (action == null || !scopeGiven || !streamGiven)) {
            throw new UsageException("txn-interop needs --action, --scope and --stream (an existing stream)");
        }
        if ("commit".equals(action) && txnId == null) {
            throw new UsageException("txn-interop --action commit needs --txn ID");
        }
        if (mode.equals("watermarks") && (role == null || !scopeGiven || !streamGiven)) {
            throw new UsageException("watermarks needs --scope, --stream (an existing stream) and --role write|read");
        }
        boolean large = mode.equals("large-events");
        if (large && (role == null || !scopeGiven || !streamGiven)) {
            throw new UsageException("large-events needs --role write|read, --scope and --stream (an existing stream)");
        }
        boolean bytes = mode.equals("bytestream-interop");
        if (bytes && (role == null || !scopeGiven || !streamGiven)) {
            throw new UsageException("bytestream-interop needs --role write|read, --scope and --stream (an existing "
                    + "stream of one segment)");
        }
        boolean kvt = mode.equals("kvt-interop");
        if (kvt && (role == null || !scopeGiven || !streamGiven)) {
            throw new UsageException("kvt-interop needs --role write|read, --scope and --stream (an existing table)");
        }
        boolean sync = mode.equals("sync-interop");
        if (sync && (role == null || !scopeGiven || !streamGiven)) {
            throw new UsageException("sync-interop needs --role write|read, --scope and --stream (existing one-segment"
                    + " streams S/T and S/T-rev)");
        }
        if (size > Payload.MAX_EVENT_BYTES && !large && !bytes && !(mode.equals("bench") && largeEvents)) {
            throw new UsageException("--size over " + Payload.MAX_EVENT_BYTES + " bytes needs large events: mode "
                    + "large-events, or bench --large-events");
        }
        if (virtualLatencyThread && (!mode.equals("bench") || writers > 1 || kvtBench || batch || byteStream
                || transactions > 0)) {
            throw new UsageException("--latency-thread applies to bench's plain workload (its awaited writes)");
        }
        if (virtualLatencyThread && Runtime.version().feature() < 21) {
            throw new UsageException("--latency-thread virtual needs a JDK 21 or newer, but this is "
                    + Runtime.version() + " (set SLUICE_COMPAT_JAVA_HOME)");
        }
        if (pooling && writers < 2) {
            throw new UsageException("--connection-pooling goes with --writers W (more than 1)");
        }
        if (writers > 1) {
            scaleArgs(mode, transactions, kvtBench, batch, byteStream, largeEvents, warmup);
        }
        boolean batchRead = mode.equals("batch-read");
        if (batchRead && (!scopeGiven || !streamGiven)) {
            throw new UsageException("batch-read needs --scope and --stream (an existing stream)");
        }
        boolean retention = mode.equals("retention");
        if (retention && (!scopeGiven || !streamGiven)) {
            throw new UsageException("retention needs --scope and --stream (an existing stream with a retention policy)");
        }
        if (mode.equals("autoscale") && (!scopeGiven || !streamGiven)) {
            throw new UsageException("autoscale needs --scope and --stream (an existing stream scaled by event rate)");
        }
        boolean existingStream = retention || mode.equals("route") || mode.equals("txn-interop") || mode.equals("watermarks")
                || large || bytes || kvt || batchRead || sync || mode.equals("autoscale");
        return new Options(mode, controller, scope, stream, events, size, segments, readers, timeout, latency,
                warmup, parts, keep || existingStream, keysFile, action, transactions, txnEvents, writer,
                txnId, leaseSeconds, role, largeEvents, byteStream, kvtBench, kvtConcurrency, kvtBatch, batch,
                writers, pooling, virtualLatencyThread);
    }

    /**
     * Rejects what {@code --writers W} (W > 1, the scale workload) cannot be combined with: other modes, the other
     * bench variants, and the plain bench's options that the scale workload does not have.
     */
    private static void scaleArgs(String mode, int transactions, boolean kvt, boolean batch, boolean byteStream,
                                  boolean largeEvents, int warmup) throws UsageException {
        if (!mode.equals("bench")) {
            throw new UsageException("--writers is a bench option (mode " + mode + " has one writer)");
        }
        List<String> clash = new ArrayList<>();
        if (transactions > 0) {
            clash.add("--transactions");
        }
        if (kvt) {
            clash.add("--kvt");
        }
        if (batch) {
            clash.add("--batch");
        }
        if (byteStream) {
            clash.add("--byte-stream");
        }
        if (largeEvents) {
            clash.add("--large-events");
        }
        if (warmup > 0) {
            clash.add("--warmup-events");
        }
        if (!clash.isEmpty()) {
            throw new UsageException("--writers over 1 (the scale workload) cannot be combined with "
                    + String.join(", ", clash));
        }
    }

    private static String roleArg(String value) throws UsageException {
        if (!value.equals("write") && !value.equals("read")) {
            throw new UsageException("--role must be write or read, but is '" + value + "'");
        }
        return value;
    }

    private static URI controllerUri(String value) throws UsageException {
        try {
            URI uri = new URI(value.trim());
            if (!"tcp".equals(uri.getScheme()) && !"tls".equals(uri.getScheme())
                    || uri.getHost() == null || uri.getPort() < 1) {
                throw new UsageException("--controller must look like tcp://127.0.0.1:9090, but is '" + value + "'");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new UsageException("--controller is not a URI: '" + value + "' (" + e.getMessage() + ")");
        }
    }

    private static String streamName(String option, String value) throws UsageException {
        // Pravega's rule for user stream and scope names: letters, digits, '-' and '.'
        if (!value.matches("[A-Za-z0-9][A-Za-z0-9.\\-]*")) {
            throw new UsageException(option + " '" + value + "' is not a valid name (letters, digits, '-', '.')");
        }
        return value;
    }

    /** {@code 12MiB} as {@code 12582912} (units KiB, MiB, GiB, any case); anything else as it is. */
    private static String bytesArg(String value) {
        String v = value.trim();
        String[] units = {"kib", "mib", "gib"};
        for (int u = 0; u < units.length; u++) {
            if (v.length() > 3 && v.toLowerCase(Locale.ROOT).endsWith(units[u])) {
                try {
                    return Long.toString(Long.parseLong(v.substring(0, v.length() - 3).trim()) << (10 * (u + 1)));
                } catch (NumberFormatException e) {
                    return value;
                }
            }
        }
        return value;
    }

    private static int intArg(String option, String value, int min, int max) throws UsageException {
        long v;
        try {
            v = Long.parseLong(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a whole number, but got '" + value + "'");
        }
        if (v < min || v > max) {
            throw new UsageException(option + " must be between " + min + " and " + max + ", but is " + v);
        }
        return (int) v;
    }

    private static Set<String> partsArg(String value) throws UsageException {
        Set<String> parts = new LinkedHashSet<>();
        for (String p : value.toLowerCase(Locale.ROOT).split(",")) {
            String part = p.trim();
            if (part.isEmpty()) {
                continue;
            }
            if (!ALL_PARTS.contains(part)) {
                throw new UsageException("--parts: unknown part '" + part + "' (known: "
                        + String.join(",", ALL_PARTS) + ")");
            }
            parts.add(part);
        }
        if (parts.isEmpty()) {
            throw new UsageException("--parts names no part");
        }
        // run in the canonical order whatever the order given
        Set<String> ordered = new LinkedHashSet<>();
        for (String p : ALL_PARTS) {
            if (parts.contains(p)) {
                ordered.add(p);
            }
        }
        return ordered;
    }
}
