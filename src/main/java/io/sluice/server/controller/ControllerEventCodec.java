package io.sluice.server.controller;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import com.google.protobuf.InvalidProtocolBufferException;

import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.errors.ProtocolException;
import io.sluice.server.controller.ControllerEvent.KeyRange;
import io.sluice.server.controller.ControllerEvent.KvtActivated;
import io.sluice.server.controller.ControllerEvent.KvtCreating;
import io.sluice.server.controller.ControllerEvent.KvtDeleted;
import io.sluice.server.controller.ControllerEvent.KvtDeleting;
import io.sluice.server.controller.ControllerEvent.ReaderGroupCreated;
import io.sluice.server.controller.ControllerEvent.ReaderGroupDeleted;
import io.sluice.server.controller.ControllerEvent.ReaderGroupDeleting;
import io.sluice.server.controller.ControllerEvent.ReaderGroupUpdated;
import io.sluice.server.controller.ControllerEvent.RollingTxnCompleted;
import io.sluice.server.controller.ControllerEvent.RollingTxnEpochsCreated;
import io.sluice.server.controller.ControllerEvent.RollingTxnStarted;
import io.sluice.server.controller.ControllerEvent.ScaleCompleted;
import io.sluice.server.controller.ControllerEvent.ScaleEpochCreated;
import io.sluice.server.controller.ControllerEvent.ScaleStarted;
import io.sluice.server.controller.ControllerEvent.ScopeCreated;
import io.sluice.server.controller.ControllerEvent.ScopeDeleted;
import io.sluice.server.controller.ControllerEvent.ScopeDeleting;
import io.sluice.server.controller.ControllerEvent.StreamActivated;
import io.sluice.server.controller.ControllerEvent.StreamCreating;
import io.sluice.server.controller.ControllerEvent.StreamDeleted;
import io.sluice.server.controller.ControllerEvent.StreamDeleting;
import io.sluice.server.controller.ControllerEvent.StreamSealed;
import io.sluice.server.controller.ControllerEvent.StreamSealing;
import io.sluice.server.controller.ControllerEvent.StreamUpdated;
import io.sluice.server.controller.ControllerEvent.SubscriberStreamCutUpdated;
import io.sluice.server.controller.ControllerEvent.TruncationCompleted;
import io.sluice.server.controller.ControllerEvent.TruncationStarted;
import io.sluice.server.controller.ControllerEvent.TxnAborted;
import io.sluice.server.controller.ControllerEvent.TxnAborting;
import io.sluice.server.controller.ControllerEvent.TxnCommitted;
import io.sluice.server.controller.ControllerEvent.TxnCommitting;
import io.sluice.server.controller.ControllerEvent.TxnCreated;
import io.sluice.server.controller.ControllerEvent.TxnPinged;
import io.sluice.server.controller.ControllerEvent.WriterMarkNoted;
import io.sluice.server.controller.ControllerEvent.WriterRemoved;
import io.sluice.server.controller.ControllerEvent.WriterShutDown;

/**
 * Turns {@link ControllerEvent}s into bytes and back, for a durable {@link ControllerStore}.
 *
 * <pre>
 * record := version:u8 (=1) | type:u8 | fields...
 * string := length:i32 | UTF-8 bytes           uuid := msb:i64 | lsb:i64
 * map    := count:i32 | (key:i64 value:i64)*  (ascending keys)
 * proto  := length:i32 | protobuf bytes        (StreamConfig, ReaderGroupConfiguration, KeyValueTableConfig)
 * </pre>
 *
 * Integers are big-endian. Type codes are stable: never renumber, only add. Stateless and thread-safe.
 */
public final class ControllerEventCodec {
    private static final int VERSION = 1;

