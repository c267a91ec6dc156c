package io.sluice.compat.official;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer for the driver's one-line result (maps keep their insertion order). Values may be maps,
 * lists, strings, numbers, booleans or null; anything else is written as its string. Non-finite doubles become
 * {@code null}. Stateless and thread-safe.
 */
final class Json {
    private Json() {
    }

    /** @return {@code value} as compact JSON on one line */
    static String write(Object value) {
        StringBuilder out = new StringBuilder(512);
        append(out, value);
        return out.toString();
    }

    private static void append(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                string(out, String.valueOf(e.getKey()));
                out.append(':');
                append(out, e.getValue());
                if (it.hasNext()) {
                    out.append(',');
                }
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                append(out, list.get(i));
            }
            out.append(']');
        } else if (value instanceof Double d) {
            number(out, d);
        } else if (value instanceof Float f) {
            number(out, f.doubleValue());
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            string(out, value.toString());
        }
    }

    private static void number(StringBuilder out, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            out.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            out.append((long) d);
        } else {
            // three significant decimals are plenty for timings and rates
            out.append(Math.round(d * 1000.0) / 1000.0);
        }
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
