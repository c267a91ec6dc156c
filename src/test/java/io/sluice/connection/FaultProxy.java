package io.sluice.connection;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.common.Endpoint;
import io.sluice.common.Threads;

/**
 * A fault-injecting TCP proxy on loopback in front of one server (tests), for the reliability suite
 * (docs/reliability.md, "Faults on the network"). Every connection a client opens to {@link #endpoint()} gets a
 * connection of its own to the target and two virtual threads copying bytes, one per direction. Four faults can be
 * injected, by hand or on a {@link Schedule}:
 *
 * <ul>
 *   <li>{@link Fault#DELAY delay}: for a while, every chunk of bytes read in one direction is forwarded only a fixed
 *       time after it arrived (a slow or congested link); nothing is lost;
 *   <li>{@link Fault#DROP drop}: one connection is cut silently mid-stream: the next chunk in either direction is
 *       forwarded only in part (a frame arrives half) and both sockets are closed with an orderly end, so the bytes
 *       in flight are lost and neither side is told why;
 *   <li>{@link Fault#CUT cut}: every open connection is reset on both sides (RST), the way a crashed peer or a
 *       failed link answers;
 *   <li>{@link Fault#BLACK_HOLE black-hole}: one connection stops forwarding in both directions while both of its
 *       sockets stay open (what arrives is read and discarded), until one side gives up on its own — the client's
 *       keep-alive, a request timeout — and closes it.
 * </ul>
 *
 * <p>A schedule is drawn from a seed: the same seed gives the same sequence of faults, gaps and parameters (which
 * connection a fault hits depends on which are open at the time). The proxy counts the faults injected and the
 * connections they hit ({@link #counts()}). Unlike {@link LoopbackProxy}, whose simpler API many tests use, this one
 * does not refuse or hold back on command. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final int BUFFER = 64 * 1024;

    /** The faults this proxy injects. */
    public enum Fault {
        /** Bytes in one direction held back for a fixed time, for a while. */
        DELAY,
        /** One connection cut silently mid-stream (half a chunk forwarded, then an orderly close). */
        DROP,
        /** Every open connection reset on both sides. */
        CUT,
        /** One connection no longer forwarded, its sockets kept open until a side closes. */
        BLACK_HOLE
    }

    /** Which way bytes flow. */
    public enum Direction {
        /** From the client to the server (requests, appends). */
        TO_SERVER,
        /** From the server to the client (replies, acknowledgements, reads). */
        TO_CLIENT
    }

    /**
     * A seeded schedule of faults: the gap before each fault is drawn uniformly from {@code [minGap, maxGap]}, the
     * fault by its weight (a weight of 0 leaves it out), a delay's length from {@code [1 ms, maxDelay]} and its span
     * from {@code [minGap, maxGap]}.
     *
     * @param seed the seed of the schedule (printed by whoever reports a failure)
     * @param minGap the shortest time between two faults
     * @param maxGap the longest time between two faults
     * @param maxDelay the longest a delay holds bytes back
     * @param weights each fault's weight; missing faults weigh 0
     */
    public record Schedule(long seed, Duration minGap, Duration maxGap, Duration maxDelay,
                           Map<Fault, Integer> weights) {
        /** Checks the values. */
        public Schedule {
            Objects.requireNonNull(minGap, "minGap");
            Objects.requireNonNull(maxGap, "maxGap");
            Objects.requireNonNull(maxDelay, "maxDelay");
            if (minGap.isNegative() || minGap.isZero() || maxGap.compareTo(minGap) < 0) {
                throw new IllegalArgumentException("need 0 < minGap <= maxGap: " + minGap + ", " + maxGap);
            }
            if (maxDelay.isNegative() || maxDelay.isZero()) {
                throw new IllegalArgumentException("maxDelay must be positive: " + maxDelay);
            }
            weights = Map.copyOf(weights);
            if (weights.values().stream().anyMatch(w -> w < 0)
                    || weights.values().stream().mapToInt(Integer::intValue).sum() == 0) {
                throw new IllegalArgumentException("weights must be non-negative and not all 0: " + weights);
            }
        }

        /**
         * The mix of the reliability suite: every few hundred milliseconds a fault, mostly cuts and drops, some
         * delays of up to 200 ms, and now and then a black-hole.
         *
         * @param seed the seed
         * @return the schedule
         */
        public static Schedule mixed(long seed) {
            return new Schedule(seed, Duration.ofMillis(150), Duration.ofMillis(600), Duration.ofMillis(200),
                    Map.of(Fault.CUT, 10, Fault.DROP, 10, Fault.DELAY, 8, Fault.BLACK_HOLE, 1));
        }
    }

    /** A connection through the proxy: the client's socket, the one to the target, and its fault state. */
    private static final class Pair {
        final long id;
        final Socket client;
        final Socket upstream;
        /** Set by {@link FaultProxy#drop}: the next chunk goes half, then both sockets close. */
        volatile boolean dropping;
        /** Set by {@link FaultProxy#blackHole}: nothing is forwarded any more. */
        volatile boolean blackHoled;

        Pair(long id, Socket client, Socket upstream) {
            this.id = id;
            this.client = client;
            this.upstream = upstream;
        }

        void close() {
            closeQuietly(client);
            closeQuietly(upstream);
        }

        void reset() {
            // both set to reset before either closes: the pump that sees the first one go closes the other, and that
            // close must be a reset too
            lingerZero(client);
            lingerZero(upstream);
            close();
        }
    }

    private final ServerSocket server;
    private final Endpoint target;
    private final List<Pair> open = new CopyOnWriteArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Map<Fault, AtomicInteger> injected = new EnumMap<>(Fault.class);
    private final Map<Fault, AtomicInteger> hit = new EnumMap<>(Fault.class);
    /** Per {@link Direction}: until when (nanoTime) a delay is in force, and how long it holds bytes back. */
    private final AtomicLong[] delayUntil = {new AtomicLong(), new AtomicLong()};
    private final AtomicLong[] delayNanos = {new AtomicLong(), new AtomicLong()};
    /** Wakes delayed pumps and the schedule when the proxy closes or the schedule stops. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stopped = lock.newCondition();
    private volatile boolean closed;
    private volatile boolean scheduleStopped;
    private volatile Thread scheduleThread;
    /** A reply type to cut before ({@link #cutBeforeReply}), or 0; taken by the first pump that meets one. */
    private final AtomicInteger cutBeforeReply = new AtomicInteger();

    /**
     * @param target where to forward connections
     * @throws IOException if the listening socket cannot be opened
     */
    public FaultProxy(Endpoint target) throws IOException {
        this.target = Objects.requireNonNull(target, "target");
        for (Fault f : Fault.values()) {
            injected.put(f, new AtomicInteger());
            hit.put(f, new AtomicInteger());
        }
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Threads.startVirtual("fault-proxy-accept", this::acceptLoop);
    }

    /** @return where clients connect */
    public Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /** @return where the proxy forwards to */
    public Endpoint target() {
        return target;
    }

    /** @return connections accepted and forwarded so far */
    public int connections() {
        return accepted.get();
    }

    /** @return connections open through the proxy now (black-holed ones included) */
    public int openConnections() {
        return open.size();
    }

    /** @return how many times each fault was injected (a delay counts once, whatever it delays) */
    public Map<Fault, Integer> counts() {
        Map<Fault, Integer> m = new EnumMap<>(Fault.class);
        injected.forEach((f, n) -> m.put(f, n.get()));
        return m;
    }

    /** @return how many connections each fault hit (for a delay: the connections open when it began) */
    public Map<Fault, Integer> connectionsHit() {
        Map<Fault, Integer> m = new EnumMap<>(Fault.class);
        hit.forEach((f, n) -> m.put(f, n.get()));
        return m;
    }

    /** @return every fault injected so far, all kinds */
    public int totalFaults() {
        return injected.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /**
     * From now until {@code span} has passed, every chunk read in {@code direction} is forwarded {@code delay}
     * after it arrived. A later delay in the same direction replaces this one.
     */
    public void delay(Direction direction, Duration delay, Duration span) {
        int d = direction.ordinal();
        delayNanos[d].set(delay.toNanos());
        delayUntil[d].set(System.nanoTime() + span.toNanos());
        count(Fault.DELAY, open.size());
    }

    /**
     * Cuts one open connection silently mid-stream: the next chunk either way is forwarded only in part and both
     * sockets are closed with an orderly end (if no chunk comes before the next fault of a schedule, or
     * {@link #closeDropped()}, it is closed then).
     *
     * @param random picks the connection
     * @return whether there was a connection to drop
     */
    public boolean drop(Random random) {
        Pair p = pick(random);
        if (p == null) {
            count(Fault.DROP, 0);
            return false;
        }
        p.dropping = true;
        count(Fault.DROP, 1);
        return true;
    }

    /** Closes the connections {@link #drop} marked that no chunk has ended yet. */
    public void closeDropped() {
        for (Pair p : open) {
            if (p.dropping && open.remove(p)) {
                p.close();
            }
        }
    }

    /**
     * Resets every open connection on both sides.
     *
     * @return how many connections were cut
     */
    public int cut() {
        int n = 0;
        for (Pair p : open) {
            if (open.remove(p)) {
                p.reset();
                n++;
            }
        }
        count(Fault.CUT, n);
        return n;
    }

    /**
     * Stops forwarding one open connection, either way, keeping its sockets open until one side closes.
     *
     * @param random picks the connection
     * @return whether there was a connection to black-hole
     */
    public boolean blackHole(Random random) {
        Pair p = pick(random);
        if (p == null) {
            count(Fault.BLACK_HOLE, 0);
            return false;
        }
        p.blackHoled = true;
        count(Fault.BLACK_HOLE, 1);
        return true;
    }

    /**
     * Arms a one-shot cut: the next reply frame of wire type {@code type} the server sends, on any connection, is
     * not forwarded; that connection is reset on both sides instead (so the server did what the request asked and
     * the client never hears it). Counted as a {@link Fault#CUT cut}.
     *
     * @param type the reply's wire type code (e.g. 59, SegmentsMerged)
     */
    public void cutBeforeReply(int type) {
        if (type == 0) {
            throw new IllegalArgumentException("type 0 (Event) is no reply");
        }
        cutBeforeReply.set(type);
    }

    /** @return whether a {@link #cutBeforeReply} is still armed */
    public boolean cutBeforeReplyArmed() {
        return cutBeforeReply.get() != 0;
    }

    /**
     * Follows the frames ({@code type i32 | length i32 | payload}) of one connection's replies across chunks, to
     * find where a frame of a given type begins. Confined to the connection's server-to-client pump.
     */
    private static final class ReplyFrames {
        private final byte[] header = new byte[8];
        private int headerBytes;
        private long payloadLeft;

        /** @return the offset in {@code chunk[0, n)} where a frame of {@code type} begins, or -1 */
        int find(byte[] chunk, int n, int type) {
            int i = 0;
            while (i < n) {
                if (payloadLeft > 0) {
                    int skip = (int) Math.min(payloadLeft, n - i);
                    payloadLeft -= skip;
                    i += skip;
                    continue;
                }
                if (headerBytes == 0 && type != 0 && n - i >= 4 && readInt(chunk, i) == type) {
                    return i;
                }
                header[headerBytes++] = chunk[i++];
                if (headerBytes == 8) {
                    if (type != 0 && readInt(header, 0) == type) {
                        return Math.max(0, i - 8);   // a header begun in the last chunk: its first bytes went
                    }
                    payloadLeft = readInt(header, 4) & 0xFFFFFFFFL;
                    headerBytes = 0;
                }
            }
            return -1;
        }

        private static int readInt(byte[] b, int at) {
            return ((b[at] & 0xFF) << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
        }
    }

    /** A connection that is forwarding normally, chosen by {@code random} in the order they were accepted. */
    private Pair pick(Random random) {
        List<Pair> candidates = new ArrayList<>();
        for (Pair p : open) {
            if (!p.dropping && !p.blackHoled) {
                candidates.add(p);
            }
        }
        candidates.sort((a, b) -> Long.compare(a.id, b.id));
        return candidates.isEmpty() ? null : candidates.get(random.nextInt(candidates.size()));
    }

    private void count(Fault fault, int connections) {
        injected.get(fault).incrementAndGet();
        hit.get(fault).addAndGet(connections);
    }

    /**
     * Starts injecting faults on {@code schedule} on a thread of its own, until {@link #stopSchedule()} or
     * {@link #close()}.
     *
     * @throws IllegalStateException if a schedule is running already
     */
    public void startSchedule(Schedule schedule) {
        Objects.requireNonNull(schedule, "schedule");
        if (scheduleThread != null) {
            throw new IllegalStateException("a schedule is running already");
        }
        scheduleStopped = false;
        LOG.info("fault schedule in front of {}: seed {}, {}", target, schedule.seed(), schedule);
        scheduleThread = Threads.startVirtual("fault-proxy-schedule", () -> runSchedule(schedule));
    }

    /** Stops the schedule (a delay in force runs out as drawn) and waits for its thread. */
    public void stopSchedule() throws InterruptedException {
        Thread t = scheduleThread;
        if (t == null) {
            return;
        }
        lock.lock();
        try {
            scheduleStopped = true;
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
        t.join();
        scheduleThread = null;
        closeDropped();
    }

    /**
     * One step of a schedule: wait {@code gapNanos}, then inject {@code fault} (a delay in {@code direction} of
     * {@code delayNanos} for {@code spanNanos}).
     */
    public record Step(long gapNanos, Fault fault, Direction direction, long delayNanos, long spanNanos) {
    }

    /**
     * @param schedule the schedule
     * @return its steps, drawn from its seed (the same seed gives the same steps): first each kind of fault with a
     *     weight once, at the shortest gap, so that a short run meets every kind; then faults drawn by weight
     */
    public static Iterator<Step> steps(Schedule schedule) {
        Random random = new Random(schedule.seed());
        List<Fault> bag = new ArrayList<>();
        for (Fault f : Fault.values()) {
            for (int i = 0; i < schedule.weights().getOrDefault(f, 0); i++) {
                bag.add(f);
            }
        }
        long minGap = schedule.minGap().toNanos();
        long maxGap = schedule.maxGap().toNanos();
        // first every kind with a weight once, in an order of the seed's and at the shortest gap, so that even a
        // short run meets each of them; then draws from the bag
        List<Fault> first = new ArrayList<>(new java.util.LinkedHashSet<>(bag));
        java.util.Collections.shuffle(first, random);
        return new Iterator<>() {
            private int round;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Step next() {
                boolean opening = round < first.size();
                Fault fault = opening ? first.get(round++) : bag.get(random.nextInt(bag.size()));
                return new Step(opening ? minGap : between(random, minGap, maxGap), fault,
                        Direction.values()[random.nextInt(2)], between(random, 1_000_000L,
                        schedule.maxDelay().toNanos()), between(random, minGap, maxGap));
            }
        };
    }

    private void runSchedule(Schedule s) {
        Iterator<Step> steps = steps(s);
        // which connection a drop or black-hole hits: a stream of its own, so the steps depend on the seed alone
        Random picks = new Random(~s.seed());
        try {
            while (true) {
                Step step = steps.next();
                if (!pause(step.gapNanos())) {
                    return;
                }
                closeDropped();
                switch (step.fault()) {
                    case DELAY -> delay(step.direction(), Duration.ofNanos(step.delayNanos()),
                            Duration.ofNanos(step.spanNanos()));
                    case DROP -> drop(picks);
                    case CUT -> cut();
                    case BLACK_HOLE -> blackHole(picks);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long between(Random random, long min, long max) {
        return max == min ? min : min + (long) (random.nextDouble() * (max - min));
    }

    /**
     * Waits {@code nanos} (the schedule's gap, or a delay being injected) unless the proxy closes or the schedule
     * stops first.
     *
     * @return false if it stopped
     */
    private boolean pause(long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (left > 0 && !closed && !scheduleStopped) {
                left = stopped.awaitNanos(left);
            }
            return !closed && !scheduleStopped;
        } finally {
            lock.unlock();
        }
    }

    /** Holds a chunk that arrived at {@code arrived} while a delay is in force in its direction. */
    private void holdBack(Direction direction, long arrived) throws InterruptedException {
        int d = direction.ordinal();
        if (arrived - delayUntil[d].get() >= 0) {
            return;
        }
        long left = arrived + delayNanos[d].get() - System.nanoTime();
        if (left <= 0) {
            return;
        }
        lock.lock();
        try {
            while (left > 0 && !closed) {
                left = stopped.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket client = server.accept();
                Socket upstream;
                try {
                    upstream = new Socket();
                    upstream.connect(new InetSocketAddress(target.host(), target.port()), 10_000);
                } catch (IOException e) {
                    // the server is down: the client sees its connection reset, as it would without the proxy
                    reset(client);
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                Pair pair = new Pair(ids.incrementAndGet(), client, upstream);
                open.add(pair);
                accepted.incrementAndGet();
                Threads.startVirtual("fault-proxy-up", () -> pump(pair, client, upstream, Direction.TO_SERVER));
                Threads.startVirtual("fault-proxy-down", () -> pump(pair, upstream, client, Direction.TO_CLIENT));
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** Copies bytes from one socket to the other, applying the pair's faults, until either side ends. */
    private void pump(Pair pair, Socket from, Socket to, Direction direction) {
        byte[] buffer = new byte[BUFFER];
        ReplyFrames frames = direction == Direction.TO_CLIENT ? new ReplyFrames() : null;
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                long arrived = System.nanoTime();
                if (pair.blackHoled) {
                    continue;
                }
                if (frames != null) {
                    int type = cutBeforeReply.get();
                    int at = frames.find(buffer, n, type);
                    if (at >= 0 && cutBeforeReply.compareAndSet(type, 0)) {
                        out.write(buffer, 0, at);
                        out.flush();
                        open.remove(pair);
                        pair.reset();
                        count(Fault.CUT, 1);
                        break;
                    }
                }
                if (pair.dropping) {
                    out.write(buffer, 0, n / 2);
                    out.flush();
                    break;
                }
                holdBack(direction, arrived);
                if (pair.blackHoled) {
                    continue;
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException | InterruptedException e) {
            // cut, or the other side ended
        } finally {
            open.remove(pair);
            pair.close();
        }
    }

    /** Closes with a reset (RST) rather than an orderly end. */
    private static void reset(Socket s) {
        lingerZero(s);
        closeQuietly(s);
    }

    /** Makes closing {@code s} send a reset (RST) rather than an orderly end. */
    private static void lingerZero(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException e) {
            // closed already
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    /** Stops the schedule, stops listening and closes every connection. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            closed = true;
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
        server.close();
        for (Pair p : open) {
            if (open.remove(p)) {
                p.close();
            }
        }
    }
}
