package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.sluice.wire.samples.AllSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every command survives encode → decode → encode unchanged, for many random and edge values. */
@Timeout(60)
class RoundTripTest {

    @Test
    void everyCommandRoundTrips() {
        Map<WireCommandType, Integer> seen = new EnumMap<>(WireCommandType.class);
        for (int seed = 0; seed < 300; seed++) {
            for (WireCommand command : AllSamples.samples(new Random(seed))) {
                byte[] bytes = FrameCodec.encode(command);
                ByteBuffer frame = ByteBuffer.wrap(bytes);
                assertThat(frame.getInt(0)).isEqualTo(command.type().code());
                assertThat(frame.getInt(4)).as("length field of %s", command).isEqualTo(bytes.length - 8);
                WireCommand decoded = FrameCodec.decodeOne(bytes);
                assertThat(decoded).as("decode(encode(%s))", command).isEqualTo(command);
                assertThat(decoded.hashCode()).isEqualTo(command.hashCode());
                assertThat(FrameCodec.encode(decoded)).as("re-encoding %s", command).isEqualTo(bytes);
                seen.merge(command.type(), 1, Integer::sum);
            }
        }
        assertThat(seen.keySet()).as("every top-level command has samples")
                .containsExactlyInAnyOrder(WireCommandType.topLevel());
        assertThat(seen.entrySet().stream()
                .filter(e -> e.getValue() < 3 * 300 && e.getKey() != WireCommandType.KEEP_ALIVE).toList())
                .as("types with fewer than 3 samples per seed (KeepAlive has no fields)").isEmpty();
    }

    @Test
    void frameBoundariesHoldWhenCommandsAreConcatenated() {
        List<WireCommand> samples = AllSamples.samples(new Random(99));
        WireOutput out = new WireOutput();
        for (WireCommand c : samples) {
            FrameCodec.encode(c, out);
        }
        ByteBuffer in = out.buffer();
        for (WireCommand expected : samples) {
            assertThat(FrameCodec.decode(in)).isEqualTo(expected);
        }
        assertThat(in.hasRemaining()).isFalse();
    }
}
