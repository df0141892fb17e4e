package io.gpux.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules every {@code --json} line follows (docs/cli.md), checked on one line: snake_case keys;
 * prices and money as decimal strings with the exchange's fixed places; ids, counts and milliseconds as
 * integers; an instant as {@code _ms} with a matching {@code _at}; nothing absent written as 0, -1, ""
 * or null; no floating-point number anywhere.
 */
final class JsonRules
{
    static final Set<String> PRICES = Set.of("price", "tick", "min_increment", "max_price", "last_price", "best_bid",
        "best_ask", "open", "high", "low", "close", "lease_price", "reserve");
    static final Set<String> MONEY = Set.of("balance", "available", "cost", "fee", "charge", "net", "hold", "total",
        "amount", "spend", "earnings", "owner_fees");
    /** Other exact decimals: fractions from 0 to 1 and GPU-hours, with 6 places. */
    static final Set<String> DECIMALS = Set.of("reliability", "gpu_hours");

    /** Counts, never written as text. */
    static final Set<String> COUNTS = Set.of("gpus", "open_gpus", "free_gpus", "filled_gpus", "preempted_gpus",
        "resting_gpus", "remaining", "volume", "trades", "leases", "settlements", "matched", "shown");

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9]*(_[a-z0-9]+)*");
    private static final Pattern PRICE = Pattern.compile("[0-9]+\\.[0-9]{4}");
    private static final Pattern AMOUNT = Pattern.compile("-?[0-9]+\\.[0-9]{6}");
    private static final Pattern NUMBER_TEXT = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    private JsonRules()
    {
    }

    /** Checks one output line; throws AssertionError naming the line and the broken rule. */
    static JsonNode check(final String line)
    {
        final JsonNode node;
        try
        {
            node = MAPPER.readTree(line);
        }
        catch (final IOException e)
        {
            throw new AssertionError("not JSON: " + line, e);
        }
        if (!node.isObject() || !node.path("type").isTextual())
        {
            throw new AssertionError("not an object with a \"type\": " + line);
        }
        object(node, line);
        return node;
    }

    private static void object(final JsonNode object, final String line)
    {
        for (final Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); )
        {
            final Map.Entry<String, JsonNode> field = it.next();
            field(object, field.getKey(), field.getValue(), line);
        }
    }

    private static void field(final JsonNode object, final String key, final JsonNode value, final String line)
    {
        rule(KEY.matcher(key).matches(), "a key that is not snake_case", key, line);
        rule(!value.isNull(), "null instead of leaving the field out", key, line);
        rule(!value.isNumber() || value.isIntegralNumber(), "a floating-point number", key, line);
        if (value.isArray())
        {
            value.forEach(element ->
            {
                rule(!element.isNumber() || element.isIntegralNumber(), "a floating-point number", key, line);
                if (element.isObject())
                {
                    object(element, line);
                }
            });
            return;
        }
        if (value.isObject())
        {
            object(value, line);
            return;
        }
        if (PRICES.contains(key))
        {
            rule(value.isTextual() && PRICE.matcher(value.asText()).matches(), "a price not as \"0.0000\"", key, line);
        }
        else if (MONEY.contains(key))
        {
            rule(value.isTextual() && AMOUNT.matcher(value.asText()).matches(), "money not as \"0.000000\"", key, line);
        }
        else if (DECIMALS.contains(key))
        {
            rule(value.isTextual() && AMOUNT.matcher(value.asText()).matches(), "a decimal not as \"0.000000\"", key, line);
        }
        else if (value.isTextual())
        {
            rule(!value.asText().isEmpty(), "\"\" instead of leaving the field out", key, line);
            rule(!NUMBER_TEXT.matcher(value.asText()).matches() || key.endsWith("_at"),
                "a number as text in a field that is not a documented decimal", key, line);
        }
        if (key.endsWith("_id") || key.equals("seq") || key.equals("command_seq"))
        {
            rule(value.isIntegralNumber() && value.asLong() > 0, "an id or sequence number that is not a positive integer",
                key, line);
        }
        if (key.endsWith("_seq") || COUNTS.contains(key))
        {
            rule(value.isIntegralNumber() && value.asLong() >= 0, "a count that is not an integer >= 0", key, line);
        }
        if (key.endsWith("_ms") || key.equals("ms"))
        {
            rule(value.isIntegralNumber() && value.asLong() >= 0, "milliseconds that are not an integer >= 0", key, line);
        }
        if (key.endsWith("_at"))
        {
            final String stem = key.substring(0, key.length() - "_at".length());
            final JsonNode ms = object.get(stem + "_ms");
            rule(ms != null && ms.isIntegralNumber() && ms.asLong() > 0, "an _at without its _ms", key, line);
            rule(value.asText().equals(Format.iso(ms.asLong())), "an _at that is not its _ms in ISO-8601 UTC", key, line);
        }
    }

    private static void rule(final boolean holds, final String broken, final String key, final String line)
    {
        if (!holds)
        {
            throw new AssertionError(broken + ": \"" + key + "\" in " + line);
        }
    }
}
