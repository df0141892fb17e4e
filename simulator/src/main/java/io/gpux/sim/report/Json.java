package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Just enough JSON for the report: write nested {@link Map}s (insertion order kept), {@link List}s,
 * strings, numbers, booleans and null; read it back (for tests).
 */
public final class Json
{
    private Json()
    {
    }

    /** A fresh ordered object. */
    public static Map<String, Object> object()
    {
        return new LinkedHashMap<>();
    }

    public static String write(final Object value)
    {
        final StringBuilder sb = new StringBuilder(1 << 16);
        write(sb, value, 0);
        sb.append('\n');
        return sb.toString();
    }

    /** A double rounded to {@code decimals} places (NaN and infinities become null). */
    public static Object round(final double v, final int decimals)
    {
        if (Double.isNaN(v) || Double.isInfinite(v))
        {
            return null;
        }
        final double scale = Math.pow(10, decimals);
        return Math.round(v * scale) / scale;
    }

    private static void write(final StringBuilder sb, final Object value, final int indent)
    {
        if (value == null)
        {
            sb.append("null");
        }
        else if (value instanceof Map<?, ?> map)
        {
            if (map.isEmpty())
            {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            int i = 0;
            for (final Map.Entry<?, ?> e : map.entrySet())
            {
                pad(sb, indent + 1);
                string(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), indent + 1);
                sb.append(++i < map.size() ? ",\n" : "\n");
            }
            pad(sb, indent);
            sb.append('}');
        }
        else if (value instanceof List<?> list)
        {
            final boolean flat = list.stream().noneMatch(v -> v instanceof Map || v instanceof List);
            if (flat)
            {
                sb.append('[');
                for (int i = 0; i < list.size(); i++)
                {
                    if (i > 0)
                    {
                        sb.append(", ");
                    }
                    write(sb, list.get(i), indent);
                }
                sb.append(']');
                return;
            }
            sb.append("[\n");
            for (int i = 0; i < list.size(); i++)
            {
                pad(sb, indent + 1);
                write(sb, list.get(i), indent + 1);
                sb.append(i + 1 < list.size() ? ",\n" : "\n");
            }
            pad(sb, indent);
            sb.append(']');
        }
        else if (value instanceof String s)
        {
            string(sb, s);
        }
        else if (value instanceof Double d)
        {
            if (d.isNaN() || d.isInfinite())
            {
                sb.append("null");
            }
            else if (d == Math.rint(d) && Math.abs(d) < 1e15)
            {
                sb.append(String.format(Locale.ROOT, "%.1f", d));
            }
            else
            {
                sb.append(d);
            }
        }
        else if (value instanceof Number || value instanceof Boolean)
        {
            sb.append(value);
        }
        else
        {
            string(sb, value.toString());
        }
    }

    private static void pad(final StringBuilder sb, final int indent)
    {
        sb.append("  ".repeat(indent));
    }

    private static void string(final StringBuilder sb, final String s)
    {
        sb.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    // ------------------------------------------------------------------------------------------

    /** Parses JSON text into Maps (ordered), Lists, Strings, Doubles, Booleans and null. */
    public static Object parse(final String text)
    {
        final Parser p = new Parser(text);
        final Object v = p.value();
        p.skip();
        if (p.pos != text.length())
        {
            throw new IllegalArgumentException("trailing characters at " + p.pos);
        }
        return v;
    }

    private static final class Parser
    {
        final String s;
        int pos;

        Parser(final String s)
        {
            this.s = s;
        }

        void skip()
        {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos)))
            {
                pos++;
            }
        }

        Object value()
        {
            skip();
            final char c = s.charAt(pos);
            switch (c)
            {
                case '{':
                {
                    pos++;
                    final Map<String, Object> m = new LinkedHashMap<>();
                    skip();
                    if (s.charAt(pos) == '}')
                    {
                        pos++;
                        return m;
                    }
                    while (true)
                    {
                        skip();
                        final String key = (String)value();
                        skip();
                        expect(':');
                        m.put(key, value());
                        skip();
                        if (s.charAt(pos) == ',')
                        {
                            pos++;
                            continue;
                        }
                        expect('}');
                        return m;
                    }
                }
                case '[':
                {
                    pos++;
                    final List<Object> l = new ArrayList<>();
                    skip();
                    if (s.charAt(pos) == ']')
                    {
                        pos++;
                        return l;
                    }
                    while (true)
                    {
                        l.add(value());
                        skip();
                        if (s.charAt(pos) == ',')
                        {
                            pos++;
                            continue;
                        }
                        expect(']');
                        return l;
                    }
                }
                case '"':
                {
                    pos++;
                    final StringBuilder sb = new StringBuilder();
                    while (s.charAt(pos) != '"')
                    {
                        char ch = s.charAt(pos++);
                        if (ch == '\\')
                        {
                            ch = s.charAt(pos++);
                            switch (ch)
                            {
                                case 'n' -> sb.append('\n');
                                case 'r' -> sb.append('\r');
                                case 't' -> sb.append('\t');
                                case 'u' ->
                                {
                                    sb.append((char)Integer.parseInt(s.substring(pos, pos + 4), 16));
                                    pos += 4;
                                }
                                default -> sb.append(ch);
                            }
                        }
                        else
                        {
                            sb.append(ch);
                        }
                    }
                    pos++;
                    return sb.toString();
                }
                default:
                {
                    if (s.startsWith("true", pos))
                    {
                        pos += 4;
                        return Boolean.TRUE;
                    }
                    if (s.startsWith("false", pos))
                    {
                        pos += 5;
                        return Boolean.FALSE;
                    }
                    if (s.startsWith("null", pos))
                    {
                        pos += 4;
                        return null;
                    }
                    final int start = pos;
                    while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0)
                    {
                        pos++;
                    }
                    return Double.parseDouble(s.substring(start, pos));
                }
            }
        }

        void expect(final char c)
        {
            if (s.charAt(pos) != c)
            {
                throw new IllegalArgumentException("expected '" + c + "' at " + pos);
            }
            pos++;
        }
    }
}
