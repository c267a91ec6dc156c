package io.sluice.admin;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.sluice.stream.Checkpoint;
import io.sluice.stream.Position;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;

/**
 * A reader group's shared state, as seen by anyone in any process: its readers, checkpoints and positions. The
 * state lives on the server (the stream {@code scope/_RG<name>}), so every process that opens the group sees the same
 * group. The state is in Sluice's own format: a group is shared by Sluice readers only, not with Pravega's Java
 * client.
 *
 * <p>Thread-safe. Every method except {@link #scope()}, {@link #name()} and {@link #config()} blocks for the I/O it
 * needs (reading, and for changes conditionally appending to, the group's state).
 */
public interface ReaderGroup extends AutoCloseable {

    /** @return the group's scope */
    String scope();

    /** @return the group's name */
    String name();

    /** @return the group's configuration as registered with the controller */
    ReaderGroupConfig config();

    /**
     * Starts a checkpoint and blocks until every reader has passed it. A reader passes it once it has handed out
     * every event before it: {@code readNextEvent} returns a read with {@link io.sluice.stream.EventRead#checkpointName}
     * set, and the reader reports the checkpoint on its next call. Readers that join meanwhile need not pass it;
     * readers that leave or go offline meanwhile count as passed at the position where their segments went back.
     *
     * @param name a unique name for the checkpoint (among those in progress and the last few completed)
     * @param timeout how long to wait for every reader
     * @return the checkpoint: a stream cut per stream, consistent with what the readers handed out before passing it
     * @throws IllegalArgumentException if the name is empty or already used
     * @throws io.sluice.errors.PreconditionFailedException if the group's limit of checkpoints in progress
     *     ({@link ReaderGroupConfig#maxOutstandingCheckpointRequest()}) is reached
     * @throws io.sluice.errors.DeadlineExceededException if some reader did not pass it in time (the message names
     *     them; the checkpoint stays in progress)
     * @throws io.sluice.errors.SluiceException if a reset cancelled the checkpoint, or the state could not be updated
     */
    Checkpoint initiateCheckpoint(String name, Duration timeout);

    /**
     * @return the most recently completed checkpoint (automatic ones included), if the group remembers one
     */
    Optional<Checkpoint> lastCheckpoint();

    /**
     * Makes every reader start again from {@code checkpoint}: readers drop what they hold (including buffered events)
     * and the group's segments are handed out again from the checkpoint's positions. Checkpoints in progress are
     * cancelled. Returns once the reset is recorded; readers follow on their next call.
     */
    void resetToCheckpoint(Checkpoint checkpoint);

    /**
     * Makes every reader start again from these stream cuts ({@link StreamCut#UNBOUNDED}: the stream's head); streams
     * of the group not in {@code cuts} start again from their configured starting cut.
     *
     * @throws IllegalArgumentException if a cut names a stream the group does not read, or is not a valid cut of it
     */
    void resetToStreamCuts(Map<ScopedStream, StreamCut> cuts);

    /** @return the ids of the readers in the group now */
    Set<String> onlineReaders();

    /**
     * Removes a reader that is gone (crashed, or will not come back): its segments go to the other readers from
     * {@code lastPosition} where it names them; otherwise from its last checkpoint if it counted events as processed
     * only at checkpoints ({@link io.sluice.stream.ReaderConfig.AckMode#ON_CHECKPOINT}), else from where it last
     * reported. Does nothing if there is no such reader.
     *
     * @param readerId the reader
     * @param lastPosition where its segments resume, or {@code null}
     */
    void readerOffline(String readerId, Position lastPosition);

    /**
     * @return the group's current read positions per stream: what every reader reported last (with its heartbeat),
     *     and where unassigned segments resume
     */
    Map<ScopedStream, StreamCut> streamCuts();

    /**
     * Consumption-based retention, manual release: tells the controller that the group no longer needs the data
     * before these cuts (one {@code updateSubscriberStreamCut} per stream). The controller truncates a stream only
     * behind what every subscribed group has released, within the stream's retention limits (see docs/retention.md).
     * A cut must not move backwards.
     *
     * @param cuts per stream of the group, a bounded cut of it
     * @throws UnsupportedOperationException if the group's retention type is not
     *     {@link io.sluice.stream.ReaderGroupConfig.StreamDataRetention#MANUAL_RELEASE_AT_USER_STREAMCUT}
     * @throws IllegalArgumentException if a cut names a stream the group does not read, is unbounded, or the controller
     *     finds it invalid (for example behind the cut reported before)
     */
    void updateRetentionStreamCut(Map<ScopedStream, StreamCut> cuts);

    /** @return which reader owns which segments now (readers without segments map to an empty set) */
    Map<String, Set<Segment>> segmentAssignments();

    /** Releases local resources (the group itself stays). Idempotent. */
    @Override
    void close();
}
