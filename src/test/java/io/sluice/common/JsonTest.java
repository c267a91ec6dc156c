package io.sluice.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class JsonTest {

    @Test
    void readsATokenResponse() {
        Map<String, Object> json = Json.parseObject("""
                {"access_token":"eyJ.a.b","expires_in":300,"refresh_expires_in":0,"token_type":"Bearer",
                 "not-before-policy":0,"scope":"profile email","nested":{"a":[1,2,{"b":null}]},"ok":true,"no":false}
                """);
        assertThat(json).containsEntry("access_token", "eyJ.a.b")
                .containsEntry("expires_in", new BigDecimal("300"))
                .containsEntry("token_type", "Bearer")
                .containsEntry("scope", "profile email")
                .containsEntry("ok", true)
                .containsEntry("no", false);
        assertThat(json.keySet()).startsWith("access_token", "expires_in");
        @SuppressWarnings("unchecked")
        Map<String, Object> nested = (Map<String, Object>) json.get("nested");
        @SuppressWarnings("unchecked")
        List<Object> array = (List<Object>) nested.get("a");
        assertThat(array).hasSize(3).startsWith(new BigDecimal("1"), new BigDecimal("2"));
        assertThat(array.get(2)).isEqualTo(java.util.Collections.singletonMap("b", null));
    }

    @Test
    void readsEscapesAndUnicode() {
        assertThat(Json.parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 é\""))
                .isEqualTo("a\"b\\c/d\b\f\n\r\té\uD83D\uDE00 é");
    }

    @Test
    void readsNumbers() {
        assertThat(Json.parse("-0")).isEqualTo(new BigDecimal("-0"));
        assertThat(Json.parse("1.5e3")).isEqualTo(new BigDecimal("1.5e3"));
        assertThat(Json.parse("1E-2")).isEqualTo(new BigDecimal("1E-2"));
        assertThat(Json.parse(" 12345678901234567890123 ")).isEqualTo(new BigDecimal("12345678901234567890123"));
    }

    @Test
    void emptyContainersAndWhitespace() {
        assertThat(Json.parse(" \t\r\n{ } ")).isEqualTo(Map.of());
        assertThat(Json.parse("[ ]")).isEqualTo(List.of());
        assertThat(Json.parse("null")).isNull();
    }

    @Test
    void resultIsUnmodifiable() {
        Map<String, Object> json = Json.parseObject("{\"a\":1}");
        assertThatThrownBy(() -> json.put("b", 2)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aRepeatedNameKeepsTheLastValue() {
        assertThat(Json.parseObject("{\"a\":1,\"a\":2}")).containsEntry("a", new BigDecimal("2"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[1 2]", "{a:1}", "'a'",
        "\"abc", "\"a\\x\"", "\"a\\u12\"", "\"a\\u12g4\"", "01", "-", "1.", "1e", "+1", ".5", "tru", "nul",
        "{} {}", "[1]]", "\"tab\there\"", "NaN", "{\"a\":1}x"})
    void rejectsMalformedDocuments(String text) {
        assertThatThrownBy(() -> Json.parse(text))
                .isInstanceOf(Json.ParseException.class)
                .hasMessageStartingWith("malformed JSON at offset ");
    }

    @Test
    void errorsSayWhereAndWhat() {
        assertThatThrownBy(() -> Json.parse("{\"a\":1,}"))
                .hasMessage("malformed JSON at offset 7: unexpected '}', expected a member name in quotes");
        assertThatThrownBy(() -> Json.parse("[1, 2"))
                .hasMessage("malformed JSON at offset 5: unexpected end of input in an array, expected ',' or ']'");
        assertThatThrownBy(() -> Json.parse("\"a\u0001\""))
                .hasMessage("malformed JSON at offset 2: control character U+0001 inside a string");
    }

    @Test
    void limitsNesting() {
        char[] open = new char[Json.MAX_DEPTH];
        char[] close = new char[Json.MAX_DEPTH];
        Arrays.fill(open, '[');
        Arrays.fill(close, ']');
        assertThat(Json.parse(new String(open) + new String(close))).isInstanceOf(List.class);
        assertThatThrownBy(() -> Json.parse("[" + new String(open) + new String(close) + "]"))
                .isInstanceOf(Json.ParseException.class)
                .hasMessageContaining("nesting deeper than " + Json.MAX_DEPTH);
        String deep = "[".repeat(100_000);
        assertThatThrownBy(() -> Json.parse(deep)).isInstanceOf(Json.ParseException.class);
    }

    @Test
    void parseObjectWantsAnObject() {
        assertThatThrownBy(() -> Json.parseObject("[1]"))
                .isInstanceOf(Json.ParseException.class)
                .hasMessage("expected a JSON object but found an array");
        assertThatThrownBy(() -> Json.parseObject(null)).isInstanceOf(Json.ParseException.class);
    }
}
