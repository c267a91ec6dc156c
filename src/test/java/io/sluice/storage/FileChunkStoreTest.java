package io.sluice.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chunk store's open files stay bounded however many chunks an owner has (the soak test found one descriptor
 * per 64 MiB of segment data, never closed), and reads and writes stay correct while the limit closes channels under
 * them.
 */
@Timeout(60)
class FileChunkStoreTest {
    @TempDir
    Path dir;

    private static byte[] content(int n, int length) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) n);
        b[0] = (byte) (n >> 8);
        return b;
    }

    @Test
    void anOwnerKeepsFewChunkFilesOpenAndReadsOldChunksAgain() {
        try (FileChunkStore store = new FileChunkStore(dir, Durability.OS_BUFFERED, 100)) {
            List<ChunkRef> refs = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                refs.add(store.write(7, ByteBuffer.wrap(content(i, 60)))); // a chunk each
            }
            assertThat(refs.stream().map(ChunkRef::chunk).distinct()).hasSize(40);
            assertThat(store.openChannels(7)).as("open chunk files after 40 chunks")
                    .isLessThanOrEqualTo(FileChunkStore.MAX_OPEN_PER_OWNER);
            for (int i = 39; i >= 0; i--) {
                ByteBuffer read = store.read(refs.get(i), 0, 60);
                assertThat(read.array()).as("chunk %s", i).isEqualTo(content(i, 60));
            }
            assertThat(store.openChannels(7)).as("open chunk files after reading them all")
                    .isLessThanOrEqualTo(FileChunkStore.MAX_OPEN_PER_OWNER);
        }
    }

    @Test
    void concurrentReadsAndWritesStayCorrectWhileChannelsAreClosedUnderThem() throws Exception {
        try (FileChunkStore store = new FileChunkStore(dir, Durability.OS_BUFFERED, 1000)) {
            List<ChunkRef> refs = new CopyOnWriteArrayList<>();
            List<byte[]> contents = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 50; i++) {
                contents.add(content(i, 300));
                refs.add(store.write(3, ByteBuffer.wrap(contents.get(i))));
            }
            List<String> wrong = new CopyOnWriteArrayList<>();
            try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int t = 0; t < 8; t++) {
                    exec.submit(() -> {
                        for (int k = 0; k < 2000; k++) {
                            int i = ThreadLocalRandom.current().nextInt(refs.size());
                            byte[] got = store.read(refs.get(i), 0, 300).array();
                            if (!Arrays.equals(got, contents.get(i))) {
                                wrong.add("chunk ref " + refs.get(i));
                            }
                        }
                        return null;
                    });
                }
                exec.submit(() -> {
                    for (int i = 50; i < 250; i++) {
                        byte[] c = content(i, 300);
                        ChunkRef ref = store.write(3, ByteBuffer.wrap(c));
                        byte[] got = store.read(ref, 0, 300).array();
                        if (!Arrays.equals(got, c)) {
                            wrong.add("written " + ref);
                        }
                    }
                    return null;
                }).get();
            }
            assertThat(wrong).isEmpty();
            assertThat(store.openChannels(3)).isLessThanOrEqualTo(FileChunkStore.MAX_OPEN_PER_OWNER);
            try (var files = Files.list(dir.resolve("3"))) {
                assertThat(files.count()).as("chunk files").isGreaterThan(60);
            }
        }
    }
}
