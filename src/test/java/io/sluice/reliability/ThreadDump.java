package io.sluice.reliability;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * Writes a thread dump of this JVM, virtual threads included, to {@code target/stall-<name>-<time>.txt} when the
 * workload finds a call hung (CI prints the {@code target/stall-*.txt} files of a failed build).
 */
final class ThreadDump {
    private ThreadDump() {
    }

    /**
     * @param name what hung (part of the file name)
     * @return the dump's path, or a sentence saying why there is none
     */
    static String write(String name) {
        try {
            Path file = Path.of("target", "stall-" + name + "-" + System.nanoTime() + ".txt").toAbsolutePath();
            Files.createDirectories(file.getParent());
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            return file.toString();
        } catch (IOException | RuntimeException e) {
            return "(no thread dump: " + e + ")";
        }
    }
}
