package io.gpux.client.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON reader for the tests: objects become maps, arrays lists, strings strings,
 * integers longs, true/false booleans, null null. A fraction or exponent is refused: the CLI writes
 * prices and amounts as strings.
 */
final class MiniJson
{
    private final String text;
    private int pos;

    private MiniJson(final String text)
    {
        this.text = text;
    }

    /** Parses one JSON object, which must be the whole text. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(final String text)
    {
        final MiniJson p = new MiniJson(text.trim());
        final Object value = p.value();
        if (p.pos != p.text.length() || !(value instanceof Map))
        {
            throw new IllegalArgumentException("not one JSON object: " + text);
        }
        return (Map<String, Object>)value;
    }

    private Object value()
    {
        final char c = peek();
        switch (c)
        {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                expect("true");
                return Boolean.TRUE;
            case 'f':
                expect("false");
                return Boolean.FALSE;
            case 'n':
                expect("null");
                return null;
            default:
                return number();
        }
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        if (peek() == '}')
        {
            pos++;
            return map;
        }
        while (true)
        {
            final String key = string();
            if (map.containsKey(key))
            {
                throw error("duplicate key " + key);
            }
            if (text.charAt(pos++) != ':')
            {
                throw error("':' expected");
            }
            map.put(key, value());
            final char c = text.charAt(pos++);
            if (c == '}')
            {
                return map;
            }
            if (c != ',')
            {
                throw error("',' or '}' expected");
            }
        }
    }

    private List<Object> array()
    {
        final List<Object> list = new ArrayList<>();
        pos++;
        if (peek() == ']')
        {
            pos++;
            return list;
        }
        while (true)
        {
            list.add(value());
            final char c = text.charAt(pos++);
            if (c == ']')
            {
                return list;
            }
            if (c != ',')
            {
                throw error("',' or ']' expected");
            }
        }
    }

    private String string()
    {
        if (text.charAt(pos++) != '"')
        {
            throw error("string expected");
        }
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            final char c = text.charAt(pos++);
            if (c == '"')
            {
                return sb.toString();
            }
            if (c < 0x20)
            {
                throw error("raw control character in a string");
            }
            if (c != '\\')
            {
                sb.append(c);
                continue;
            }
            final char e = text.charAt(pos++);
            switch (e)
            {
                case '"', '\\', '/' -> sb.append(e);
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' ->
                {
                    sb.append((char)Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private Long number()
    {
        final int start = pos;
        if (peek() == '-')
        {
            pos++;
        }
        while (pos < text.length() && Character.isDigit(text.charAt(pos)))
        {
            pos++;
        }
        if (pos == start || (pos < text.length() && (text.charAt(pos) == '.' || text.charAt(pos) == 'e')))
        {
            throw error("an integer expected");
        }
        return Long.parseLong(text.substring(start, pos));
    }

    private void expect(final String word)
    {
        if (!text.startsWith(word, pos))
        {
            throw error(word + " expected");
        }
        pos += word.length();
    }

    private char peek()
    {
        if (pos >= text.length())
        {
            throw error("unexpected end");
        }
        return text.charAt(pos);
    }

    private IllegalArgumentException error(final String problem)
    {
        return new IllegalArgumentException(problem + " at " + pos + " of " + text);
    }
}
