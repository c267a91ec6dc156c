package io.sluice.admin;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import io.sluice.stream.Checkpoint;
import io.sluice.stream.Position;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamCut;

/**
 * A reader group's shared state, as seen by anyone in any process: its readers, checkpoints and positions. The
 * state lives on the server, so every process that opens the group sees the same group. Thread-safe.
 */
public interface ReaderGroup extends AutoCloseable {

    /** @return the group's scope */
    String scope();

    /** @return the group's name */
    String name();

    /** @return the group's configuration */
    ReaderGroupConfig config();

    /**
     * Starts a checkpoint and blocks until every reader has passed it (each reader reports it from
     * {@code readNextEvent} once it has handed out every event before it).
     *
     * @param name a unique name for the checkpoint
     * @param timeout how long to wait for every reader
     * @return the checkpoint: a stream cut per stream
     * @throws io.sluice.errors.DeadlineExceededException if some reader did not pass it in time (it stays pending)
     */
    Checkpoint initiateCheckpoint(String name, Duration timeout);

    /** Makes every reader start again from {@code checkpoint} (they drop what they hold and re-acquire segments). */
    void resetToCheckpoint(Checkpoint checkpoint);

    /** Makes every reader start again from these stream cuts. */
    void resetToStreamCuts(Map<ScopedStream, StreamCut> cuts);

    /** @return the ids of the readers in the group now */
    Set<String> onlineReaders();

    /**
     * Removes a reader that is gone (crashed, or will not come back): its segments go to the other readers, from
     * {@code lastPosition} if given, else from where the reader last reported.
     */
    void readerOffline(String readerId, Position lastPosition);

    /** @return the group's current read positions per stream (what every reader reported last) */
    Map<ScopedStream, StreamCut> streamCuts();

    /** @return which reader owns which segments now */
    Map<String, Set<io.sluice.stream.Segment>> segmentAssignments();

    /** Releases local resources (the group itself stays). */
    @Override
    void close();
}
