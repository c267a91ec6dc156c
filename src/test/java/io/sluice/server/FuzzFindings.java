package io.sluice.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The failed checks of a fuzz run, grouped by what failed (the same server error from many inputs is one group),
 * each group with its count, the first few inputs by seed and the details of the first. Bounded, so a long run that
 * keeps hitting one defect does not fill the heap. Thread-safe.
 */
final class FuzzFindings {
    private static final int SEEDS_PER_GROUP = 5;
    private static final int MAX_GROUPS = 200;

    /** One kind of failure. */
    private static final class Group {
        final String detail;
        final List<String> inputs = new ArrayList<>();
        final List<Long> seeds = new ArrayList<>();
        int count;

        Group(String detail) {
            this.detail = detail;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private int total;

    /**
     * Records a failed check.
     *
     * @param input the input that caused it, or {@code null} when no single input is known
     * @param what what failed, with details (a stack trace's first lines, say)
     */
    void add(FuzzInput input, String what) {
        String key = signature(what);
        lock.lock();
        try {
            total++;
            Group g = groups.get(key);
            if (g == null) {
                if (groups.size() >= MAX_GROUPS) {
                    return;
                }
                g = new Group(what);
                groups.put(key, g);
            }
            g.count++;
            if (input != null && g.seeds.size() < SEEDS_PER_GROUP && !g.seeds.contains(input.seed())) {
                g.seeds.add(input.seed());
                String text = input.toString();
                g.inputs.add(text.length() > 400 ? text.substring(0, 400) + "..." : text);
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of failed checks recorded */
    int total() {
        lock.lock();
        try {
            return total;
        } finally {
            lock.unlock();
        }
    }

    /** The same failure from different inputs: numbers, ports, segment names and lists left out of the message. */
    private static String signature(String what) {
        return what.replaceAll("golden/\\S*", "S").replaceAll("-?\\d+", "#").replaceAll("\\[[^\\]]*\\]", "[]");
    }

    /** @return every group: its count, the seeds that caused it (to replay) and the details of the first */
    String report() {
        lock.lock();
        try {
            if (total == 0) {
                return "wire fuzz: no findings";
            }
            java.util.Set<Long> seeds = new java.util.LinkedHashSet<>();
            groups.values().forEach(g -> g.seeds.stream().limit(2).forEach(seeds::add));
            StringBuilder sb = new StringBuilder("wire fuzz: ").append(total).append(" failed checks in ")
                    .append(groups.size()).append(" kinds");
            if (!seeds.isEmpty()) {
                sb.append("; replay with -Dsluice.fuzz.seed=").append(String.join(",",
                        seeds.stream().map(String::valueOf).toList()));
            }
            int n = 0;
            for (Group g : groups.values()) {
                sb.append("\n\n").append(++n).append(". ").append(g.count).append(" x ")
                        .append(g.detail.replace("\n", "\n      "));
                for (String input : g.inputs) {
                    sb.append("\n   from input ").append(input);
                }
            }
            return sb.toString();
        } finally {
            lock.unlock();
        }
    }
}
