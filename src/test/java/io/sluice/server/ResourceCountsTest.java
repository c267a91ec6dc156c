package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import io.sluice.common.Threads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link ResourceCounts} sees what the wire fuzz test must catch: a new thread, an open file, an open connection. */
@Timeout(30)
class ResourceCountsTest {
    @TempDir
    Path dir;

    @Test
    void reportsNewThreadsFilesAndConnections() throws Exception {
        SegmentStore store = SegmentStore.inMemory(1);
        try (SegmentStoreServer server = new SegmentStoreServer(store,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null, TokenVerifier.ACCEPT_ALL)) {
            // the JDK starts its pollers of virtual threads' sockets (threads, epoll descriptors) on first use
            try (java.net.Socket first = new java.net.Socket(server.endpoint().host(), server.endpoint().port())) {
                while (server.connectionCount() == 0) {
                    Thread.yield();
                }
            }
            while (server.connectionCount() > 0) {
                Thread.yield();
            }
            ResourceCounts before = ResourceCounts.of(server);
            assertThat(ResourceCounts.of(server).leaksSince(before)).isEmpty();
            CountDownLatch release = new CountDownLatch(1);
            Thread platform = Thread.ofPlatform().name("resource-counts-test").start(() -> await(release));
            Thread virtual = Threads.startVirtual("resource-counts-test-virtual", () -> await(release));
            try (FileChannel file = FileChannel.open(Files.createFile(dir.resolve("open")));
                 java.net.Socket client = new java.net.Socket(server.endpoint().host(), server.endpoint().port())) {
                while (server.connectionCount() == 0) {
                    Thread.yield();
                }
                ResourceCounts during = ResourceCounts.of(server);
                assertThat(during.newPlatformThreads(before)).contains("resource-counts-test");
                assertThat(String.join("\n", during.leaksSince(before)))
                        .contains("segment-store connections: 1 open, 0 before")
                        .contains("virtual threads:")
                        .contains("resource-counts-test");
                // by target, not by count: tests running beside this one open and close descriptors meanwhile
                assertThat(String.join("\n", during.newFds(before))).contains(dir.resolve("open").toString());
            } finally {
                release.countDown();
                platform.join();
                virtual.join();
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
