package io.gpux.client.cli;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.UncheckedIOException;

/**
 * A JSON object written as one line, for {@code --json} output: a Jackson {@link ObjectNode} that
 * keeps the order fields were put in, plus the scalar fields as {@code key=value} words for the text
 * form of the same line. The rules every command follows (docs/cli.md): keys are snake_case; prices
 * and amounts are strings of their exact decimal text ({@code "2.5000"}, {@code "12.345678"}) so that
 * no reader turns them into floating point; ids, counts and milliseconds are JSON integers; an instant
 * is {@code <name>_ms} (epoch milliseconds) followed by {@code <name>_at} (ISO-8601 UTC), a span is
 * {@code <name>_ms} alone; a value that is absent is left out, never written as 0, -1 or "".
 *
 * <pre>{@code new Json().put("type", "fill").put("gpus", 4).put("price", "2.5000").toString()}</pre>
 */
final class Json
{
    /**
     * Compact output; besides what JSON requires, U+2028 and U+2029 are escaped so that no reader
     * that splits lines on them (JavaScript, Python's {@code splitlines}) cuts a line in two.
     */
    private static final JsonMapper MAPPER =
        JsonMapper.builder(new JsonFactoryBuilder().characterEscapes(new LineSeparatorEscapes()).build()).build();

    private final ObjectNode node = JsonNodeFactory.instance.objectNode();
    private final StringBuilder human = new StringBuilder(64);

    Json put(final String key, final String value)
    {
        human(key, value);
        node.put(key, value);
        return this;
    }

    Json put(final String key, final long value)
    {
        human(key, Long.toString(value));
        node.put(key, value);
        return this;
    }

    Json put(final String key, final boolean value)
    {
        human(key, Boolean.toString(value));
        node.put(key, value);
        return this;
    }

    /** A value where 0 means none (an optional id, a size not known): left out when not positive. */
    Json putPositive(final String key, final long value)
    {
        return value > 0 ? put(key, value) : this;
    }

    /** A span of milliseconds where a negative value means none: left out when negative. */
    Json putSpan(final String key, final long ms)
    {
        return ms >= 0 ? put(key, ms) : this;
    }

    /** Text where "" means none: left out when null or empty. */
    Json putText(final String key, final String value)
    {
        return value == null || value.isEmpty() ? this : put(key, value);
    }

    /**
     * An instant as {@code <stem>_ms} (epoch milliseconds) and {@code <stem>_at} (ISO-8601 UTC with
     * milliseconds, {@code 2025-11-30T05:14:00.000Z}); both are left out when the instant is 0 (none).
     */
    Json putTime(final String stem, final long epochMs)
    {
        return epochMs == 0 ? this : put(stem + "_ms", epochMs).put(stem + "_at", Format.iso(epochMs));
    }

    /** An array of objects. */
    Json put(final String key, final Iterable<Json> values)
    {
        final ArrayNode array = node.putArray(key);
        values.forEach(value -> array.add(value.node));
        return this;
    }

    /** An array of strings. */
    Json putStrings(final String key, final Iterable<String> values)
    {
        final ArrayNode array = node.putArray(key);
        values.forEach(array::add);
        return this;
    }

    /** Appends {@code other}'s fields after this object's own; a key both have takes {@code other}'s value. */
    Json putAll(final Json other)
    {
        node.setAll(other.node);
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

    @Override
    public String toString()
    {
        try
        {
            return MAPPER.writeValueAsString(node);
        }
        catch (final JsonProcessingException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static final class LineSeparatorEscapes extends CharacterEscapes
    {
        private static final SerializedString LINE_SEPARATOR = new SerializedString("\\u2028");
        private static final SerializedString PARAGRAPH_SEPARATOR = new SerializedString("\\u2029");

        private final int[] asciiEscapes = standardAsciiEscapesForJSON();

        @Override
        public int[] getEscapeCodesForAscii()
        {
            return asciiEscapes;
        }

        @Override
        public SerializableString getEscapeSequence(final int ch)
        {
            return switch (ch)
            {
                case 0x2028 -> LINE_SEPARATOR;
                case 0x2029 -> PARAGRAPH_SEPARATOR;
                default -> null;
            };
        }
    }
}
