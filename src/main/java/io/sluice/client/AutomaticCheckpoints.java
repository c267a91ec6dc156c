package io.sluice.client;

import java.util.concurrent.ThreadLocalRandom;

import io.sluice.readergroup.Membership;
import io.sluice.readergroup.ReaderGroupState;

/**
 * A group's automatic checkpoints ({@code ReaderGroupConfig.automaticCheckpointIntervalMillis}): the group's leader
 * ({@link Membership#isLeader}: its first reader by id) starts one when none is in progress and the interval passed
 * since the last checkpoint ({@link Membership#automaticCheckpointDue}, judged on the creators' clocks). They are
 * silent: readers pass them as soon as they see them, without handing out a checkpoint read ({@link GroupMember}),
 * and what they record is where an ack-on-checkpoint reader's segments resume if it dies. Used by the membership
 * thread; thread-safe.
 */
final class AutomaticCheckpoints {
    private final GroupStateClient state;

    AutomaticCheckpoints(GroupStateClient state) {
        this.state = state;
    }

    /**
     * Starts an automatic checkpoint (named {@code auto-} and a random number) if one is due in {@code s}; call it on
     * the leader only. Blocks for the update.
     *
     * @param s the latest state
     * @return the state after (or {@code s} if none was due)
     */
    ReaderGroupState startIfDue(ReaderGroupState s) {
        if (!Membership.automaticCheckpointDue(s, System.currentTimeMillis())) {
            return s;
        }
        String name = "auto-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        return state.update(st -> Membership.startAutomaticCheckpoint(st, name, System.currentTimeMillis()));
    }
}
