package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The command line's JSON output. */
@Timeout(10)
class JsonWriterTest {

    @Test
    void writesEveryKindOfValue() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("s", "text");
        map.put("i", 42);
        map.put("l", Long.MAX_VALUE);
        map.put("d", 0.5);
        map.put("small", 1.0E-5);
        map.put("t", true);
        map.put("f", false);
        map.put("n", null);
        map.put("list", List.of(1, "two", List.of()));
        map.put("empty", Map.of());
        assertThat(JsonWriter.write(map)).isEqualTo("{\"s\":\"text\",\"i\":42,\"l\":9223372036854775807,\"d\":0.5,"
                + "\"small\":1.0E-5,\"t\":true,\"f\":false,\"n\":null,\"list\":[1,\"two\",[]],\"empty\":{}}");
    }

    @Test
    void keepsTheMapsOrder() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("zeta", 1);
        map.put("alpha", 2);
        assertThat(JsonWriter.write(map)).isEqualTo("{\"zeta\":1,\"alpha\":2}");
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertThat(JsonWriter.write("a\"b\\c\nd\re\tf\bg\fh\u0001i\u001fj")).isEqualTo(
                "\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001i\\u001fj\"");
        assertThat(JsonWriter.write(Map.of("k\"ey", "é€😀"))).isEqualTo("{\"k\\\"ey\":\"é€😀\"}");
    }

    @Test
    void listsMayHoldNulls() {
        List<Object> list = new ArrayList<>(Arrays.asList(null, 1));
        assertThat(JsonWriter.write(list)).isEqualTo("[null,1]");
    }

    @Test
    void rejectsWhatJsonCannotHold() {
        assertThatThrownBy(() -> JsonWriter.write(Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NaN");
        assertThatThrownBy(() -> JsonWriter.write(Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JsonWriter.write(new Object())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Object");
    }
}
