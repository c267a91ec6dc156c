package io.sluice.cli;

import java.util.Collection;
import java.util.Map;

/**
 * Writes JSON text (RFC 8259) for the command line's {@code --json} output: one compact document, no dependency,
 * no reflection.
 *
 * <p>Values: {@link Map} (keys written with {@link String#valueOf}, in the map's iteration order, so use a
 * {@link java.util.LinkedHashMap}) → object; {@link Collection} → array; {@link CharSequence} → string; integral
 * {@link Number}s → integers; {@link Double}/{@link Float} → numbers in Java's shortest round-trip form (finite values
 * only); {@link Boolean} → {@code true}/{@code false}; {@code null} → {@code null}. Strings escape {@code "}, {@code \},
 * and every control character; everything else is written as is (the output is Unicode text). Stateless and
 * thread-safe.
 */
final class JsonWriter {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonWriter() {
    }

    /**
     * @param value the value, mapped as the class comment says
     * @return its JSON text on one line
     * @throws IllegalArgumentException for a non-finite number or a value of another type
     */
    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        append(sb, value);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object value) {
        switch (value) {
            case null -> sb.append("null");
            case Map<?, ?> map -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(':');
                    append(sb, e.getValue());
                }
                sb.append('}');
            }
            case Collection<?> list -> {
                sb.append('[');
                boolean first = true;
                for (Object item : list) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    append(sb, item);
                }
                sb.append(']');
            }
            case CharSequence s -> string(sb, s);
            case Boolean b -> sb.append(b.booleanValue());
            case Double d -> number(sb, d);
            case Float f -> number(sb, f.doubleValue());
            case Long l -> sb.append(l.longValue());
            case Integer i -> sb.append(i.intValue());
            case Short s -> sb.append(s.shortValue());
            case Byte b -> sb.append(b.byteValue());
            default -> throw new IllegalArgumentException("cannot write a " + value.getClass().getName() + " as JSON");
        }
    }

    private static void number(StringBuilder sb, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("JSON has no number " + d);
        }
        // Double.toString is JSON's number grammar too ("0.5", "1.0E-5"), except that it never omits the fraction
        sb.append(d);
    }

    private static void string(StringBuilder sb, CharSequence s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20) {
                        sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