    private static final int SCOPE_CREATED = 1;
    private static final int SCOPE_DELETING = 2;
    private static final int SCOPE_DELETED = 3;
    private static final int STREAM_CREATING = 10;
    private static final int STREAM_ACTIVATED = 11;
    private static final int STREAM_UPDATED = 12;
    private static final int SCALE_STARTED = 13;
    private static final int SCALE_EPOCH_CREATED = 14;
    private static final int SCALE_COMPLETED = 15;
    private static final int STREAM_SEALING = 16;
    private static final int STREAM_SEALED = 17;
    private static final int STREAM_DELETING = 18;
    private static final int STREAM_DELETED = 19;
    private static final int TRUNCATION_STARTED = 20;
    private static final int TRUNCATION_COMPLETED = 21;
    private static final int TXN_CREATED = 30;
    private static final int TXN_PINGED = 31;
    private static final int TXN_COMMITTING = 32;
    private static final int TXN_COMMITTED = 33;
    private static final int TXN_ABORTING = 34;
    private static final int TXN_ABORTED = 35;
    private static final int ROLLING_TXN_STARTED = 36;
    private static final int ROLLING_TXN_EPOCHS_CREATED = 37;
    private static final int ROLLING_TXN_COMPLETED = 38;
    private static final int READER_GROUP_CREATED = 40;
    private static final int READER_GROUP_UPDATED = 41;
    private static final int READER_GROUP_DELETING = 42;
    private static final int READER_GROUP_DELETED = 43;
    private static final int SUBSCRIBER_STREAM_CUT_UPDATED = 44;
    private static final int WRITER_MARK_NOTED = 50;
    private static final int WRITER_REMOVED = 51;
    private static final int WRITER_SHUT_DOWN = 52;
    private static final int KVT_CREATING = 60;
    private static final int KVT_ACTIVATED = 61;
    private static final int KVT_DELETING = 62;
    private static final int KVT_DELETED = 63;

    private ControllerEventCodec() {
    }

