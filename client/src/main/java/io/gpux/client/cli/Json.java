package io.gpux.client.cli;

/**
 * A JSON object written as one line, for {@code --json} output. Prices and amounts are put as strings
 * of their exact decimal text ({@code "2.5000"}, {@code "12.345678"}) so that no reader turns them
 * into floating point; ids, counts and times are JSON integers.
 *
 * <pre>{@code new Json().put("type", "fill").put("gpus", 4).put("price", "2.5000").toString()}</pre>
 */
final class Json
{
    private final StringBuilder sb = new StringBuilder(128).append('{');
    private final StringBuilder human = new StringBuilder(64);
    private boolean empty = true;

    Json put(final String key, final String value)
    {
        human(key, value);
        key(key);
        if (value == null)
        {
            sb.append("null");
        }
        else
        {
            quote(sb, value);
        }
        return this;
    }

    Json put(final String key, final long value)
    {
        human(key, Long.toString(value));
        key(key).append(value);
        return this;
    }

    Json put(final String key, final boolean value)
    {
        human(key, Boolean.toString(value));
        key(key).append(value);
        return this;
    }

    /** An array of objects. */
    Json put(final String key, final Iterable<Json> values)
    {
        return array(key, values, (out, value) -> out.append(value));
    }

    /** An array of strings. */
    Json putStrings(final String key, final Iterable<String> values)
    {
        return array(key, values, Json::quote);
    }

    private <T> Json array(final String key, final Iterable<T> values, final java.util.function.BiConsumer<StringBuilder, T> write)
    {
        key(key).append('[');
        boolean first = true;
        for (final T value : values)
        {
            if (!first)
            {
                sb.append(',');
            }
            first = false;
            write.accept(sb, value);
        }
        sb.append(']');
        return this;
    }

    /** The scalar fields as {@code key=value} words, for the text form of a result line. */
    String human()
    {
        return human.toString();
    }

    private void human(final String key, final String value)
    {
        if (human.length() > 0)
        {
            human.append(' ');
        }
        human.append(key).append('=').append(value);
    }

    private StringBuilder key(final String key)
    {
        if (!empty)
        {
            sb.append(',');
        }
        empty = false;
        quote(sb, key);
        return sb.append(':');
    }

    @Override
    public String toString()
    {
        return sb + "}";
    }

    /** Appends a JSON string literal (RFC 8259): quotes, backslashes and control characters escaped. */
    static void quote(final StringBuilder out, final String s)
    {
        out.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default ->
                {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029)
                    {
                        out.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
