package io.sluice;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which {@code io.sluice} package uses which, read from Java sources: every {@code io.sluice.<package>.<Type>} named
 * in code (imports, static imports and fully qualified names; comments and literals do not count). Each edge keeps
 * one file that makes it, so a report can say where to look.
 */
final class PackageGraph {

    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    /** A qualified name: lower-case segments (the package), then the first upper-case one (a type) or {@code *}. */
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.sluice(?:\\.[a-z_][\\w]*)+\\.(?:[A-Z]|\\*)");

    /** from package → to package → one source file (relative to the root) that makes the edge. */
    private final Map<String, Map<String, String>> edges = new TreeMap<>();
    /** from package → to package → every source file that makes the edge. */
    private final Map<String, Map<String, TreeSet<String>>> files = new TreeMap<>();

    /** @return the graph of the {@code .java} files under {@code root} */
    static PackageGraph read(Path root) {
        PackageGraph graph = new PackageGraph();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                graph.add(root.relativize(file).toString(), Files.readString(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return graph;
    }

    /** Adds the references of one source file. */
    void add(String file, String source) {
        String code = codeOnly(source);
        Matcher pkg = PACKAGE.matcher(code);
        if (!pkg.find()) {
            return;
        }
        String from = pkg.group(1);
        Map<String, String> targets = edges.computeIfAbsent(from, k -> new TreeMap<>());
        Matcher ref = REFERENCE.matcher(code);
        while (ref.find()) {
            String name = ref.group();
            String to = name.substring(0, name.lastIndexOf('.'));
            if (!to.equals(from)) {
                targets.putIfAbsent(to, file);
                files.computeIfAbsent(from, k -> new TreeMap<>()).computeIfAbsent(to, k -> new TreeSet<>()).add(file);
            }
        }
    }

    /** @return the packages {@code from} uses, each with every file that uses it */
    Map<String, TreeSet<String>> usesByFile(String from) {
        return files.getOrDefault(from, Map.of());
    }

    /** @return every package that has a source file */
    Set<String> packages() {
        return edges.keySet();
    }

    /** @return the packages {@code from} uses, each with one file that uses it */
    Map<String, String> uses(String from) {
        return edges.getOrDefault(from, Map.of());
    }

    /**
     * @return one cycle per group of packages that reach each other (Tarjan's strongly connected components), each
     *     as a line naming the packages in order and the file behind each arrow; empty when there is none
     */
    List<String> cycles() {
        List<String> out = new ArrayList<>();
        for (TreeSet<String> component : components()) {
            if (component.size() > 1) {
                out.add(describe(cycleWithin(component)));
            }
        }
        return out;
    }

    private List<TreeSet<String>> components() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        List<TreeSet<String>> found = new ArrayList<>();
        for (String v : nodes()) {
            if (!index.containsKey(v)) {
                strongConnect(v, index, low, stack, found);
            }
        }
        return found;
    }

    private void strongConnect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
            List<TreeSet<String>> found) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        for (String w : uses(v).keySet()) {
            if (!index.containsKey(w)) {
                strongConnect(w, index, low, stack, found);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (stack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            TreeSet<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                component.add(w);
            } while (!w.equals(v));
            found.add(component);
        }
    }

    /** @return a shortest path from the component's first package back to itself, staying inside the component */
    private List<String> cycleWithin(TreeSet<String> component) {
        String start = component.first();
        Map<String, String> previous = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String v = queue.poll();
            for (String w : uses(v).keySet()) {
                if (w.equals(start)) {
                    List<String> path = new ArrayList<>(List.of(start));
                    for (String at = v; !at.equals(start); at = previous.get(at)) {
                        path.add(1, at);
                    }
                    path.add(start);
                    return path;
                }
                if (component.contains(w) && !previous.containsKey(w)) {
                    previous.put(w, v);
                    queue.add(w);
                }
            }
        }
        throw new IllegalStateException("no cycle through " + start + " in " + component);
    }

    private String describe(List<String> path) {
        StringBuilder line = new StringBuilder(path.get(0));
        for (int i = 1; i < path.size(); i++) {
            line.append(" -> ").append(path.get(i)).append(" (").append(uses(path.get(i - 1)).get(path.get(i)))
                    .append(')');
        }
        return line.toString();
    }

    private TreeSet<String> nodes() {
        TreeSet<String> all = new TreeSet<>(edges.keySet());
        edges.values().forEach(m -> all.addAll(m.keySet()));
        return all;
    }

    /** @return {@code source} with comments, string, text-block and char literals blanked out (lines kept) */
    static String codeOnly(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            String end = source.startsWith("//", i) ? "\n"
                    : source.startsWith("/*", i) ? "*/"
                    : source.startsWith("\"\"\"", i) ? "\"\"\""
                    : source.charAt(i) == '"' || source.charAt(i) == '\'' ? String.valueOf(source.charAt(i))
                    : null;
            if (end == null) {
                out.append(source.charAt(i++));
                continue;
            }
            int opening = end.equals("\n") ? 2 : end.length(); // "//", "/*", a text block's or a literal's quote
            int stop = closing(source, i + opening, end);
            for (; i < stop; i++) {
                out.append(source.charAt(i) == '\n' ? '\n' : ' ');
            }
        }
        return out.toString();
    }

    /** @return the index just after {@code end} at or after {@code from}, skipping backslash escapes in literals */
    private static int closing(String source, int from, String end) {
        boolean literal = !end.equals("\n") && !end.equals("*/");
        int i = from;
        while (i < source.length()) {
            if (literal && source.charAt(i) == '\\') {
                i += 2;
            } else if (source.startsWith(end, i)) {
                return end.equals("\n") ? i : i + end.length();
            } else {
                i++;
            }
        }
        return source.length();
    }
}
