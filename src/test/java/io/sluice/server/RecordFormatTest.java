package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;

import io.sluice.storage.Durability;
import io.sluice.storage.LocalStorage;
import io.sluice.storage.ServerlessStorage;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableValue;
import io.sluice.wire.UpdateTableEntries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record format on disk: tokens never reach the data directory, a directory records its format version, and a
 * directory of another version (today's unversioned one included) is refused with one clear message.
 */
@Timeout(60)
class RecordFormatTest {
    private static final UUID WRITER = new UUID(7, 8);

    @TempDir
    Path dir;

    private EmbeddedServer.StoreAndStorage open(long snapshotAfterBytes) throws IOException {
        return DurableSegmentStore.open(dir, 1, false, snapshotAfterBytes);
    }

    private static Object submit(SegmentStore store, Request r) {
        return store.submit(r).join();
    }

    /** Every file under the data directory, by path, with its bytes. */
    private Map<Path, byte[]> files() throws IOException {
        Map<Path, byte[]> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p), Files.readAllBytes(p));
            }
        }
        return out;
    }

    private void assertNoFileHoldsTheToken() throws IOException {
        byte[] token = ContainerOpTest.TOKEN.getBytes(StandardCharsets.UTF_8);
        Map<Path, byte[]> files = files();
        assertThat(files.keySet()).as("files of the data directory").anyMatch(p -> p.toString().endsWith(".log"))
                .anyMatch(p -> p.toString().endsWith(".snap"));
        for (Map.Entry<Path, byte[]> f : files.entrySet()) {
            assertThat(ContainerOpTest.indexOf(f.getValue(), token)).as("token in " + f.getKey()).isEqualTo(-1);
        }
    }

    @Test
    void tokensNeverReachTheDiskAndEveryKindReplays() throws Exception {
        String seg = "s/stream/0.#epoch.0";
        String table = "s/_tables/kvt_0";
        // a snapshot after every few records: the snapshots are checked for tokens too
        EmbeddedServer.StoreAndStorage opened = open(512);
        try {
            SegmentStore store = opened.store();
            List<String> replies = new ArrayList<>();
            for (Request r : ContainerOpTest.everyRequest("s", 77, ContainerOpTest.TOKEN)) {
                replies.add(((Reply) submit(store, r)).getClass().getSimpleName());
            }
            assertThat(replies).containsExactly("SegmentCreated", "SegmentCreated", "SegmentPolicyUpdated",
                    "SegmentAttributeUpdated", "TableEntriesUpdated", "TableKeysRemoved", "SegmentCreated",
                    "SegmentCreated", "SegmentCreated", "SegmentsMerged", "SegmentsBatchMerged", "SegmentTruncated",
                    "SegmentSealed", "SegmentCreated", "SegmentDeleted", "SegmentCreated", "SegmentDeleted");
            submit(store, new CreateSegment(1, "s/other/0", CreateSegment.NO_SCALE, 0, ContainerOpTest.TOKEN, 0));
            store.submit(new ContainerOp.Append(System.currentTimeMillis(), "s/other/0", WRITER, 5, 1,
                    ContainerOp.Append.UNCONDITIONAL, 1, ByteBuffer.wrap(new byte[100]))).join();
        } finally {
            opened.storage().close();
        }
        assertNoFileHoldsTheToken();
        assertThat(Files.readString(dir.resolve(DataDirectoryLayout.FILE_NAME)))
                .isEqualTo("format=" + ContainerOp.FORMAT_VERSION + "\ncontainers=1\n");

        opened = open(1L << 40);
        try {
            SegmentStore store = opened.store();
            assertThat(store.segmentNames()).contains(seg, table, "s/other/0")
                    .doesNotContain("s/gone/0", "s/_tables/gone", seg + "#transaction.a", seg + "#transaction.b");
            assertThat(store.segmentInfo(seg).orElseThrow().sealed()).isTrue();
            assertThat(store.segmentInfo("s/other/0").orElseThrow().length()).isEqualTo(100);
            // the attribute update came back, and so did the merge's conditional one after it (42 -> 43)
            assertThat(store.attribute(seg, new UUID(0x0102030405060708L, 0x090a0b0c0d0e0f10L))).isEqualTo(43);
            // k1 is in the table, k2 was removed
            assertThat(submit(store, insertIfAbsent(table, "k1"))).isInstanceOf(TableKeyBadVersion.class);
            assertThat(submit(store, insertIfAbsent(table, "k2"))).isInstanceOf(TableEntriesUpdated.class);
        } finally {
            opened.storage().close();
        }
    }

    private static UpdateTableEntries insertIfAbsent(String table, String key) {
        return new UpdateTableEntries(3, table, "", new TableEntries(List.of(new TableEntry(
                new TableKey(ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)), TableKey.NOT_EXISTS),
                new TableValue(ByteBuffer.wrap(new byte[] {1}))))), UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET);
    }

    /**
     * Builds a data directory as servers before record format 2 left it: the layout file without a format line and
     * a container log of whole wire frames, delegation token included.
     */
    private void writeUnversionedDirectory() throws IOException {
        Files.writeString(dir.resolve(DataDirectoryLayout.FILE_NAME), "containers=1\n", StandardCharsets.UTF_8);
        try (LocalStorage storage = LocalStorage.open(dir, Durability.OS_BUFFERED)) {
            ServerlessStorage resource = storage.resource("containers", "container-0");
            resource.loadLatestSnapshot();
            resource.loadWriteLog().close();
            resource.lock();
            resource.loadWriteLog().close();
            resource.append(ContainerOpTest.legacyEntry(
                    new CreateSegment(1, "old/stream/0", CreateSegment.NO_SCALE, 0, "old-token", 0)));
            resource.append(ContainerOpTest.legacyEntry(new SealSegment(2, "old/stream/0", "old-token")));
            resource.unlock();
        }
    }

    @Test
    void anUnversionedDirectoryIsRefusedAndLeftAsItIs() throws IOException {
        writeUnversionedDirectory();
        Map<Path, byte[]> before = files();
        assertThatThrownBy(() -> EmbeddedServer.builder().dataDir(dir).controllerPort(0).segmentStorePort(0).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("data directory " + dir + " was written in record format version 1 (unversioned: a server "
                        + "that logged whole wire frames); this server reads record format version 2 only: start it on "
                        + "an empty data directory (the old one is left as it is)");
        Map<Path, byte[]> after = files();
        assertThat(after.keySet()).isEqualTo(before.keySet());
        for (Path p : before.keySet()) {
            assertThat(after.get(p)).as(p.toString()).isEqualTo(before.get(p));
        }
    }

    @Test
    void dataWithoutALayoutFileIsUnversioned() throws IOException {
        writeUnversionedDirectory();
        Files.delete(dir.resolve(DataDirectoryLayout.FILE_NAME));
        assertThatThrownBy(() -> open(1L << 40)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("record format version 1 (unversioned");
        assertThat(dir.resolve(DataDirectoryLayout.FILE_NAME)).doesNotExist();
    }

    @Test
    void anEntryOfAnotherFormatInAVersionedDirectoryFailsRecoveryNamingTheContainer() throws IOException {
        writeUnversionedDirectory();
        Files.writeString(dir.resolve(DataDirectoryLayout.FILE_NAME), "format=2\ncontainers=1\n");
        assertThatThrownBy(() -> open(1L << 40)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("container 0: write log entry 0 after the snapshot is not a record of format "
                        + "version 2: ");
    }

    @Test
    void aNewerFormatIsRefused() throws IOException {
        Files.writeString(dir.resolve(DataDirectoryLayout.FILE_NAME), "format=3\ncontainers=1\n");
        assertThatThrownBy(() -> open(1L << 40)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("data directory " + dir + " was written in record format version 3 (written by "
                        + "a newer server); this server reads record format version 2 only");
    }

    @Test
    void aDamagedLayoutIsNamed() throws IOException {
        Files.writeString(dir.resolve(DataDirectoryLayout.FILE_NAME), "format=two\ncontainers=1\n");
        assertThatThrownBy(() -> open(1L << 40)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("damaged sluice-layout.properties: format=two is not a number");
    }

    @Test
    void anEmptyDirectoryIsStampedAndReopens() throws Exception {
        open(1L << 40).storage().close();
        assertThat(Files.readString(dir.resolve(DataDirectoryLayout.FILE_NAME))).isEqualTo("format=2\ncontainers=1\n");
        EmbeddedServer.StoreAndStorage again = open(1L << 40);
        try {
            assertThat(submit(again.store(), new CreateSegment(1, "a/b/0", CreateSegment.NO_SCALE, 0, "", 0)))
                    .isInstanceOf(SegmentCreated.class);
        } finally {
            again.storage().close();
        }
        assertThatThrownBy(() -> DurableSegmentStore.open(dir, 2, false, 1L << 40))
                .hasMessageContaining("was created with containers=1");
    }

    @Test
    void aSnapshotOfAnotherVersionIsRefused() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8).putInt(0x534C4353).putInt(1).flip();
        assertThatThrownBy(() -> ContainerImage.readFrom(new java.io.ByteArrayInputStream(b.array())))
                .isInstanceOf(IOException.class)
                .hasMessage("the container snapshot is in record format version 1; this server reads record format "
                        + "version 2 only");
    }

    @Test
    void theLayoutParserSkipsCommentsAndBlankLines() {
        assertThat(DataDirectoryLayout.parse("# x\n\nformat = 2\ncontainers=4\n"))
                .isEqualTo(Map.of("format", "2", "containers", "4"));
        assertThat(new ArrayList<>(DataDirectoryLayout.parse("containers=1\n").keySet())).containsExactly("containers");
    }
}
