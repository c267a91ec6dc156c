package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.sluice.common.Threads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ChunkBuffers}: buffers made ahead, on another thread, never handed out twice. */
@Timeout(30)
class ChunkBuffersTest {
    private static final int SIZE = 64 * 1024;

    @Test
    void aTakeHandsOutAZeroedDirectBufferOfTheSizeEvenWhenNoneIsReady() {
        ChunkBuffers buffers = new ChunkBuffers(SIZE, 2);
        assertThat(buffers.ready()).isZero();
        ByteBuffer b = buffers.take();
        assertThat(b.isDirect()).isTrue();
        assertThat(b.capacity()).isEqualTo(SIZE);
        assertThat(b.position()).isZero();
        assertThat(b.limit()).isEqualTo(SIZE);
        for (int i = 0; i < SIZE; i++) {
            assertThat(b.get(i)).as("byte %d", i).isZero();
        }
    }

    @Test
    void aTakeHasTheSparesMadeWithoutAnotherCall() {
        ChunkBuffers buffers = new ChunkBuffers(SIZE, 3);
        buffers.take();
        awaitReady(buffers, 3);
        ByteBuffer ready = buffers.take();
        assertThat(ready.capacity()).isEqualTo(SIZE);
        awaitReady(buffers, 3);
    }

    @Test
    void prepareMakesTheSparesBeforeAnyTake() {
        ChunkBuffers buffers = new ChunkBuffers(SIZE, 2);
        buffers.prepare();
        awaitReady(buffers, 2);
        buffers.prepare();
        assertThat(buffers.ready()).isEqualTo(2);
    }

    @Test
    void noBufferIsHandedOutTwiceAndNoMoreThanTheSparesWait() {
        ChunkBuffers buffers = new ChunkBuffers(SIZE, 2);
        int callers = 4;
        int each = 50;
        Set<ByteBuffer> seen = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        AtomicInteger mostReady = new AtomicInteger();
        List<Supplier<Integer>> tasks = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
            tasks.add(() -> {
                for (int i = 0; i < each; i++) {
                    ByteBuffer b = buffers.take();
                    b.putInt(0, 1); // what one caller writes, no other may be handed
                    seen.add(b);
                    mostReady.accumulateAndGet(buffers.ready(), Math::max);
                }
                return each;
            });
        }
        assertThat(Threads.all("chunk-buffers-test", tasks)).containsOnly(each);
        assertThat(seen).hasSize(callers * each);
        assertThat(mostReady.get()).isLessThanOrEqualTo(2);
        awaitReady(buffers, 2);
        assertThat(buffers.take().getInt(0)).isZero();
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> new ChunkBuffers(0, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("size");
        assertThatThrownBy(() -> new ChunkBuffers(SIZE, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("spares");
    }

    /** Waits (bounded by the class's timeout) until {@code n} buffers are ready. */
    private static void awaitReady(ChunkBuffers buffers, int n) {
        while (buffers.ready() < n) {
            Thread.yield();
        }
        assertThat(buffers.ready()).isEqualTo(n);
    }
}
