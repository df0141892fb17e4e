package io.gpux.sim.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's JSON, written by Jackson from nested {@link Map}s (insertion order kept), {@link List}s,
 * strings, numbers, booleans and null. The layout is for people reading the file: two-space
 * indentation, {@code "key": value}, an array of plain values on one line ({@code [1, 2, 3]}), an
 * array of objects or arrays one element a line; a whole double keeps its {@code .0}, NaN and the
 * infinities become null.
 */
public final class Json
{
    private static final ObjectMapper FLAT = mapper(false);
    private static final ObjectMapper PRETTY = mapper(true);

    private Json()
    {
    }

    /** A fresh ordered object. */
    public static Map<String, Object> object()
    {
        return new LinkedHashMap<>();
    }

    /** The value as the report's JSON text, ending with a newline. */
    public static String write(final Object value)
    {
        try
        {
            return PRETTY.writeValueAsString(value) + "\n";
        }
        catch (final JsonProcessingException e)
        {
            throw new UncheckedIOException(e);
        }
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

    /**
     * Parses JSON text into ordered Maps, Lists, Strings, Integers or Longs (whole numbers written
     * without a point), Doubles, Booleans and null.
     *
     * @throws IllegalArgumentException if the text is not one JSON value.
     */
    public static Object parse(final String text)
    {
        try
        {
            return FLAT.readValue(text, Object.class);
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalArgumentException(e.getOriginalMessage(), e);
        }
    }

    private static ObjectMapper mapper(final boolean pretty)
    {
        final SimpleModule module = new SimpleModule("report")
            .addSerializer(Double.class, new DoubleSerializer())
            .addSerializer(List.class, new ListSerializer());
        final JsonMapper.Builder builder = JsonMapper.builder().addModule(module);
        if (pretty)
        {
            final Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
            builder.defaultPrettyPrinter(new DefaultPrettyPrinter(separators)
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n")))
                .enable(SerializationFeature.INDENT_OUTPUT);
        }
        return builder.build();
    }

    /** A whole double keeps its {@code .0} (up to 1e15, past which Java writes an exponent); NaN and infinities are null. */
    private static final class DoubleSerializer extends StdSerializer<Double>
    {
        DoubleSerializer()
        {
            super(Double.class);
        }

        @Override
        public void serialize(final Double value, final JsonGenerator gen, final SerializerProvider provider)
            throws IOException
        {
            final double d = value;
            if (Double.isNaN(d) || Double.isInfinite(d))
            {
                gen.writeNull();
            }
            else if (d == Math.rint(d) && Math.abs(d) < 1e15)
            {
                gen.writeNumber(String.format(Locale.ROOT, "%.1f", d));
            }
            else
            {
                gen.writeNumber(d);
            }
        }
    }

    /** An array of plain values on one line, {@code [1, 2, 3]}; one of objects or arrays laid out like an object. */
    @SuppressWarnings("rawtypes")
    private static final class ListSerializer extends StdSerializer<List>
    {
        ListSerializer()
        {
            super(List.class);
        }

        @Override
        public void serialize(final List list, final JsonGenerator gen, final SerializerProvider provider)
            throws IOException
        {
            final boolean flat = list.stream().noneMatch(v -> v instanceof Map || v instanceof List);
            if (flat)
            {
                final StringBuilder line = new StringBuilder().append('[');
                for (int i = 0; i < list.size(); i++)
                {
                    line.append(i > 0 ? ", " : "").append(FLAT.writeValueAsString(list.get(i)));
                }
                gen.writeRawValue(line.append(']').toString());
                return;
            }
            gen.writeStartArray(list, list.size());
            for (final Object value : list)
            {
                provider.defaultSerializeValue(value, gen);
            }
            gen.writeEndArray();
        }
    }
}
