package io.sluice.server;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Snapshots of a {@link SegmentContainer}: capturing a consistent image of its state at a point of its log, freeing
 * memory once the image is stored, and restoring the state from an image at recovery.
 */
final class ContainerSnapshots {
    private final ContainerState state;
    private final ContainerPipeline pipeline;

    ContainerSnapshots(ContainerState state, ContainerPipeline pipeline) {
        this.state = state;
        this.pipeline = pipeline;
    }

    /** See {@link SegmentContainer#beginSnapshot}. */
    CompletableFuture<ContainerImage> begin(Runnable switchLog) {
        CompletableFuture<ContainerImage> image = new CompletableFuture<>();
        state.lock.lock();
        try {
            Throwable cannotWrite = pipeline.cannotWrite();
            if (cannotWrite != null) {
                image.completeExceptionally(new IllegalStateException("segment container " + state.id
                        + " cannot write now: " + ContainerPipeline.reason(cannotWrite), cannotWrite));
                return image;
            }
            switchLog.run();
            pipeline.whenLastApplied(() -> image.complete(capture()));
        } finally {
            state.lock.unlock();
        }
        return image;
    }

    /** Under the lock: a consistent copy of the container's state (memory chunks by reference, with their lengths). */
    private ContainerImage capture() {
        List<ContainerImage.SegmentImage> images = new ArrayList<>(state.segments.size());
        for (Segment s : state.segments.values()) {
            images.add(ContainerImage.SegmentImage.of(s));
        }
        return new ContainerImage(state.nextSegmentId, images, List.copyOf(state.droppedSegments));
    }

    /** See {@link SegmentContainer#finishSnapshot}. */
    List<Long> finish(ContainerImage stored) {
        state.lock.lock();
        try {
            for (ContainerImage.SegmentImage image : stored.segments()) {
                Segment live = state.segments.get(image.name());
                if (live == null || live.id != image.id()) {
                    continue;
                }
                for (ContainerImage.Written w : image.written()) {
                    if (w.memory().length() == w.stored().length()) {
                        live.data.replace(w.memory(), w.stored());
                    }
                }
            }
            Set<Long> referenced = new HashSet<>();
            for (Segment s : state.segments.values()) {
                for (SegmentData.Chunk c : s.data.chunks()) {
                    if (c instanceof SegmentData.StoredChunk sc) {
                        referenced.add(sc.ref().owner());
                    }
                }
                referenced.add(s.id);
            }
            List<Long> reclaim = new ArrayList<>();
            for (Long owner : stored.dropped()) {
                if (!referenced.contains(owner)) {
                    reclaim.add(owner);
                }
            }
            state.droppedSegments.removeAll(stored.dropped());
            state.droppedSegments.addAll(stored.dropped().stream().filter(referenced::contains).toList());
            return reclaim;
        } finally {
            state.lock.unlock();
        }
    }

    /** See {@link SegmentContainer#restore}. */
    void restore(ContainerImage image) {
        state.locked(() -> {
            state.segments.clear();
            for (ContainerImage.SegmentImage si : image.segments()) {
                Segment s = si.toSegment();
                state.segments.put(s.name, s);
            }
            state.nextSegmentId = image.nextSegmentId();
            state.droppedSegments.clear();
            state.droppedSegments.addAll(image.dropped());
        });
    }
}
