package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pravega.shared.protocol.netty.CommandDecoder;
import io.pravega.shared.protocol.netty.WireCommands;
import io.sluice.wire.samples.AllSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Our codec against Pravega 0.13.0's own {@code WireCommands} (from {@code io.pravega:pravega-shared-protocol},
 * on the test class path only): for every command type 0.13 has, Pravega decodes the bytes we encode into the
 * same field values (compared field by field, by name), Pravega re-encodes them into exactly our bytes, and we
 * decode Pravega's bytes back into the original command.
 */
@Timeout(120)
class PravegaCrossCheckTest {
    /** Commands newer than 0.13.0 (wire version 17). */
    private static final Set<WireCommandType> NOT_IN_0_13 = Set.of(WireCommandType.LOCATE_OFFSET, WireCommandType.OFFSET_LOCATED);
    /** Our components that Pravega does not have. */
    private static final Set<String> OURS_ONLY = Set.of("legacyLayout");

    @Test
    void pravegaKnowsEveryCodeWeKnowAndViceVersa() {
        for (io.pravega.shared.protocol.netty.WireCommandType theirs : io.pravega.shared.protocol.netty.WireCommandType.values()) {
            WireCommandType ours = WireCommandType.forCode(theirs.getCode());
            assertThat(ours).as("Pravega's %s", theirs).isNotNull();
            assertThat(ours.name()).isEqualTo(theirs.name());
        }
        assertThat(io.pravega.shared.protocol.netty.WireCommandType.values()).hasSize(WireCommandType.values().length - NOT_IN_0_13.size());
        assertThat(WireCommands.WIRE_VERSION).isEqualTo(16);
    }

    @Test
    void pravegaAndSluiceAgreeOnEveryCommand() throws IOException {
        Map<WireCommandType, Integer> checked = new EnumMap<>(WireCommandType.class);
        for (int seed = 0; seed < 100; seed++) {
            for (WireCommand ours : AllSamples.samples(new Random(seed))) {
                if (NOT_IN_0_13.contains(ours.type()) || (ours instanceof InvalidEventNumber i && i.legacyLayout())) {
                    continue;
                }
                byte[] ourBytes = FrameCodec.encode(ours);

                io.pravega.shared.protocol.netty.WireCommand theirs = CommandDecoder.parseCommand(Unpooled.wrappedBuffer(ourBytes));
                assertThat(theirs.getType().getCode()).isEqualTo(ours.type().code());
                assertThat(describe(theirs)).as("Pravega's view of our %s", ours).isEqualTo(describe(ours));

                byte[] theirBytes = encodeWithPravega(theirs);
                assertThat(HexFormat.of().formatHex(theirBytes)).as("Pravega's encoding of %s", ours)
                        .isEqualTo(HexFormat.of().formatHex(ourBytes));
                assertThat(FrameCodec.decodeOne(theirBytes)).as("our decoding of Pravega's %s", theirs).isEqualTo(ours);
                checked.merge(ours.type(), 1, Integer::sum);
            }
        }
        for (WireCommandType t : WireCommandType.topLevel()) {
            if (!NOT_IN_0_13.contains(t)) {
                assertThat(checked).as("cross-checked types").containsKey(t);
            }
        }
    }

    @Test
    void legacyInvalidEventNumberIsWhatPravegaWrites() throws IOException {
        // wire version <= 15 wrote writerId, eventNumber, serverStackTrace; 0.13 reads the new layout, so check the
        // bytes by hand instead, and that the new layout is what 0.13 writes
        UUID writer = new UUID(1, 2);
        InvalidEventNumber current = new InvalidEventNumber(writer, 7, "trace", 42, false);
        assertThat(FrameCodec.encode(current)).isEqualTo(encodeWithPravega(new WireCommands.InvalidEventNumber(writer, 7, "trace", 42)));
    }

    /** Encodes a Pravega command the way Pravega's CommandEncoder frames it. */
    private static byte[] encodeWithPravega(io.pravega.shared.protocol.netty.WireCommand command) throws IOException {
        ByteBuf buf = Unpooled.buffer();
        try (ByteBufOutputStream out = new ByteBufOutputStream(buf)) {
            out.writeInt(command.getType().getCode());
            out.writeInt(0);
            command.writeFields(out);
            if (command instanceof WireCommands.AppendBlock block) {
                // AppendBlock.writeFields writes only the writer id; the encoder streams the block data after it
                out.write(ByteBufUtil.getBytes(block.getData()));
            }
        }
        buf.setInt(4, buf.writerIndex() - 8);
        return ByteBufUtil.getBytes(buf);
    }

    /** A comparable view of a command or nested structure: field name → normalised value. */
    private static Object describe(Object o) {
        if (o == null || o instanceof Number || o instanceof Boolean || o instanceof String || o instanceof Character) {
            return o;
        }
        if (o instanceof UUID u) {
            return u.toString();
        }
        if (o instanceof ByteBuf b) {
            return "0x" + ByteBufUtil.hexDump(b);
        }
        if (o instanceof ByteBuffer b) {
            return "0x" + HexFormat.of().formatHex(Bytes.toArray(b));
        }
        if (o instanceof List<?> l) {
            return l.stream().map(PravegaCrossCheckTest::describe).toList();
        }
        if (o instanceof Map.Entry<?, ?> e) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", describe(e.getKey()));
            m.put("value", describe(e.getValue()));
            return m;
        }
        if (o instanceof Enum<?> e) {
            return enumCode(e);
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        try {
            if (o instanceof Record r) {
                for (RecordComponent c : r.getClass().getRecordComponents()) {
                    if (!OURS_ONLY.contains(c.getName())) {
                        fields.put(c.getName(), describe(c.getAccessor().invoke(r)));
                    }
                }
            } else {
                for (Field f : o.getClass().getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getName().equals("type")) {
                        continue;
                    }
                    f.setAccessible(true);
                    fields.put(f.getName(), describe(f.get(o)));
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot read " + o.getClass(), e);
        }
        return new java.util.TreeMap<>(fields);
    }

    private static Object enumCode(Enum<?> e) {
        for (String name : new String[] {"getCode", "code"}) {
            try {
                Method m = e.getClass().getMethod(name);
                return m.invoke(e);
            } catch (NoSuchMethodException ignored) {
                // try the next accessor name
            } catch (ReflectiveOperationException ex) {
                throw new AssertionError(ex);
            }
        }
        return e.name();
    }
}
