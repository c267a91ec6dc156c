package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.List;

import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentRead;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SegmentRead whose bytes are partly in chunk files: decided under the container lock, read from the files
 * after it is released. The chunk list is a copy taken under the lock; the byte ranges it covers never change.
 */
record DeferredRead(String segment, long offset, int length, boolean atTail, boolean endOfSegment, long requestId,
                    List<SegmentData.Chunk> chunks) {
    private static final Logger LOG = LoggerFactory.getLogger(DeferredRead.class);

    Reply materialise(SegmentData.ChunkReader reader) {
        byte[] out = new byte[length];
        try {
            int done = 0;
            for (SegmentData.Chunk c : chunks) {
                long at = offset + done;
                if (done == length) {
                    break;
                }
                if (c.offset() + c.length() <= at || c.offset() > at) {
                    continue;
                }
                int take = (int) Math.min(length - done, c.offset() + c.length() - at);
                switch (c) {
                    case SegmentData.MemoryChunk m -> m.copy(at, out, done, take);
                    case SegmentData.StoredChunk s -> reader.read(s, at, out, done, take);
                }
                done += take;
            }
            return new SegmentRead(segment, offset, atTail, endOfSegment, ByteBuffer.wrap(out), requestId);
        } catch (RuntimeException e) {
            // the segment was deleted and its chunk files reclaimed while the read was in flight
            LOG.debug("reading {} at {} failed", segment, offset, e);
            return new NoSuchSegment(requestId, segment, "", offset);
        }
    }
}
