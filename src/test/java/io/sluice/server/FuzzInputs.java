package io.sluice.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;

import io.sluice.wire.AppendBlock;
import io.sluice.wire.AppendBlockEnd;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.ConditionalAppend;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.Event;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.Hello;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.PartialEvent;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.TableIteratorArgs;
import io.sluice.wire.TableKey;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;
import io.sluice.wire.samples.AllSamples;

/**
 * Generates the inputs of {@link WireFuzzTest} from a seed: mutations of the client-to-segment-store streams in
 * {@code src/test/resources/captures/raw} (bit flips, changed length fields and type codes, truncation, frames of
 * other connections spliced in, reordering, duplicated append sequences, huge declared lengths, strings grown to
 * 65535 bytes, extreme numbers in any field), random bytes, random well-formed frames built with the project's
 * codec, append sessions, and requests at the edges the issue names. Deterministic: the same seed gives the same
 * input. Thread-safe (immutable once loaded).
 */
final class FuzzInputs {
    /** Segments the fixture creates (the names of the captures), so captured traffic reaches real segments. */
    static final List<String> SEGMENTS = List.of("golden/golden/0.#epoch.0", "golden/_MARKgolden/0.#epoch.0",
            "golden/_RGgolden-rg/0.#epoch.0", "golden/_MARK_RGgolden-rg/0.#epoch.0");
    /** The captured key-value table's segment (4-byte keys), which the fixture fills with a few entries. */
    static final String TABLE = "golden/kvt_kvtable/0.#epoch.0";
    static final int TABLE_KEY_LENGTH = 4;
    /** Request id of the sentinel a reading connection sends last; its answer means "all replies are in". */
    static final long SENTINEL_ID = 0x5EED_5EED_5EED_5EEDL;
    private static final int MAX = WireProtocol.MAX_WIRECOMMAND_SIZE - WireProtocol.HEADER_SIZE;

    /** One client-to-segment-store stream of the captures, split into frames. */
    record Capture(String name, List<byte[]> frames) {
    }

    private final List<Capture> captures;

    private FuzzInputs(List<Capture> captures) {
        this.captures = captures;
    }

