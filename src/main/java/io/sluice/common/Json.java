package io.sluice.common;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader (RFC 8259) for the few documents the auth package reads: OAuth2 token responses, JWT
 * claim sets and {@code keycloak.json}. No dependency, no reflection, no data binding.
 *
 * <p>Values map to: object → {@code Map<String, Object>} (insertion order; a repeated name keeps the last value),
 * array → {@code List<Object>}, string → {@link String}, number → {@link BigDecimal}, {@code true}/{@code false} →
 * {@link Boolean}, {@code null} → {@code null}. Maps and lists are unmodifiable. Nesting is limited to
 * {@value #MAX_DEPTH} levels so hostile input cannot exhaust the stack. Stateless and thread-safe.
 */
public final class Json {
    /** The deepest nesting of objects and arrays accepted. */
    public static final int MAX_DEPTH = 64;

    /** A document that is not valid JSON; the message says where and why. */
    public static final class ParseException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        ParseException(String message) {
            super(message);
        }
    }

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value; whitespace may surround it, anything else after it is an error.
     *
     * @param text the document
     * @return the value, mapped as the class comment says (null for the literal {@code null})
     * @throws ParseException if {@code text} is not exactly one valid JSON value
     */
    public static Object parse(String text) {
        if (text == null) {
            throw new ParseException("no JSON document (null)");
        }
        Json reader = new Json(text);
        reader.skipWhitespace();
        Object value = reader.readValue(0);
        reader.skipWhitespace();
        if (reader.pos != text.length()) {
            throw reader.error("unexpected " + reader.describeCurrent() + " after the JSON value");
        }
        return value;
    }

    /**
     * Parses a document that must be a JSON object.
     *
     * @param text the document
     * @return its members
     * @throws ParseException if {@code text} is not valid JSON or not an object
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) {
            throw new ParseException("expected a JSON object but found " + typeName(value));
        }
        return (Map<String, Object>) value;
    }

    /** @return a short name of a parsed value's JSON type, for messages */
    public static String typeName(Object value) {
        if (value == null) {
            return "null";
        } else if (value instanceof Map) {
            return "an object";
        } else if (value instanceof List) {
            return "an array";
        } else if (value instanceof String) {
            return "a string";
        } else if (value instanceof BigDecimal) {
            return "a number";
        } else {
            return "a boolean";
        }
    }

    private Object readValue(int depth) {
        if (pos >= text.length()) {
            throw error("unexpected end of input, expected a value");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> readObject(depth + 1);
            case '[' -> readArray(depth + 1);
            case '"' -> readString();
            case 't' -> readLiteral("true", Boolean.TRUE);
            case 'f' -> readLiteral("false", Boolean.FALSE);
            case 'n' -> readLiteral("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield readNumber();
                }
                throw error("unexpected " + describeCurrent() + ", expected a value");
            }
        };
    }

    private Map<String, Object> readObject(int depth) {
        checkDepth(depth);
        pos++; // '{'
        Map<String, Object> members = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return Collections.unmodifiableMap(members);
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("unexpected " + describeCurrent() + ", expected a member name in quotes");
            }
            String name = readString();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            members.put(name, readValue(depth));
            skipWhitespace();
            char c = peek();
            if (c == ',') {
                pos++;
            } else if (c == '}') {
                pos++;
                return Collections.unmodifiableMap(members);
            } else {
                throw error("unexpected " + describeCurrent() + " in an object, expected ',' or '}'");
            }
        }
    }

    private List<Object> readArray(int depth) {
        checkDepth(depth);
        pos++; // '['
        List<Object> items = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return Collections.unmodifiableList(items);
        }
        while (true) {
            skipWhitespace();
            items.add(readValue(depth));
            skipWhitespace();
            char c = peek();
            if (c == ',') {
                pos++;
            } else if (c == ']') {
                pos++;
                return Collections.unmodifiableList(items);
            } else {
                throw error("unexpected " + describeCurrent() + " in an array, expected ',' or ']'");
            }
        }
    }

    private String readString() {
        int start = pos;
        pos++; // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                pos = start;
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            } else if (c == '\\') {
                readEscape(out);
            } else if (c < 0x20) {
                pos--;
                throw error("control character U+" + String.format("%04X", (int) c) + " inside a string");
            } else {
                out.append(c);
            }
        }
    }

    private void readEscape(StringBuilder out) {
        if (pos >= text.length()) {
            throw error("unterminated escape sequence");
        }
        char c = text.charAt(pos++);
        switch (c) {
            case '"' -> out.append('"');
            case '\\' -> out.append('\\');
            case '/' -> out.append('/');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            // Surrogate pairs arrive as two \\u escapes; appending both code units reassembles the character.
            case 'u' -> out.append(readHex4());
            default -> {
                pos--;
                throw error("invalid escape '\\" + c + "'");
            }
        }
    }

    private char readHex4() {
        if (pos + 4 > text.length()) {
            throw error("truncated \\u escape");
        }
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos), 16);
            if (digit < 0) {
                throw error("invalid hex digit " + describeCurrent() + " in a \\u escape");
            }
            value = (value << 4) | digit;
            pos++;
        }
        return (char) value;
    }

    private BigDecimal readNumber() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            skipDigits();
        } else {
            throw error("expected a digit in a number but found " + describeCurrent());
        }
        if (peek() == '.') {
            pos++;
            if (!isDigit(peek())) {
                throw error("expected a digit after the decimal point but found " + describeCurrent());
            }
            skipDigits();
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!isDigit(peek())) {
                throw error("expected a digit in the exponent but found " + describeCurrent());
            }
            skipDigits();
        }
        String lexeme = text.substring(start, pos);
        try {
            return new BigDecimal(lexeme);
        } catch (NumberFormatException e) {
            // only an exponent beyond int range gets here
            pos = start;
            throw error("number out of range: " + abbreviate(lexeme));
        }
    }

    private Object readLiteral(String literal, Object value) {
        if (!text.startsWith(literal, pos)) {
            throw error("unexpected " + describeCurrent() + ", expected a value");
        }
        pos += literal.length();
        return value;
    }

    private void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH + " levels");
        }
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("unexpected " + describeCurrent() + ", expected '" + c + "'");
        }
        pos++;
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private void skipDigits() {
        while (isDigit(peek())) {
            pos++;
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** @return the current character, or NUL at the end (NUL never starts or continues a valid token) */
    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private String describeCurrent() {
        if (pos >= text.length()) {
            return "end of input";
        }
        char c = text.charAt(pos);
        return c < 0x20 || c > 0x7e ? "character U+" + String.format("%04X", (int) c) : "'" + c + "'";
    }

    private ParseException error(String what) {
        return new ParseException("malformed JSON at offset " + pos + ": " + what);
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
