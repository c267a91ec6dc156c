package io.sluice.server;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * A well-behaved client beside a fuzzer: a Sluice writer writes numbered events to a stream of its own while a reader
 * of a reader group reads them back and checks each is the next one (one segment, one writer: exactly in order, none
 * lost, none twice). At most {@link #MAX_UNREAD} events are ahead of the reader. The first failure is kept, and
 * {@link #sinceProgress()} says how long ago the reader last verified an event, so a stalled server shows.
 */
final class Canary implements AutoCloseable {
    static final String SCOPE = "fuzzcanary";
    static final String STREAM = "events";
    private static final int MAX_UNREAD = 500;

    private final SluiceClient client;
    private final EventStreamWriter<String> writer;
    private final EventStreamReader<String> reader;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore window = new Semaphore(MAX_UNREAD);
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong verified = new AtomicLong();
    private final AtomicLong lastProgress = new AtomicLong(System.nanoTime());
    private final AtomicReference<String> failure = new AtomicReference<>();
    private volatile boolean writing = true;
    private volatile boolean reading = true;
    /** Counted down when the write loop has ended: only then is {@link #written} final. */
    private final java.util.concurrent.CountDownLatch writeLoopEnded = new java.util.concurrent.CountDownLatch(1);

    /** Creates the canary's stream and reader group (names made unique by {@code suffix}) and starts both sides. */
    Canary(String controllerUri, String suffix) {
        // one pooled connection: the fuzz test counts the server's connections, and a pool that may grow opens one
        // whenever a new flow finds every connection carrying one (a lazily started segment writer, a checkpoint's
        // calls), which would look like a connection the fuzzed input left open
        client = SluiceClient.connect(ClientConfig.builder(controllerUri).maxConnectionsPerSegmentStore(1).build());
        String stream = STREAM + suffix;
        client.streamManager().createScope(SCOPE);
        client.streamManager().createStream(SCOPE, stream,
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        String group = "canary" + suffix;
        client.readerGroupManager(SCOPE).createReaderGroup(group,
                ReaderGroupConfig.builder().stream(SCOPE + "/" + stream).build());
        writer = client.newWriter(SCOPE, stream, Serializers.utf8());
        reader = client.newReader(SCOPE, group, "canary-reader", Serializers.utf8());
        threads.submit(this::writeLoop);
        threads.submit(this::readLoop);
    }

    private void writeLoop() {
        try {
            while (writing) {
                if (!window.tryAcquire(200, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                long n = written.get() + 1;
                writer.write("canary", "canary-" + n);
                written.set(n);
                if (n % 16 == 0) {
                    writer.flush();
                }
            }
            writer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            fail("writer failed after " + written.get() + " events: " + e);
        } finally {
            writeLoopEnded.countDown();
        }
    }

    private void readLoop() {
        try {
            while (reading) {
                EventRead<String> read = reader.readNextEvent(Duration.ofMillis(200));
                if (!read.hasEvent()) {
                    continue;
                }
                String expected = "canary-" + (verified.get() + 1);
                if (!expected.equals(read.event())) {
                    fail("reader expected " + expected + " but read " + read.event());
                    return;
                }
                verified.incrementAndGet();
                lastProgress.set(System.nanoTime());
                window.release();
            }
        } catch (RuntimeException e) {
            fail("reader failed after " + verified.get() + " events: " + e);
        }
    }

    private void fail(String why) {
        failure.compareAndSet(null, why);
        writing = false;
        reading = false;
    }

    /** @return the first failure, or {@code null} */
    String failure() {
        return failure.get();
    }

    /** @return the events read back and verified so far */
    long verified() {
        return verified.get();
    }

    /** @return the time since the reader last verified an event */
    Duration sinceProgress() {
        return Duration.ofNanos(System.nanoTime() - lastProgress.get());
    }

    /**
     * Stops writing and waits until the reader has verified every written event.
     *
     * @return {@code null} when it has, or what went wrong
     */
    String finish(Duration timeout) {
        writing = false;
        Deadline deadline = Deadline.after(timeout);
        try {
            // an event the reader verified may have been written but not yet counted: wait for the count to be final
            if (!writeLoopEnded.await(deadline.remaining().toMillis(), TimeUnit.MILLISECONDS)) {
                return "the write loop did not end within " + timeout;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        while (failure() == null && verified.get() < written.get() && !deadline.expired()) {
            Thread.onSpinWait();
            Thread.yield();
        }
        reading = false;
        if (failure() != null) {
            return failure();
        }
        return verified.get() == written.get() ? null
                : "only " + verified.get() + " of " + written.get() + " written events were read back";
    }

    @Override
    public void close() {
        writing = false;
        reading = false;
        threads.shutdown();
        try {
            if (!threads.awaitTermination(20, TimeUnit.SECONDS)) {
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            reader.close();
            writer.close();
        } finally {
            client.close();
        }
    }
}