    /** Loads every {@code raw/connNN-*-6000-c2s.bin} of the captures directory. */
    static FuzzInputs load(Path capturesDir) throws IOException {
        List<Capture> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(capturesDir.resolve("raw"))) {
            for (Path p : files.filter(f -> f.getFileName().toString().matches("conn\\d+-\\w+-6000-c2s\\.bin"))
                    .sorted().toList()) {
                out.add(new Capture(p.getFileName().toString(), frames(Files.readAllBytes(p))));
            }
        }
        if (out.isEmpty()) {
            throw new IOException("no segment-store captures (raw/conn*-6000-c2s.bin) in " + capturesDir);
        }
        return new FuzzInputs(List.copyOf(out));
    }

    /** @return the captured streams */
    List<Capture> captures() {
        return captures;
    }

    private static List<byte[]> frames(byte[] stream) {
        List<byte[]> out = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(stream);
        while (in.remaining() >= WireProtocol.HEADER_SIZE) {
            int length = in.getInt(in.position() + Integer.BYTES);
            int size = Math.min(in.remaining(), WireProtocol.HEADER_SIZE + Math.max(0, length));
            byte[] f = new byte[size];
            in.get(f);
            out.add(f);
        }
        return out;
    }

    /** @return the input of {@code seed} */
    FuzzInput generate(long seed) {
        Random r = new Random(seed);
        StringBuilder what = new StringBuilder();
        List<byte[]> frames;
        int kind = r.nextInt(100);
        if (kind < 50) {
            frames = mutatedCapture(r, what);
        } else if (kind < 62) {
            frames = randomFrames(r, what);
        } else if (kind < 70) {
            frames = randomBytes(r, what);
        } else if (kind < 85) {
            frames = appendSession(r, what);
        } else {
            frames = edges(r, what);
        }
        FuzzInput.Behaviour behaviour = behaviour(r);
        byte[] all = concat(frames);
        if (kind < 50 && r.nextInt(6) == 0 && all.length > 1) {
            int cut = r.nextInt(all.length);
            what.append(", truncated at byte ").append(cut).append(" of ").append(all.length);
            all = Arrays.copyOf(all, cut);
        }
        return new FuzzInput(seed, what.toString(), writes(all, r), behaviour);
    }

    private static FuzzInput.Behaviour behaviour(Random r) {
        int b = r.nextInt(100);
        if (b < 45) {
            return FuzzInput.Behaviour.READ_REPLIES;
        } else if (b < 63) {
            return FuzzInput.Behaviour.NEVER_READ;
        } else if (b < 73) {
            return FuzzInput.Behaviour.HALF_CLOSE;
        } else if (b < 85) {
            return FuzzInput.Behaviour.HALF_OPEN;
        }
        return FuzzInput.Behaviour.RESET;
    }

    /** Splits the bytes into 1..8 writes at random points. */
    private static List<byte[]> writes(byte[] all, Random r) {
        int n = 1 + r.nextInt(8);
        int[] cuts = new int[n + 1];
        for (int i = 1; i < n; i++) {
            cuts[i] = all.length == 0 ? 0 : r.nextInt(all.length + 1);
        }
        cuts[n] = all.length;
        Arrays.sort(cuts);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (cuts[i + 1] > cuts[i] || out.isEmpty()) {
                out.add(Arrays.copyOfRange(all, cuts[i], cuts[i + 1]));
            }
        }
        return out;
    }

    private static byte[] concat(List<byte[]> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frames.forEach(out::writeBytes);
        return out.toByteArray();
    }

    // ---- mutations of captured connections

    private List<byte[]> mutatedCapture(Random r, StringBuilder what) {
        Capture c = captures.get(r.nextInt(captures.size()));
        List<byte[]> frames = new ArrayList<>(c.frames());
        what.append("capture ").append(c.name());
        int mutations = 1 + r.nextInt(3);
        for (int m = 0; m < mutations && !frames.isEmpty(); m++) {
            what.append(", ");
            int i = r.nextInt(frames.size());
            switch (r.nextInt(10)) {
                case 0 -> flipBits(frames, i, r, what);
                case 1 -> setLength(frames, i, r, what);
                case 2 -> setType(frames, i, r, what);
                case 3 -> splice(frames, c, r, what);
                case 4 -> reorder(frames, r, what);
                case 5 -> duplicateAppends(frames, r, what);
                case 6 -> hugeHeader(frames, r, what);
                case 7 -> longString(frames, i, r, what);
                case 8 -> extremeNumber(frames, i, r, what);
                default -> {
                    what.append("unchanged");
                }
            }
        }
        return frames;
    }

    private static String typeOf(byte[] frame) {
        if (frame.length < 4) {
            return "?";
        }
        WireCommandType t = WireCommandType.forCode(ByteBuffer.wrap(frame).getInt(0));
        return t == null ? "code " + ByteBuffer.wrap(frame).getInt(0) : t.name();
    }

    private static void flipBits(List<byte[]> frames, int i, Random r, StringBuilder what) {
        byte[] f = frames.get(i).clone();
        int flips = 1 + r.nextInt(8);
        for (int k = 0; k < flips; k++) {
            f[r.nextInt(f.length)] ^= (byte) (1 << r.nextInt(8));
        }
        what.append("flipped ").append(flips).append(" bits of frame ").append(i).append(" (").append(typeOf(f))
                .append(')');
        frames.set(i, f);
    }

    private static void setLength(List<byte[]> frames, int i, Random r, StringBuilder what) {
        byte[] f = frames.get(i).clone();
        if (f.length < WireProtocol.HEADER_SIZE) {
            what.append("(frame ").append(i).append(" too short for a length)");
            return;
        }
        int old = ByteBuffer.wrap(f).getInt(4);
        int[] choices = {old + 1, old - 1, 0, -1, old * 2, MAX, MAX + 1, Integer.MAX_VALUE, r.nextInt(), r.nextInt(
                Math.max(1, 2 * old + 16))};
        int length = choices[r.nextInt(choices.length)];
        ByteBuffer.wrap(f).putInt(4, length);
        what.append("length of frame ").append(i).append(" (").append(typeOf(f)).append(") ").append(old)
                .append(" -> ").append(length);
        frames.set(i, f);
    }

    private static void setType(List<byte[]> frames, int i, Random r, StringBuilder what) {
        byte[] f = frames.get(i).clone();
        if (f.length < 4) {
            return;
        }
        WireCommandType[] all = WireCommandType.values();
        int[] choices = {all[r.nextInt(all.length)].code(), r.nextInt(256) - 128, r.nextInt(), 0, -1, -2, 6, 127};
        int code = choices[r.nextInt(choices.length)];
        what.append("type of frame ").append(i).append(" (").append(typeOf(f)).append(") -> ").append(code);
        ByteBuffer.wrap(f).putInt(0, code);
        frames.set(i, f);
    }

    private void splice(List<byte[]> frames, Capture self, Random r, StringBuilder what) {
        Capture other = captures.get(r.nextInt(captures.size()));
        if (other.frames().isEmpty()) {
            return;
        }
        int from = r.nextInt(other.frames().size());
        int count = Math.min(1 + r.nextInt(5), other.frames().size() - from);
        int at = r.nextInt(frames.size() + 1);
        frames.addAll(at, other.frames().subList(from, from + count));
        what.append("spliced ").append(count).append(" frames of ").append(other == self ? "itself" : other.name())
                .append(" (from ").append(from).append(") at ").append(at);
    }

    private static void reorder(List<byte[]> frames, Random r, StringBuilder what) {
        if (frames.size() < 2) {
            return;
        }
        int a = r.nextInt(frames.size());
        int b = r.nextInt(frames.size());
        if (r.nextBoolean()) {
            byte[] t = frames.get(a);
            frames.set(a, frames.get(b));
            frames.set(b, t);
            what.append("swapped frames ").append(a).append(" and ").append(b);
        } else {
            int lo = Math.min(a, b);
            int hi = Math.max(a, b);
            java.util.Collections.reverse(frames.subList(lo, hi + 1));
            what.append("reversed frames ").append(lo).append("..").append(hi);
        }
    }

    private static void duplicateAppends(List<byte[]> frames, Random r, StringBuilder what) {
        List<Integer> starts = new ArrayList<>();
        for (int i = 0; i < frames.size(); i++) {
            String t = typeOf(frames.get(i));
            if (t.equals("SETUP_APPEND") || t.equals("APPEND_BLOCK") || t.equals("APPEND_BLOCK_END")
                    || t.equals("CONDITIONAL_APPEND")) {
                starts.add(i);
            }
        }
        if (starts.isEmpty()) {
            what.append("(no append sequence to duplicate)");
            return;
        }
        int from = starts.get(r.nextInt(starts.size()));
        int count = Math.min(1 + r.nextInt(4), frames.size() - from);
        int copies = 1 + r.nextInt(3);
        List<byte[]> seq = new ArrayList<>(frames.subList(from, from + count));
        for (int k = 0; k < copies; k++) {
            frames.addAll(from + count, seq);
        }
        what.append("duplicated frames ").append(from).append("..").append(from + count - 1).append(' ')
                .append(copies).append(" times");
    }

    private static void hugeHeader(List<byte[]> frames, Random r, StringBuilder what) {
        WireCommandType[] types = {WireCommandType.SETUP_APPEND, WireCommandType.APPEND_BLOCK,
            WireCommandType.APPEND_BLOCK_END, WireCommandType.READ_SEGMENT, WireCommandType.HELLO,
            WireCommandType.UPDATE_TABLE_ENTRIES, WireCommandType.KEEP_ALIVE};
        int[] lengths = {MAX, MAX - 1, 1 << 20, 8 << 20, 1 + r.nextInt(MAX), MAX + 1, Integer.MAX_VALUE};
        WireCommandType type = types[r.nextInt(types.length)];
        int length = lengths[r.nextInt(lengths.length)];
        byte[] some = new byte[r.nextInt(512)];
        r.nextBytes(some);
        ByteBuffer header = ByteBuffer.allocate(WireProtocol.HEADER_SIZE + some.length);
        header.putInt(type.code()).putInt(length).put(some);
        int at = r.nextInt(frames.size() + 1);
        frames.add(at, header.array());
        what.append(type).append(" header declaring ").append(length).append(" bytes (").append(some.length)
                .append(" follow) at frame ").append(at);
    }

    private static void longString(List<byte[]> frames, int i, Random r, StringBuilder what) {
        WireCommand c = decode(frames.get(i));
        List<Integer> strings = c == null ? List.of() : RecordEdits.componentsOf(c, String.class);
        if (strings.isEmpty()) {
            what.append("(frame ").append(i).append(" has no string)");
            return;
        }
        int index = strings.get(r.nextInt(strings.size()));
        int bytes = longLength(r);
        WireCommand longer = RecordEdits.with(c, index, grow((String) RecordEdits.get(c, index), bytes));
        byte[] encoded = encode(longer);
        if (encoded != null) {
            frames.set(i, encoded);
            what.append(c.type()).append('.').append(RecordEdits.name(c, index)).append(" of frame ").append(i)
                    .append(" grown to ").append(bytes).append(" bytes");
        }
    }

    private static int longLength(Random r) {
        int[] choices = {0xFFFF, 0xFFFF - r.nextInt(100), 60_000 + r.nextInt(5536), 1 + r.nextInt(0xFFFF)};
        return choices[r.nextInt(choices.length)];
    }

    private static void extremeNumber(List<byte[]> frames, int i, Random r, StringBuilder what) {
        WireCommand c = decode(frames.get(i));
        if (c == null) {
            what.append("(frame ").append(i).append(" does not decode)");
            return;
        }
        List<Integer> longs = RecordEdits.componentsOf(c, long.class);
        List<Integer> ints = RecordEdits.componentsOf(c, int.class);
        if (longs.isEmpty() && ints.isEmpty()) {
            what.append("(frame ").append(i).append(" has no number)");
            return;
        }
        boolean useLong = ints.isEmpty() || (!longs.isEmpty() && r.nextBoolean());
        int index = useLong ? longs.get(r.nextInt(longs.size())) : ints.get(r.nextInt(ints.size()));
        Object value = useLong ? extremeLong(r) : (Object) extremeInt(r);
        byte[] encoded = encode(RecordEdits.with(c, index, value));
        if (encoded != null) {
            frames.set(i, encoded);
            what.append(c.type()).append('.').append(RecordEdits.name(c, index)).append(" of frame ").append(i)
                    .append(" = ").append(value);
        }
    }

    private static long extremeLong(Random r) {
        long[] choices = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, r.nextLong(), 1L << 32};
        return choices[r.nextInt(choices.length)];
    }

    private static int extremeInt(Random r) {
        int[] choices = {0, -1, 1, Integer.MIN_VALUE, Integer.MAX_VALUE, r.nextInt(), MAX, 1 << 20};
        return choices[r.nextInt(choices.length)];
    }

    private static WireCommand decode(byte[] frame) {
        try {
            return FrameCodec.decodeOne(frame);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static byte[] encode(WireCommand c) {
        if (c == null) {
            return null;
        }
        try {
            return FrameCodec.encode(c);
        } catch (IllegalArgumentException e) {
            return null; // over the frame limit with the grown field: leave the frame as it was
        }
    }

    /** @return {@code s} cut or padded with ASCII to exactly {@code bytes} bytes of modified UTF-8 */
    static String grow(String s, int bytes) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            int len = ch != 0 && ch < 0x80 ? 1 : ch < 0x800 ? 2 : 3;
            if (n + len > bytes) {
                break;
            }
            sb.append(ch);
            n += len;
        }
        return sb.append("x".repeat(bytes - n)).toString();
    }

    // ---- random bytes and random well-formed frames

    private static List<byte[]> randomBytes(Random r, StringBuilder what) {
        byte[] b = new byte[r.nextInt(4097)];
        r.nextBytes(b);
        List<byte[]> out = new ArrayList<>();
        if (r.nextBoolean()) {
            out.add(FrameCodec.encode(Hello.current()));
            what.append("Hello + ");
        }
        out.add(b);
        what.append(b.length).append(" random bytes");
        return out;
    }

    private static List<byte[]> randomFrames(Random r, StringBuilder what) {
        List<byte[]> out = new ArrayList<>();
        if (r.nextInt(8) > 0) {
            out.add(FrameCodec.encode(Hello.current()));
        }
        List<WireCommand> samples = AllSamples.samples(r);
        int n = 1 + r.nextInt(20);
        List<String> types = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            WireCommand c = samples.get(r.nextInt(samples.size()));
            if (!(c instanceof Request) && r.nextInt(10) > 0) {
                continue; // mostly requests: a reply from a client only closes the connection
            }
            if (r.nextInt(10) < 7) {
                c = retarget(c, r);
            }
            byte[] f = encode(c);
            if (f != null) {
                out.add(f);
                types.add(c.type().name());
            }
        }
        what.append("random frames ").append(types);
        return out;
    }

    /** Points segment names at the fixture's segments and empties tokens, so a request reaches real state. */
    private static WireCommand retarget(WireCommand c, Random r) {
        WireCommand out = c;
        for (int index : RecordEdits.componentsOf(c, String.class)) {
            String name = RecordEdits.name(c, index);
            Object value = null;
            if (name.equals("delegationToken")) {
                value = "";
            } else if (name.toLowerCase(java.util.Locale.ROOT).contains("segment") || name.equals("target")
                    || name.equals("source")) {
                value = r.nextInt(4) == 0 ? TABLE : SEGMENTS.get(r.nextInt(SEGMENTS.size()));
            }
            if (value != null) {
                WireCommand edited = RecordEdits.with(out, index, value);
                out = edited == null ? out : edited;
            }
        }
        return out;
    }

    // ---- append sessions

    private static List<byte[]> appendSession(Random r, StringBuilder what) {
        List<byte[]> out = new ArrayList<>();
        out.add(FrameCodec.encode(Hello.current()));
        UUID writer = new UUID(r.nextLong(), r.nextLong());
        String segment = SEGMENTS.get(r.nextInt(SEGMENTS.size()));
        long id = 1;
        out.add(FrameCodec.encode(new SetupAppend(id++, writer, segment, "")));
        long event = r.nextInt(1 << 20) * 1000L;
        int steps = 1 + r.nextInt(12);
        List<String> ops = new ArrayList<>();
        byte[] previous = null;
        for (int s = 0; s < steps; s++) {
            WireOutput o = new WireOutput();
            List<ByteBuffer> events = randomEvents(r);
            int op = r.nextInt(11);
            switch (op) {
                case 0, 1, 2 -> {
                    event += events.size();
                    AppendEncoder.writeBlock(o, writer, events, event, id++);
                    ops.add("block(" + events.size() + ")");
                }
                case 3 -> {
                    event += events.size();
                    AppendEncoder.writeBlockEndOnly(o, writer, events, event, id++);
                    ops.add("blockEnd(" + events.size() + ")");
                }
                case 4 -> {
                    if (previous != null) {
                        o.writeBytes(previous, 0, previous.length);
                        ops.add("resent");
                    }
                }
                case 5 -> {
                    FrameCodec.encode(new ConditionalAppend(writer, ++event, extremeLong(r) & 0xFFFF,
                            new Event(events.get(0)), id++), o);
                    ops.add("conditional");
                }
                case 6 -> {
                    String again = r.nextBoolean() ? segment : SEGMENTS.get(r.nextInt(SEGMENTS.size()));
                    FrameCodec.encode(new SetupAppend(id++, writer, again, ""), o);
                    ops.add("setup again");
                }
                case 7 -> {
                    partialEventBlock(o, writer, events, ++event, id++, r);
                    ops.add("partial");
                }
                case 8 -> {
                    event -= r.nextInt(3);
                    AppendEncoder.writeBlockEndOnly(o, writer, events, event, id++);
                    ops.add("event number back to " + event);
                }
                case 9 -> {
                    FrameCodec.encode(new CreateTransientSegment(id++, writer, segment, ""), o);
                    FrameCodec.encode(new MergeSegments(id++, segment, segment + "#transient." + Long.toHexString(
                            r.nextLong()), "", List.of()), o);
                    ops.add("transient + merge");
                }
                default -> {
                    FrameCodec.encode(new KeepAlive(), o);
                    ops.add("keep-alive");
                }
            }
            byte[] step = o.toByteArray();
            if (step.length > 0) {
                out.add(step);
                previous = step;
            }
        }
        what.append("append session of ").append(writer).append(" on ").append(segment).append(": ").append(ops);
        return out;
    }

    private static List<ByteBuffer> randomEvents(Random r) {
        int n = 1 + r.nextInt(r.nextInt(10) == 0 ? 200 : 8);
        List<ByteBuffer> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] e = new byte[r.nextInt(r.nextInt(10) == 0 ? 20_000 : 200)];
            r.nextBytes(e);
            events.add(ByteBuffer.wrap(e));
        }
        return events;
    }

    /** The Java client's form: whole events and a PARTIAL_EVENT in the block, the rest in AppendBlockEnd. */
    private static void partialEventBlock(WireOutput o, UUID writer, List<ByteBuffer> events, long event, long id,
                                          Random r) {
        WireOutput whole = new WireOutput();
        for (ByteBuffer e : events) {
            new Event(e).writeFramed(whole);
        }
        byte[] framed = whole.toByteArray();
        int split = framed.length == 0 ? 0 : r.nextInt(framed.length);
        WireOutput block = new WireOutput();
        block.writeBytes(framed, 0, split);
        FrameCodec.encode(new PartialEvent(ByteBuffer.wrap(framed, split, framed.length - split)), block);
        FrameCodec.encode(new AppendBlock(writer, block.buffer()), o);
        int size = r.nextBoolean() ? split : r.nextInt(framed.length + 1);
        FrameCodec.encode(new AppendBlockEnd(writer, size, ByteBuffer.wrap(framed, split, framed.length - split),
                events.size(), event, id), o);
    }

    // ---- the edges named by issue 12

    private static List<byte[]> edges(Random r, StringBuilder what) {
        List<byte[]> out = new ArrayList<>();
        out.add(FrameCodec.encode(Hello.current()));
        int edge = r.nextInt(6);
        switch (edge) {
            case 0 -> hugeHeader(out, r, what);
            case 1 -> {
                int bytes = 0xFFFF - r.nextInt(200);
                String parent = grow(SEGMENTS.get(r.nextInt(SEGMENTS.size())), bytes);
                out.add(FrameCodec.encode(new CreateTransientSegment(1, new UUID(r.nextLong(), r.nextLong()), parent,
                        "")));
                what.append("CreateTransientSegment with a parent name of ").append(bytes).append(" bytes");
            }
            case 2 -> {
                int bytes = longLength(r);
                String name = grow(SEGMENTS.get(r.nextInt(SEGMENTS.size())), bytes);
                List<WireCommand> requests = List.of(new GetStreamSegmentInfo(1, name, ""),
                        new ReadSegment(name, 0, 100, "", 2), new SetupAppend(3, new UUID(1, 2), name, ""),
                        new CreateSegment(4, name, (byte) 0, 0, "", 0), new SealSegment(5, name, ""),
                        new GetTableSegmentInfo(6, name, ""), new ReadTable(7, name, "", List.of()),
                        new MergeSegments(8, SEGMENTS.get(0), name, "", List.of()),
                        new MergeSegments(9, name, SEGMENTS.get(1), "", List.of()));
                WireCommand c = requests.get(r.nextInt(requests.size()));
                if (r.nextBoolean()) {
                    // the name exists then: replies that quote it with more text are longer still
                    out.add(encode(new CreateSegment(10, name, (byte) 0, 0, "", 0)));
                    what.append("CreateSegment, then ");
                }
                byte[] f = encode(c);
                if (f != null) {
                    out.add(f);
                }
                what.append(c.type()).append(" naming a segment of ").append(bytes).append(" bytes");
            }
            case 3 -> tableIteration(out, r, what);
            case 4 -> {
                int n = 50 + r.nextInt(250);
                int length = r.nextBoolean() ? 1 << 20 : r.nextInt(1 << 16);
                for (int k = 0; k < n; k++) {
                    out.add(FrameCodec.encode(new ReadSegment(SEGMENTS.get(0), 0, length, "", 100 + k)));
                }
                what.append(n).append(" pipelined ReadSegment of ").append(length).append(" bytes");
            }
            default -> {
                int n = 200 + r.nextInt(2000);
                for (int k = 0; k < n; k++) {
                    out.add(r.nextBoolean() ? FrameCodec.encode(new KeepAlive())
                            : FrameCodec.encode(new GetStreamSegmentInfo(k, SEGMENTS.get(k % SEGMENTS.size()), "")));
                }
                what.append(n).append(" small requests");
            }
        }
        return out;
    }

    private static void tableIteration(List<byte[]> out, Random r, StringBuilder what) {
        ByteBuffer low = ByteBuffer.wrap(new byte[] {0, 0, 0, 1});
        ByteBuffer high = ByteBuffer.wrap(new byte[] {(byte) 0xFF, 0, 0, 0});
        byte[] token = new byte[r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(12)];
        r.nextBytes(token);
        boolean inverted = r.nextBoolean();
        TableIteratorArgs args = new TableIteratorArgs(ByteBuffer.wrap(token), io.sluice.wire.Bytes.EMPTY,
                inverted ? high : low, inverted ? low : high);
        int count = extremeInt(r);
        WireCommand c = switch (r.nextInt(3)) {
            case 0 -> new ReadTableKeys(1, TABLE, "", count, args);
            case 1 -> new ReadTableEntries(2, TABLE, "", count, args);
            default -> new ReadTableEntriesDelta(3, TABLE, "", extremeLong(r), count);
        };
        out.add(FrameCodec.encode(c));
        if (r.nextBoolean()) {
            out.add(FrameCodec.encode(new ReadTable(4, TABLE, "", List.of(new TableKey(low, TableKey.NO_VERSION)))));
        }
        what.append(c.type()).append(" on the table, count ").append(count).append(inverted ? ", fromKey > toKey" : "")
                .append(", continuation token of ").append(token.length).append(" bytes");
    }
}
