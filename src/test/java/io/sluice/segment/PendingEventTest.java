package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A pending write's settlement: told once per write, and once per run of writes that {@code succeedAll} settles. */
@Timeout(10)
class PendingEventTest {

    /** Records what it is told. */
    private static final class Recorder implements PendingEvent.Settlement {
        final List<String> told = new ArrayList<>();

        @Override
        public void settled(PendingEvent event, Throwable failure) {
            told.add((failure == null ? "ok " : "failed ") + event.framedSize());
        }

        @Override
        public void succeeded(int writes, long bytes) {
            told.add(writes + " ok, " + bytes + " bytes");
        }
    }

    /** An event of {@code bytes} bytes, charged its framed size (8 bytes more). */
    private static PendingEvent event(int bytes, PendingEvent.Settlement s) {
        PendingEvent e = PendingEvent.of("k", ByteBuffer.allocate(bytes));
        e.charge(e.framedSize());
        if (s != null) {
            e.onSettled(s);
        }
        return e;
    }

    @Test
    void aWriteIsSettledOnceWhetherItSucceedsOrFails() {
        Recorder r = new Recorder();
        PendingEvent ok = event(10, r);
        PendingEvent bad = event(20, r);
        assertThat(ok.future().complete(null)).isTrue();
        assertThat(ok.future().complete(null)).isFalse();
        assertThat(ok.future().completeExceptionally(new IllegalStateException("late"))).isFalse();
        assertThat(bad.future().completeExceptionally(new IllegalStateException("gone"))).isTrue();
        assertThat(bad.future().complete(null)).isFalse();
        // framed: 8 bytes of header per event
        assertThat(r.told).containsExactly("ok 18", "failed 28");
        assertThat(ok.charged()).isEqualTo(18);
        assertThat(ok.future()).isCompleted();
        assertThat(bad.future()).isCompletedExceptionally();
    }

    @Test
    void succeedAllTellsEachRunOfOneSettlementOnceAndSkipsWritesThatFailedBefore() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        PendingEvent a1 = event(1, a);
        PendingEvent a2 = event(2, a);
        PendingEvent failed = event(3, a);
        PendingEvent a3 = event(4, a);
        PendingEvent b1 = event(5, b);
        PendingEvent none = event(6, null);
        PendingEvent a4 = event(7, a);
        failed.future().completeExceptionally(new IllegalStateException("failed before"));
        PendingEvent.succeedAll(List.of(a1, a2, failed, a3, b1, none, a4));
        assertThat(a.told).containsExactly("failed 11", "3 ok, 31 bytes", "1 ok, 15 bytes");
        assertThat(b.told).containsExactly("1 ok, 13 bytes");
        for (PendingEvent e : List.of(a1, a2, a3, b1, none, a4)) {
            assertThat(e.future()).isCompleted().isNotCompletedExceptionally();
        }
        assertThat(failed.future()).isCompletedExceptionally();
        // completed already: not told again
        PendingEvent.succeedAll(List.of(a1, b1));
        assertThat(a.told).hasSize(3);
        assertThat(b.told).hasSize(1);
    }

    @Test
    void theSettlementIsSetOnce() {
        PendingEvent e = event(1, new Recorder());
        assertThatThrownBy(() -> e.onSettled(new Recorder())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("set already");
        assertThatThrownBy(() -> event(1, null).onSettled(null)).isInstanceOf(NullPointerException.class);
    }
}
