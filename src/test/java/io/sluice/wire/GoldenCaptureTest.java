package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real traffic between the official Pravega 0.13 Java client and a real Pravega 0.13 standalone (the fixtures in
 * {@code src/test/resources/captures}, see its README): every frame of every segment-store stream decodes, the
 * sequence of command types equals what Pravega's own decoder saw ({@code commands-all.txt}), and re-encoding
 * every command gives back the captured bytes exactly.
 */
@Timeout(60)
class GoldenCaptureTest {
    static final Path CAPTURES = Path.of(System.getProperty("sluice.captures", "src/test/resources/captures"));
    private static final Pattern LINE = Pattern.compile(
            "^\\s+[0-9.]+\\s+conn(\\d+)\\s+\\S+\\s+(C->S|S->C)\\s+@(\\d+)\\s+\\[(-?\\d+)\\]\\s+(\\w+)");

    /** One frame as Pravega's decoder listed it. */
    record Listed(long offset, int code, String name) {
    }

    static Stream<Path> segmentStoreStreams() throws IOException {
        try (Stream<Path> files = Files.list(CAPTURES.resolve("raw"))) {
            List<Path> list = files.filter(p -> p.getFileName().toString().matches("conn\\d+-\\w+-6000-(c2s|s2c)\\.bin"))
                    .sorted().toList();
            assertThat(list).as("capture streams of the segment store").hasSize(26);
            return list.stream();
        }
    }

    private static Map<String, List<Listed>> listedByStream() throws IOException {
        Map<String, List<Listed>> byStream = new HashMap<>();
        for (String line : Files.readAllLines(CAPTURES.resolve("commands-all.txt"), StandardCharsets.UTF_8)) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                String key = String.format("conn%02d-%s", Integer.parseInt(m.group(1)), m.group(2).equals("C->S") ? "c2s" : "s2c");
                byStream.computeIfAbsent(key, k -> new ArrayList<>())
                        .add(new Listed(Long.parseLong(m.group(3)), Integer.parseInt(m.group(4)), m.group(5)));
            }
        }
        return byStream;
    }

    private static String streamKey(Path file) {
        String name = file.getFileName().toString();
        return name.substring(0, 6) + "-" + name.substring(name.length() - 7, name.length() - 4);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("segmentStoreStreams")
    void decodesEveryFrameAsPravegaDid(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        List<Listed> expected = listedByStream().getOrDefault(streamKey(file), List.of());
        List<Listed> actual = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(bytes);
        while (in.hasRemaining()) {
            int offset = in.position();
            WireCommand c = FrameCodec.decode(in);
            assertThat(c).as("frame at @%d of %s is complete", offset, file.getFileName()).isNotNull();
            actual.add(new Listed(offset, c.type().code(), null));
            byte[] original = java.util.Arrays.copyOfRange(bytes, offset, in.position());
            assertThat(FrameCodec.encode(c)).as("re-encoding %s at @%d of %s", c.type(), offset, file.getFileName())
                    .isEqualTo(original);
        }
        assertThat(actual).extracting(Listed::offset, Listed::code)
                .as("offsets and type codes of %s", file.getFileName())
                .containsExactlyElementsOf(expected.stream().map(l -> org.assertj.core.groups.Tuple.tuple(l.offset(), l.code())).toList());
    }

    @Test
    void everyListedFrameBelongsToACapturedStream() throws IOException {
        Map<String, List<Listed>> listed = listedByStream();
        int total = listed.values().stream().mapToInt(List::size).sum();
        assertThat(total).as("frames in commands-all.txt").isEqualTo(663);
        for (String key : listed.keySet()) {
            assertThat(CAPTURES.resolve("raw")).isDirectoryContaining(p -> p.getFileName().toString().startsWith(key.substring(0, 6))
                    && p.getFileName().toString().endsWith(key.substring(7) + ".bin"));
        }
    }

    @Test
    void writerConnectionCarriesTheGoldenEvents() throws IOException {
        List<WireCommand> c2s = decodeAll("conn04-client-6000-c2s.bin");
        assertThat(c2s).extracting(WireCommand::type).containsExactly(WireCommandType.HELLO, WireCommandType.SETUP_APPEND,
                WireCommandType.APPEND_BLOCK, WireCommandType.APPEND_BLOCK_END, WireCommandType.APPEND_BLOCK,
                WireCommandType.APPEND_BLOCK_END, WireCommandType.KEEP_ALIVE);
        assertThat(c2s.get(0)).isEqualTo(new Hello(16, 5));
        SetupAppend setup = (SetupAppend) c2s.get(1);
        assertThat(setup.segment()).isEqualTo("golden/golden/0.#epoch.0");
        assertThat(setup.requestId()).isEqualTo(1L << 32);

        AppendStreamDecoder appends = new AppendStreamDecoder();
        List<String> events = new ArrayList<>();
        for (WireCommand c : c2s) {
            AppendStreamDecoder.Append a = appends.accept((Request) c);
            if (a != null) {
                EventFrames.forEach(a.data(), e -> events.add(StandardCharsets.UTF_8.decode(e).toString()));
            }
        }
        assertThat(events).containsExactly("event-1", "event-2", "event-3");

        List<WireCommand> s2c = decodeAll("conn04-client-6000-s2c.bin");
        DataAppended last = (DataAppended) s2c.get(s2c.size() - 1);
        assertThat(last.eventNumber()).isEqualTo(3);
        assertThat(last.previousEventNumber()).isEqualTo(1);
        assertThat(last.currentSegmentWriteOffset()).isEqualTo(45);
        assertThat(((AppendSetup) s2c.get(1)).lastEventNumber()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void readerConnectionReadsTheGoldenEvents() throws IOException {
        List<WireCommand> s2c = decodeAll("conn13-client-6000-s2c.bin");
        SegmentRead read = (SegmentRead) s2c.get(1);
        assertThat(read.offset()).isZero();
        assertThat(read.atTail()).isTrue();
        List<String> events = new ArrayList<>();
        assertThat(EventFrames.forEach(read.data(), e -> events.add(StandardCharsets.UTF_8.decode(e).toString())))
                .isEqualTo(45);
        assertThat(events).containsExactly("event-1", "event-2", "event-3");
    }

    static List<WireCommand> decodeAll(String file) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(CAPTURES.resolve("raw").resolve(file)));
        List<WireCommand> out = new ArrayList<>();
        WireCommand c;
        while ((c = FrameCodec.decode(in)) != null) {
            out.add(c);
        }
        assertThat(in.hasRemaining()).isFalse();
        return out;
    }
}
