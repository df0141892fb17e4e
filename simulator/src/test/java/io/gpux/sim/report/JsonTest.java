package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest
{
    @Test
    void writesTheReportLayout()
    {
        final Map<String, Object> inner = Json.object();
        inner.put("g", true);
        final Map<String, Object> root = Json.object();
        root.put("a", 1L);
        root.put("b", 2.0);
        root.put("c", 2.5);
        root.put("d", Double.NaN);
        root.put("e", List.of(1, 2.0, "x \"y\"\n"));
        root.put("f", List.of(inner, Json.object()));
        root.put("h", Json.object());
        root.put("i", List.of());
        root.put("j", null);
        root.put("k", 1e20);
        root.put("l", 12_345_678.0);
        root.put("m", Json.round(0.12345, 3));

        assertEquals("""
            {
              "a": 1,
              "b": 2.0,
              "c": 2.5,
              "d": null,
              "e": [1, 2.0, "x \\"y\\"\\n"],
              "f": [
                {
                  "g": true
                },
                {}
              ],
              "h": {},
              "i": [],
              "j": null,
              "k": 1.0E20,
              "l": 12345678.0,
              "m": 0.123
            }
            """, Json.write(root));
    }

    @Test
    void readsBackWhatItWrites()
    {
        final Map<String, Object> root = Json.object();
        root.put("z", 3L);
        root.put("a", List.of(0.5, "s"));
        final List<Object> rows = new ArrayList<>();
        rows.add(Map.of("n", false));
        root.put("rows", rows);

        final Object back = Json.parse(Json.write(root));

        assertEquals(Map.of("z", 3, "a", List.of(0.5, "s"), "rows", List.of(Map.of("n", false))), back);
        assertEquals(List.of("z", "a", "rows"), new ArrayList<>(((Map<?, ?>)back).keySet()), "the order kept");
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\": }"));
    }
}
