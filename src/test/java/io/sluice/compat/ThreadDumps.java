package io.sluice.compat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * Writes a thread dump of this JVM, virtual threads included, when a compat test finds the client stuck: CI keeps no
 * workspace, so {@code .ci/run} prints the Sluice threads of every {@code target/stall-*.txt} when the build fails.
 */
final class ThreadDumps {
    private ThreadDumps() {
    }

    /**
     * @param name what stalled (part of the file name)
     * @return the dump's path, or a sentence saying why there is none
     */
    static String write(String name) {
        try {
            Path file = Path.of("target", "stall-" + name + "-" + System.currentTimeMillis() + ".txt").toAbsolutePath();
            Files.createDirectories(file.getParent());
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            return file.toString();
        } catch (IOException | RuntimeException e) {
            return "(no thread dump: " + e + ")";
        }
    }
}
