package io.gpux.client.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.util.Map;

/**
 * A strict JSON reader for the tests, on Jackson: objects become ordered maps, arrays lists, strings
 * strings, integers longs, true/false booleans, null null. A duplicate key, a raw control character
 * in a string, text after the object and any fraction or exponent are refused: the CLI writes prices
 * and amounts as strings.
 */
final class MiniJson
{
    private static final JsonMapper MAPPER = JsonMapper.builder()
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.USE_LONG_FOR_INTS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build();

    private MiniJson()
    {
    }

    /** Parses one JSON object, which must be the whole text. */
    static Map<String, Object> object(final String text)
    {
        final JsonNode tree;
        try
        {
            tree = MAPPER.readTree(text);
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalArgumentException(e.getOriginalMessage() + ": " + text, e);
        }
        if (tree == null || !tree.isObject())
        {
            throw new IllegalArgumentException("not one JSON object: " + text);
        }
        refuseFractions(tree, text);
        return MAPPER.convertValue(tree, new TypeReference<Map<String, Object>>() { });
    }

    private static void refuseFractions(final JsonNode node, final String text)
    {
        if (node.isNumber() && !node.isIntegralNumber())
        {
            throw new IllegalArgumentException("a number that is not an integer (" + node + "): " + text);
        }
        node.forEach(child -> refuseFractions(child, text));
    }
}
