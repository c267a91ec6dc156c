package io.sluice.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.sluice.wire.ErrorMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durability pipeline of a {@link SegmentContainer}: changes are written to the log in the order they are
 * submitted, applied (by {@link ContainerChanges}) strictly in log order once durable, and only then completed;
 * queries wait behind the changes submitted before them. Also what happens when the log cannot write (see
 * {@link SegmentContainer}).
 */
final class ContainerPipeline {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentContainer.class);

    /** A change submitted and not yet applied. */
    private static final class Pending {
        final ContainerOp op;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        final List<Runnable> after = new ArrayList<>(0);
        /** Run under the lock right after this change is applied, before the next one (snapshot capture). */
        final List<Runnable> onApplied = new ArrayList<>(0);
        boolean durable;
        /** Why the log could not make this change durable; null if it did. */
        Throwable failed;
        Object value;

        Pending(ContainerOp op) {
            this.op = op;
        }
    }

    private final ContainerState state;
    private final ContainerChanges changes;
    /** Guarded by lock: submitted changes in log order. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    /** Guarded by lock: why the log cannot write; set when an entry failed, cleared when the log resumes. */
    private Throwable cannotWrite;
    /** Guarded by lock: completes when the log accepts appends again (complete while it does). */
    private CompletableFuture<Void> writable = CompletableFuture.completedFuture(null);
    /** Completions of applied changes and their effects, run outside the lock in order by {@link #runCompletions}. */
    private final ConcurrentLinkedQueue<Runnable> completions = new ConcurrentLinkedQueue<>();
    /** Claims on running {@link #completions}: the thread that takes it from 0 runs them until none is left. */
    private final AtomicInteger completing = new AtomicInteger();

    ContainerPipeline(ContainerState state, ContainerChanges changes) {
        this.state = state;
        this.changes = changes;
    }

    /** See {@link SegmentContainer#submit}. */
    CompletableFuture<Object> submit(ContainerOp op) {
        // a container without a log (in memory) keeps no entries: encoding one would copy every append for nothing
        byte[] entry = state.log == SegmentContainer.NO_LOG ? null : ContainerOp.encode(op);
        Pending p = new Pending(op);
        CompletableFuture<Void> durable;
        state.lock.lock();
        try {
            if (cannotWrite != null) {
                // nothing reaches the log until it resumes: the future is new, so completing it runs no callback here
                p.result.complete(failureResult(op, cannotWrite));
                return p.result;
            }
            if (op instanceof ContainerOp.Append a && state.failedWriter(a.segment(), a.writerId())) {
                p.result.complete(new SegmentContainer.AppendResult.Refused(new ErrorMessage(a.requestId(), a.segment(),
                        "the segment store lost earlier appends of writer " + a.writerId() + " to "
                                + WireText.abbreviate(a.segment())
                                + " (it could not write them); set up the appends again to resend them",
                        ErrorMessage.ErrorCode.UNSPECIFIED)));
                return p.result;
            }
            pending.add(p);
            // appended under the lock so that log order is the order of `pending`
            try {
                durable = state.log.append(entry);
            } catch (RuntimeException e) {
                // answered like an entry the log could not write, so `pending` never holds one that nothing completes
                durable = CompletableFuture.failedFuture(e);
            }
        } finally {
            state.lock.unlock();
        }
        durable.whenComplete((ok, err) -> onDurable(p, err));
        return p.result;
    }

    private void onDurable(Pending p, Throwable err) {
        boolean resume = false;
        state.lock.lock();
        try {
            p.durable = true;
            if (err != null) {
                p.failed = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
                if (cannotWrite == null) {
                    cannotWrite = p.failed;
                    writable = new CompletableFuture<>();
                    resume = true;
                    LOG.error("segment container {}: the write log cannot write ({}); answering changes with an error"
                            + " until it can again", state.id, reason(p.failed));
                }
            }
            List<Runnable> effects = new ArrayList<>();
            List<Pending> done = new ArrayList<>();
            // in log order; a failed entry is not in the log (the log cut it off), so it is skipped here too and the
            // state stays what a replay of the log gives
            while (!pending.isEmpty() && pending.peek().durable) {
                Pending head = pending.poll();
                if (head.failed == null) {
                    head.value = changes.apply(head.op, effects);
                    state.observer.applied(head.op, head.value, state.segments.get(head.op.segment()));
                } else {
                    head.value = failureResult(head.op, head.failed);
                    if (head.op instanceof ContainerOp.Append a) {
                        state.writerFailed(a.segment(), a.writerId());
                    }
                }
                head.onApplied.forEach(Runnable::run);
                done.add(head);
                effects.addAll(head.after);
            }
            // queued under the lock, so in the order the changes were applied
            for (Pending d : done) {
                completions.add(() -> d.result.complete(d.value));
            }
            completions.addAll(effects);
        } finally {
            state.lock.unlock();
        }
        if (resume) {
            state.log.resume().whenComplete((ok, e) -> resumed(e));
        }
        runCompletions();
    }

    /** The log accepts appends again (or gave up: the server is closing). */
    private void resumed(Throwable err) {
        CompletableFuture<Void> w;
        state.lock.lock();
        try {
            if (err != null) {
                LOG.debug("segment container {}: the write log did not resume: {}", state.id, err.toString());
                return;
            }
            cannotWrite = null;
            w = writable;
        } finally {
            state.lock.unlock();
        }
        LOG.info("segment container {}: the write log writes again; accepting changes", state.id);
        w.complete(null);
    }

    /** @return completes when the container accepts changes (at once unless its log cannot write now) */
    CompletableFuture<Void> writable() {
        return state.locked(() -> writable.copy());
    }

    /** The answer to a change that the log could not make durable. */
    private static Object failureResult(ContainerOp op, Throwable why) {
        ErrorMessage reply = cannotWriteReply(ContainerChanges.requestIdOf(op), op.segment(), why);
        return op instanceof ContainerOp.Append ? new SegmentContainer.AppendResult.Refused(reply) : reply;
    }

    /** See {@link SegmentContainer#cannotWriteReply}. */
    static ErrorMessage cannotWriteReply(long requestId, String segment, Throwable why) {
        return new ErrorMessage(requestId, segment, "the segment store cannot write: " + reason(why)
                + " (it accepts changes again once it can)", ErrorMessage.ErrorCode.UNSPECIFIED);
    }

    /** @return the innermost message of a failure, starting lower-case ("no space left on device") */
    static String reason(Throwable why) {
        Throwable t = why;
        String message = null;
        while (t != null) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
            t = t.getCause();
        }
        if (message == null) {
            return why.getClass().getSimpleName();
        }
        String m = message.strip();
        return m.length() > 1 && Character.isUpperCase(m.charAt(0)) && Character.isLowerCase(m.charAt(1))
                ? Character.toLowerCase(m.charAt(0)) + m.substring(1) : m;
    }

    /**
     * Completes changes and runs their effects outside the lock (callers' continuations must never run under it), one
     * thread at a time and in the order the changes were applied. Two threads that applied changes one after the other
     * would otherwise race to complete them, and a connection could acknowledge a writer's later append before an
     * earlier one (the official client fails the connection on that: "Missed ack from server").
     */
    private void runCompletions() {
        if (completing.getAndIncrement() != 0) {
            return;   // the thread that runs them now runs ours too
        }
        int claimed = 1;
        do {
            for (Runnable r = completions.poll(); r != null; r = completions.poll()) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.error("segment container {}: completing a change failed", state.id, e);
                }
            }
            claimed = completing.addAndGet(-claimed);
        } while (claimed != 0);
    }

    /** See {@link SegmentContainer#afterPending}. */
    void afterPending(Runnable action) {
        state.lock.lock();
        try {
            if (!pending.isEmpty()) {
                pending.peekLast().after.add(() -> state.locked(action));
                return;
            }
            action.run();
        } finally {
            state.lock.unlock();
        }
    }

    /** See {@link SegmentContainer#query}. */
    void query(Function<SegmentContainer.QueryContext, Object> query, ReplySink sink) {
        SegmentContainer.QueryContext ctx = new SegmentContainer.QueryContext(state);
        Object now = null;
        boolean ran;
        state.lock.lock();
        try {
            ran = pending.isEmpty();
            if (ran) {
                now = query.apply(ctx);
            } else {
                pending.peekLast().after.add(() -> {
                    Object r = state.locked(() -> query.apply(ctx));
                    if (r != null) {
                        state.deliver(r, sink);
                    }
                });
            }
        } finally {
            state.lock.unlock();
        }
        if (ran && now != null) {
            state.deliver(now, sink);
        }
    }

    /**
     * Under the lock, for a snapshot: why the log cannot write now, or null if it can.
     */
    Throwable cannotWrite() {
        return cannotWrite;
    }

    /**
     * Under the lock, for a snapshot: runs {@code action} under the lock right after the last change submitted so far
     * is applied (at once if none is pending).
     */
    void whenLastApplied(Runnable action) {
        if (pending.isEmpty()) {
            action.run();
        } else {
            pending.peekLast().onApplied.add(action);
        }
    }
}
