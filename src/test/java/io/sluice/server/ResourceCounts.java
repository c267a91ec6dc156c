package io.sluice.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.sluice.common.Threads;

/**
 * What a server may leak, counted at one moment: its open client connections
 * ({@link SegmentStoreServer#connectionCount()}), the virtual threads Sluice started that still run
 * ({@link Threads#liveVirtualThreads()}), the live platform threads, and this process's open file descriptors
 * ({@code /proc/self/fd}, Linux; none elsewhere).
 *
 * <p>Platform threads are compared as a set of new threads, leaving out those the JDK and gRPC start on demand and
 * keep, bounded, whatever the traffic: the virtual-thread scheduler's carrier threads, the JDK's pollers of virtual
 * threads' sockets, and gRPC's event-loop threads (shared by the controller's listener and the client beside the
 * fuzzer; the fuzzer never speaks gRPC).
 *
 * @param connections open segment-store connections
 * @param virtualThreads virtual threads started by {@link Threads} and still running
 * @param platformThreads live platform threads
 * @param fds open file descriptors: number to what it points at
 */
record ResourceCounts(int connections, long virtualThreads, Set<Thread> platformThreads, TreeMap<Integer, String> fds) {
    private static final Path FD_DIR = Path.of("/proc/self/fd");

    /** @return the counts now */
    static ResourceCounts of(SegmentStoreServer server) {
        Set<Thread> platform = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .collect(Collectors.toSet());
        return new ResourceCounts(server.connectionCount(), Threads.liveVirtualThreads(), platform, openFds());
    }

    /** @return the counts now of a process without a server (no connections): to compare with once it is closed */
    static ResourceCounts ofProcess() {
        Set<Thread> platform = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .collect(Collectors.toSet());
        return new ResourceCounts(0, Threads.liveVirtualThreads(), platform, openFds());
    }

    private static TreeMap<Integer, String> openFds() {
        TreeMap<Integer, String> out = new TreeMap<>();
        if (!Files.isDirectory(FD_DIR)) {
            return out;
        }
        try (Stream<Path> list = Files.list(FD_DIR)) {
            for (Path fd : list.toList()) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException | UnsupportedOperationException e) {
                    target = "?"; // closed meanwhile (e.g. the listing's own descriptor)
                }
                out.put(Integer.parseInt(fd.getFileName().toString()), target);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("listing " + FD_DIR, e);
        }
        return out;
    }

    /** @return platform threads alive now that were not alive in {@code before}, except the growing pools */
    List<String> newPlatformThreads(ResourceCounts before) {
        List<String> out = new ArrayList<>();
        for (Thread t : platformThreads) {
            if (!before.platformThreads.contains(t) && t.isAlive() && !isElasticPool(t)) {
                out.add(t.getName());
            }
        }
        return out;
    }

    private static boolean isElasticPool(Thread t) {
        String name = t.getName();
        return t.getClass().getName().equals("jdk.internal.misc.CarrierThread")
                || name.equals("MasterPoller") || name.endsWith("-Poller")
                || name.startsWith("grpc-default-worker-ELG-");
    }

    /** @return descriptors open now and not in {@code before} (number and target) */
    List<String> newFds(ResourceCounts before) {
        List<String> out = new ArrayList<>();
        fds.forEach((fd, target) -> {
            if (!target.equals(before.fds.get(fd))) {
                out.add(fd + " -> " + target);
            }
        });
        return out;
    }

    /**
     * @return what leaked compared with {@code before}, one line per kind (empty when nothing did); connections and
     *     threads must be back at (or below) {@code before}, no new platform thread may live, and no more
     *     descriptors may be open
     */
    List<String> leaksSince(ResourceCounts before) {
        List<String> out = new ArrayList<>();
        if (connections > before.connections) {
            out.add("segment-store connections: " + connections + " open, " + before.connections + " before");
        }
        if (virtualThreads > before.virtualThreads) {
            out.add("virtual threads: " + virtualThreads + " live, " + before.virtualThreads + " before");
        }
        List<String> threads = newPlatformThreads(before);
        if (!threads.isEmpty()) {
            out.add("platform threads: " + threads.size() + " new " + threads);
        }
        if (fds.size() > before.fds.size()) {
            List<String> opened = newFds(before);
            out.add("file descriptors: " + fds.size() + " open, " + before.fds.size() + " before; new: "
                    + opened.subList(0, Math.min(20, opened.size())));
        }
        return out;
    }

    @Override
    public String toString() {
        return connections + " connections, " + virtualThreads + " virtual threads, " + platformThreads.size()
                + " platform threads, " + fds.size() + " file descriptors";
    }
}
