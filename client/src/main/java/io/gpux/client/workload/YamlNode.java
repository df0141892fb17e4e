package io.gpux.client.workload;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document as a tree that remembers the line of every value, so that a problem can be
 * reported where the renter wrote it. Scalars keep their text as written ({@code 3.20} stays
 * {@code "3.20"}), so prices are read exactly.
 */
final class YamlNode
{
    enum Kind
    {
        MAP, LIST, SCALAR, NULL
    }

    final Kind kind;
    final int line;
    final String text;
    final Map<String, YamlNode> fields;
    final List<YamlNode> items;

    private YamlNode(
        final Kind kind,
        final int line,
        final String text,
        final Map<String, YamlNode> fields,
        final List<YamlNode> items)
    {
        this.kind = kind;
        this.line = line;
        this.text = text;
        this.fields = fields;
        this.items = items;
    }

    /**
     * Reads the value at the parser's current token, and everything under it.
     *
     * @throws DuplicateKeyException if a map names a key twice.
     */
    static YamlNode read(final JsonParser parser) throws IOException
    {
        final JsonToken token = parser.currentToken();
        final int line = parser.currentTokenLocation().getLineNr();
        switch (token)
        {
            case START_OBJECT:
            {
                final Map<String, YamlNode> fields = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME)
                {
                    final String key = parser.currentName();
                    final int keyLine = parser.currentTokenLocation().getLineNr();
                    parser.nextToken();
                    final YamlNode value = read(parser);
                    if (fields.putIfAbsent(key, value.kind == Kind.NULL ? nullAt(keyLine) : value) != null)
                    {
                        throw new DuplicateKeyException(key, keyLine);
                    }
                }
                return new YamlNode(Kind.MAP, line, null, Collections.unmodifiableMap(fields), List.of());
            }
            case START_ARRAY:
            {
                final List<YamlNode> items = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY)
                {
                    items.add(read(parser));
                }
                return new YamlNode(Kind.LIST, line, null, Map.of(), Collections.unmodifiableList(items));
            }
            case VALUE_NULL:
                return nullAt(line);
            default:
                return new YamlNode(Kind.SCALAR, line, parser.getText(), Map.of(), List.of());
        }
    }

    private static YamlNode nullAt(final int line)
    {
        return new YamlNode(Kind.NULL, line, null, Map.of(), List.of());
    }

    /** What a value is, in the words of an error message. */
    String describe()
    {
        switch (kind)
        {
            case MAP:
                return "a map";
            case LIST:
                return "a list";
            case NULL:
                return "nothing";
            default:
                return "'" + text + "'";
        }
    }

    /** A key written twice in one map. */
    static final class DuplicateKeyException extends IOException
    {
        private static final long serialVersionUID = 1L;

        final String key;
        final int line;

        DuplicateKeyException(final String key, final int line)
        {
            super("duplicate key " + key);
            this.key = key;
            this.line = line;
        }
    }
}