    /**
     * @return the event's bytes
     */
    public static byte[] encode(ControllerEvent event) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            write(event, out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e);
        }
        return bytes.toByteArray();
    }

    /**
     * @return the event encoded in {@code bytes}
     * @throws ProtocolException if the bytes are not an event this codec wrote (unknown version or type, truncated,
     *         trailing bytes)
     */
    public static ControllerEvent decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new ProtocolException("unknown controller event version " + version);
            }
            ControllerEvent event = read(in);
            if (in.available() > 0) {
                throw new ProtocolException("controller event " + event.getClass().getSimpleName() + " has "
                        + in.available() + " trailing bytes");
            }
            return event;
        } catch (EOFException e) {
            throw new ProtocolException("controller event is truncated", e);
        } catch (IOException e) {
            throw new ProtocolException("controller event cannot be read", e);
        }
    }

    private static void write(ControllerEvent event, DataOutputStream out) throws IOException {
        switch (event) {
            case ScopeCreated e -> {
                out.writeByte(SCOPE_CREATED);
                string(out, e.scope());
            }
            case ScopeDeleting e -> {
                out.writeByte(SCOPE_DELETING);
                string(out, e.scope());
            }
            case ScopeDeleted e -> {
                out.writeByte(SCOPE_DELETED);
                string(out, e.scope());
            }
            case StreamCreating e -> {
                out.writeByte(STREAM_CREATING);
                names(out, e.scope(), e.stream());
                bytes(out, e.config().toByteArray());
                out.writeLong(e.creationTime());
                out.writeBoolean(e.markStream());
            }
            case StreamActivated e -> {
                out.writeByte(STREAM_ACTIVATED);
                names(out, e.scope(), e.stream());
            }
            case StreamUpdated e -> {
                out.writeByte(STREAM_UPDATED);
                names(out, e.scope(), e.stream());
                bytes(out, e.config().toByteArray());
            }
            case ScaleStarted e -> {
                out.writeByte(SCALE_STARTED);
                names(out, e.scope(), e.stream());
                out.writeInt(e.sealedSegments().size());
                for (long id : e.sealedSegments()) {
                    out.writeLong(id);
                }
                out.writeInt(e.newRanges().size());
                for (KeyRange range : e.newRanges()) {
                    out.writeDouble(range.start());
                    out.writeDouble(range.end());
                }
                out.writeLong(e.timestamp());
            }
            case ScaleEpochCreated e -> {
                out.writeByte(SCALE_EPOCH_CREATED);
                names(out, e.scope(), e.stream());
            }
            case ScaleCompleted e -> {
                out.writeByte(SCALE_COMPLETED);
                names(out, e.scope(), e.stream());
            }
            case StreamSealing e -> {
                out.writeByte(STREAM_SEALING);
                names(out, e.scope(), e.stream());
            }
            case StreamSealed e -> {
                out.writeByte(STREAM_SEALED);
                names(out, e.scope(), e.stream());
            }
            case StreamDeleting e -> {
                out.writeByte(STREAM_DELETING);
                names(out, e.scope(), e.stream());
            }
            case StreamDeleted e -> {
                out.writeByte(STREAM_DELETED);
                names(out, e.scope(), e.stream());
            }
            case TruncationStarted e -> {
                out.writeByte(TRUNCATION_STARTED);
                names(out, e.scope(), e.stream());
                map(out, e.streamCut());
            }
            case TruncationCompleted e -> {
                out.writeByte(TRUNCATION_COMPLETED);
                names(out, e.scope(), e.stream());
            }
            case TxnCreated e -> {
                out.writeByte(TXN_CREATED);
                names(out, e.scope(), e.stream());
                uuid(out, e.txnId());
                out.writeLong(e.creationTime());
                out.writeLong(e.leaseExpiry());
                out.writeLong(e.maxExecutionExpiry());
            }
            case TxnPinged e -> {
                out.writeByte(TXN_PINGED);
                names(out, e.scope(), e.stream());
                uuid(out, e.txnId());
                out.writeLong(e.leaseExpiry());
            }
            case TxnCommitting e -> {
                out.writeByte(TXN_COMMITTING);
                names(out, e.scope(), e.stream());
                uuid(out, e.txnId());
                string(out, e.writerId());
                out.writeLong(e.commitTimestamp());
            }
            case TxnCommitted e -> {
                out.writeByte(TXN_COMMITTED);
                names(out, e.scope(), e.stream());
                uuid(out, e.txnId());
                out.writeLong(e.time());
            }
            case TxnAborting e -> {
                out.writeByte(TXN_ABORTING);
                names(out, e.scope(), e.stream());
                uuid(out, e.txnId());
            }
            case TxnAborted e -> {
                out.writeByte(TXN_ABORTED);
                names(out, e.scope(), e.stream());
                uuid(out, e.txnId());
                out.writeLong(e.time());
            }
            case RollingTxnStarted e -> {
                out.writeByte(ROLLING_TXN_STARTED);
                names(out, e.scope(), e.stream());
                out.writeLong(e.time());
            }
            case RollingTxnEpochsCreated e -> {
                out.writeByte(ROLLING_TXN_EPOCHS_CREATED);
                names(out, e.scope(), e.stream());
            }
            case RollingTxnCompleted e -> {
                out.writeByte(ROLLING_TXN_COMPLETED);
                names(out, e.scope(), e.stream());
            }
            case ReaderGroupCreated e -> {
                out.writeByte(READER_GROUP_CREATED);
                names(out, e.scope(), e.readerGroup());
                bytes(out, e.config().toByteArray());
                out.writeLong(e.creationTime());
            }
            case ReaderGroupUpdated e -> {
                out.writeByte(READER_GROUP_UPDATED);
                names(out, e.scope(), e.readerGroup());
                bytes(out, e.config().toByteArray());
            }
            case ReaderGroupDeleting e -> {
                out.writeByte(READER_GROUP_DELETING);
                names(out, e.scope(), e.readerGroup());
            }
            case ReaderGroupDeleted e -> {
                out.writeByte(READER_GROUP_DELETED);
                names(out, e.scope(), e.readerGroup());
            }
            case SubscriberStreamCutUpdated e -> {
                out.writeByte(SUBSCRIBER_STREAM_CUT_UPDATED);
                names(out, e.scope(), e.stream());
                string(out, e.subscriber());
                out.writeLong(e.generation());
                map(out, e.streamCut());
                out.writeLong(e.time());
            }
            case WriterMarkNoted e -> {
                out.writeByte(WRITER_MARK_NOTED);
                names(out, e.scope(), e.stream());
                string(out, e.writer());
                out.writeLong(e.timestamp());
                map(out, e.position());
            }
            case WriterRemoved e -> {
                out.writeByte(WRITER_REMOVED);
                names(out, e.scope(), e.stream());
                string(out, e.writer());
            }
            case WriterShutDown e -> {
                out.writeByte(WRITER_SHUT_DOWN);
                names(out, e.scope(), e.stream());
                string(out, e.writer());
            }
            case KvtCreating e -> {
                out.writeByte(KVT_CREATING);
                names(out, e.scope(), e.kvt());
                bytes(out, e.config().toByteArray());
                uuid(out, e.id());
                out.writeLong(e.creationTime());
            }
            case KvtActivated e -> {
                out.writeByte(KVT_ACTIVATED);
                names(out, e.scope(), e.kvt());
            }
            case KvtDeleting e -> {
                out.writeByte(KVT_DELETING);
                names(out, e.scope(), e.kvt());
            }
            case KvtDeleted e -> {
                out.writeByte(KVT_DELETED);
                names(out, e.scope(), e.kvt());
            }
        }
    }

    private static ControllerEvent read(DataInputStream in) throws IOException {
        int type = in.readUnsignedByte();
        return switch (type) {
            case SCOPE_CREATED -> new ScopeCreated(string(in));
            case SCOPE_DELETING -> new ScopeDeleting(string(in));
            case SCOPE_DELETED -> new ScopeDeleted(string(in));
            case STREAM_CREATING -> new StreamCreating(string(in), string(in), streamConfig(bytes(in)), in.readLong(),
                    in.readBoolean());
            case STREAM_ACTIVATED -> new StreamActivated(string(in), string(in));
            case STREAM_UPDATED -> new StreamUpdated(string(in), string(in), streamConfig(bytes(in)));
            case SCALE_STARTED -> {
                String scope = string(in);
                String stream = string(in);
                int sealedCount = count(in);
                List<Long> sealed = new ArrayList<>(sealedCount);
                for (int i = 0; i < sealedCount; i++) {
                    sealed.add(in.readLong());
                }
                int rangeCount = count(in);
                List<KeyRange> ranges = new ArrayList<>(rangeCount);
                for (int i = 0; i < rangeCount; i++) {
                    ranges.add(new KeyRange(in.readDouble(), in.readDouble()));
                }
                yield new ScaleStarted(scope, stream, sealed, ranges, in.readLong());
            }
            case SCALE_EPOCH_CREATED -> new ScaleEpochCreated(string(in), string(in));
            case SCALE_COMPLETED -> new ScaleCompleted(string(in), string(in));
            case STREAM_SEALING -> new StreamSealing(string(in), string(in));
            case STREAM_SEALED -> new StreamSealed(string(in), string(in));
            case STREAM_DELETING -> new StreamDeleting(string(in), string(in));
            case STREAM_DELETED -> new StreamDeleted(string(in), string(in));
            case TRUNCATION_STARTED -> new TruncationStarted(string(in), string(in), map(in));
            case TRUNCATION_COMPLETED -> new TruncationCompleted(string(in), string(in));
            case TXN_CREATED -> new TxnCreated(string(in), string(in), uuid(in), in.readLong(), in.readLong(),
                    in.readLong());
            case TXN_PINGED -> new TxnPinged(string(in), string(in), uuid(in), in.readLong());
            case TXN_COMMITTING -> new TxnCommitting(string(in), string(in), uuid(in), string(in), in.readLong());
            case TXN_COMMITTED -> new TxnCommitted(string(in), string(in), uuid(in), in.readLong());
            case TXN_ABORTING -> new TxnAborting(string(in), string(in), uuid(in));
            case TXN_ABORTED -> new TxnAborted(string(in), string(in), uuid(in), in.readLong());
            case ROLLING_TXN_STARTED -> new RollingTxnStarted(string(in), string(in), in.readLong());
            case ROLLING_TXN_EPOCHS_CREATED -> new RollingTxnEpochsCreated(string(in), string(in));
            case ROLLING_TXN_COMPLETED -> new RollingTxnCompleted(string(in), string(in));
            case READER_GROUP_CREATED -> new ReaderGroupCreated(string(in), string(in), readerGroupConfig(bytes(in)),
                    in.readLong());
            case READER_GROUP_UPDATED -> new ReaderGroupUpdated(string(in), string(in), readerGroupConfig(bytes(in)));
            case READER_GROUP_DELETING -> new ReaderGroupDeleting(string(in), string(in));
            case READER_GROUP_DELETED -> new ReaderGroupDeleted(string(in), string(in));
            case SUBSCRIBER_STREAM_CUT_UPDATED -> new SubscriberStreamCutUpdated(string(in), string(in), string(in),
                    in.readLong(), map(in), in.readLong());
            case WRITER_MARK_NOTED -> new WriterMarkNoted(string(in), string(in), string(in), in.readLong(), map(in));
            case WRITER_REMOVED -> new WriterRemoved(string(in), string(in), string(in));
            case WRITER_SHUT_DOWN -> new WriterShutDown(string(in), string(in), string(in));
            case KVT_CREATING -> new KvtCreating(string(in), string(in), kvtConfig(bytes(in)), uuid(in),
                    in.readLong());
            case KVT_ACTIVATED -> new KvtActivated(string(in), string(in));
            case KVT_DELETING -> new KvtDeleting(string(in), string(in));
            case KVT_DELETED -> new KvtDeleted(string(in), string(in));
            default -> throw new ProtocolException("unknown controller event type " + type);
        };
    }

    private static void names(DataOutputStream out, String first, String second) throws IOException {
        string(out, first);
        string(out, second);
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        bytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    private static void bytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static void uuid(DataOutputStream out, UUID id) throws IOException {
        out.writeLong(id.getMostSignificantBits());
        out.writeLong(id.getLeastSignificantBits());
    }

    private static void map(DataOutputStream out, Map<Long, Long> map) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<Long, Long> entry : new TreeMap<>(map).entrySet()) {
            out.writeLong(entry.getKey());
            out.writeLong(entry.getValue());
        }
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new ProtocolException("controller event has a bad length or count " + n);
        }
        return n;
    }

    private static String string(DataInputStream in) throws IOException {
        return new String(bytes(in), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        byte[] b = new byte[count(in)];
        in.readFully(b);
        return b;
    }

    private static UUID uuid(DataInputStream in) throws IOException {
        return new UUID(in.readLong(), in.readLong());
    }

    private static Map<Long, Long> map(DataInputStream in) throws IOException {
        int n = count(in);
        Map<Long, Long> map = new HashMap<>();
        for (int i = 0; i < n; i++) {
            map.put(in.readLong(), in.readLong());
        }
        return map;
    }

    private static StreamConfig streamConfig(byte[] b) {
        try {
            return StreamConfig.parseFrom(b);
        } catch (InvalidProtocolBufferException e) {
            throw new ProtocolException("controller event holds a bad StreamConfig", e);
        }
    }

    private static ReaderGroupConfiguration readerGroupConfig(byte[] b) {
        try {
            return ReaderGroupConfiguration.parseFrom(b);
        } catch (InvalidProtocolBufferException e) {
            throw new ProtocolException("controller event holds a bad ReaderGroupConfiguration", e);
        }
    }

    private static KeyValueTableConfig kvtConfig(byte[] b) {
        try {
            return KeyValueTableConfig.parseFrom(b);
        } catch (InvalidProtocolBufferException e) {
            throw new ProtocolException("controller event holds a bad KeyValueTableConfig", e);
        }
    }
}
