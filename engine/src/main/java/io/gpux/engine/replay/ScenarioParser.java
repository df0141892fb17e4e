package io.gpux.engine.replay;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;

import java.util.EnumMap;
import java.util.Map;

/**
 * Parses scenario lines (docs/market-rules.md, section 15) into engine commands. Every problem is a
 * {@link ScenarioException} naming the line; a well-formed line that breaks a market rule is left for
 * the engine to reject.
 */
public final class ScenarioParser
{
    private static final int MAX_KEYS = 16;

    /** Keys of a verb: required first, then optional. */
    private record Keys(String[] required, String[] optional)
    {
        int indexOf(final String key)
        {
            for (int i = 0; i < required.length; i++)
            {
                if (required[i].equals(key))
                {
                    return i;
                }
            }
            for (int i = 0; i < optional.length; i++)
            {
                if (optional[i].equals(key))
                {
                    return required.length + i;
                }
            }
            return -1;
        }

        String at(final int i)
        {
            return i < required.length ? required[i] : optional[i - required.length];
        }
    }

    private static final Map<CommandType, Keys> KEYS = new EnumMap<>(CommandType.class);

    static
    {
        keys(CommandType.MARKET, new String[]{"id"},
            "tick", "preemption", "graceMs", "minIncrement", "preemptIncrementBps", "fragmentFirst", "feeBps", "prepayMs",
            "maxGpusPerOrder");
        keys(CommandType.CONFIG, new String[]{}, "heartbeatIntervalMs", "heartbeatTimeoutMs", "restartWindowMs");
        keys(CommandType.ACCOUNT, new String[]{"id", "roles"});
        keys(CommandType.DEPOSIT, new String[]{"account", "amount"});
        keys(CommandType.MACHINE, new String[]{"id", "owner", "market", "gpus"}, "region", "vramGb", "interconnect");
        keys(CommandType.HEARTBEAT, new String[]{"machine"});
        keys(CommandType.ASK, new String[]{"id", "account", "machine", "gpus", "price"}, "tif", "postOnly");
        keys(CommandType.BID, new String[]{"id", "account", "market", "gpus", "price"},
            "tif", "postOnly", "gang", "noPreempt", "minReliability", "region", "maxDurationMs");
        keys(CommandType.CANCEL, new String[]{"id", "account"}, "reclaim");
        keys(CommandType.REPLACE, new String[]{"id", "account"}, "price", "gpus");
        keys(CommandType.MASS_CANCEL, new String[]{"account"}, "market");
        keys(CommandType.RELEASE, new String[]{"lease", "account"});
        keys(CommandType.HALT, new String[]{"market"});
        keys(CommandType.RESUME, new String[]{"market"});
        keys(CommandType.TICK, new String[]{});
        keys(CommandType.BOOK, new String[]{"market"}, "depth");
        keys(CommandType.KEY, new String[]{"account", "key"}, "revoke");
        keys(CommandType.COD_SESSION, new String[]{"account"}, "closed");
        keys(CommandType.RESTART, new String[]{});
    }

    private static void keys(final CommandType type, final String[] required, final String... optional)
    {
        KEYS.put(type, new Keys(required, optional));
    }

    private final Symbols symbols;
    private final String[] values = new String[MAX_KEYS];
    private long lastTime = 0;
    private int lineNo;

    public ScenarioParser(final Symbols symbols)
    {
        this.symbols = symbols;
    }

    /**
     * @return false for a blank or comment-only line (cmd untouched), true when cmd holds the command.
     */
    public boolean parse(final String line, final int lineNumber, final Command cmd) throws ScenarioException
    {
        lineNo = lineNumber;
        final int len = line.length();
        int pos = skipSpace(line, 0);
        if (pos >= len || line.charAt(pos) == '#')
        {
            return false;
        }
        int end = tokenEnd(line, pos);
        final String timeToken = line.substring(pos, end);
        if (!isDigits(timeToken, 0))
        {
            throw bad("time is not a non-negative integer: '" + timeToken + "'");
        }
        final long time = parseLong(timeToken, "time");
        if (time < lastTime)
        {
            throw bad("time goes down: " + time + " after " + lastTime);
        }
        pos = skipSpace(line, end);
        if (pos >= len || line.charAt(pos) == '#')
        {
            throw bad("missing verb");
        }
        end = tokenEnd(line, pos);
        final String verb = line.substring(pos, end);
        final CommandType type = verb(verb);
        final Keys keys = KEYS.get(type);
        java.util.Arrays.fill(values, null);
        pos = skipSpace(line, end);
        while (pos < len && line.charAt(pos) != '#')
        {
            end = tokenEnd(line, pos);
            final String token = line.substring(pos, end);
            final int eq = token.indexOf('=');
            if (eq < 0)
            {
                throw bad("not key=value: '" + token + "'");
            }
            final String key = token.substring(0, eq);
            final String value = token.substring(eq + 1);
            final int k = keys.indexOf(key);
            if (k < 0)
            {
                throw bad("unknown key '" + key + "' for " + verb);
            }
            if (values[k] != null)
            {
                throw bad("key '" + key + "' given twice");
            }
            if (value.isEmpty())
            {
                throw bad("empty value for '" + key + "'");
            }
            values[k] = value;
            pos = skipSpace(line, end);
        }
        for (int i = 0; i < keys.required().length; i++)
        {
            if (values[i] == null)
            {
                throw bad("missing required key '" + keys.required()[i] + "' for " + verb);
            }
        }
        cmd.reset(type, time);
        final int n = keys.required().length + keys.optional().length;
        for (int i = 0; i < n; i++)
        {
            if (values[i] != null)
            {
                set(cmd, type, keys.at(i), values[i]);
            }
        }
        lastTime = time;
        return true;
    }

    private CommandType verb(final String verb) throws ScenarioException
    {
        for (final CommandType t : KEYS.keySet())
        {
            if (t.name().equals(verb))
            {
                return t;
            }
        }
        throw bad("unknown verb '" + verb + "'");
    }

    private void set(final Command cmd, final CommandType type, final String key, final String v) throws ScenarioException
    {
        switch (key)
        {
            case "id" ->
            {
                switch (type)
                {
                    case MARKET ->
                    {
                        cmd.marketId = symbols.markets.id(v);
                        cmd.name = v;
                    }
                    case ACCOUNT ->
                    {
                        cmd.accountId = symbols.accounts.id(v);
                        cmd.name = v;
                    }
                    case MACHINE ->
                    {
                        cmd.machineId = symbols.machines.id(v);
                        cmd.name = v;
                    }
                    default -> cmd.orderId = symbols.orders.id(v);
                }
            }
            case "account", "owner" -> cmd.accountId = symbols.accounts.id(v);
            case "market" ->
            {
                cmd.marketId = symbols.markets.id(v);
                cmd.hasMarket = true;
            }
            case "machine" -> cmd.machineId = symbols.machines.id(v);
            case "lease" -> cmd.leaseId = symbols.leaseId(v);
            case "gpus" -> cmd.gpus = (int)Math.max(Command.ABSENT_INT + 1, Math.min(Integer.MAX_VALUE, integer(key, v)));
            case "price" -> cmd.price = decimal(key, v, 4);
            case "tick" -> cmd.tick = decimal(key, v, 4);
            case "minIncrement" -> cmd.minIncrement = decimal(key, v, 4);
            case "amount" -> cmd.amount = decimal(key, v, 6);
            case "minReliability" -> cmd.minReliabilityPpb = decimal(key, v, 9);
            case "tif" -> cmd.tif = switch (v)
            {
                case "GTC" -> TimeInForce.GTC;
                case "IOC" -> TimeInForce.IOC;
                case "FOK" -> TimeInForce.FOK;
                default -> throw bad("tif must be GTC, IOC or FOK: '" + v + "'");
            };
            case "preemption" -> cmd.preemption = switch (v)
            {
                case "on" -> 1;
                case "off" -> 0;
                default -> throw bad("preemption must be on or off: '" + v + "'");
            };
            case "postOnly" -> cmd.postOnly = bool(key, v);
            case "gang" -> cmd.gang = bool(key, v);
            case "noPreempt" -> cmd.noPreempt = bool(key, v);
            case "reclaim" -> cmd.reclaim = bool(key, v);
            case "roles" -> cmd.roles = roles(v);
            case "region" -> cmd.regionId = symbols.regions.id(v);
            case "interconnect" -> cmd.interconnectId = symbols.interconnects.id(v);
            case "graceMs" -> cmd.graceMs = integer(key, v);
            case "prepayMs" -> cmd.prepayMs = integer(key, v);
            case "feeBps" -> cmd.feeBps = integer(key, v);
            case "preemptIncrementBps" -> cmd.preemptIncrementBps = integer(key, v);
            case "fragmentFirst" -> cmd.fragmentFirst = bool(key, v);
            case "maxGpusPerOrder" -> cmd.maxGpusPerOrder = integer(key, v);
            case "maxDurationMs" -> cmd.maxDurationMs = integer(key, v);
            case "heartbeatIntervalMs" -> cmd.heartbeatIntervalMs = integer(key, v);
            case "heartbeatTimeoutMs" -> cmd.heartbeatTimeoutMs = integer(key, v);
            case "restartWindowMs" -> cmd.restartWindowMs = integer(key, v);
            case "vramGb" -> cmd.vramGb = integer(key, v);
            case "depth" -> cmd.depth = integer(key, v);
            case "key" -> cmd.keyId = integer(key, v);
            case "revoke" -> cmd.revoke = bool(key, v);
            case "closed" -> cmd.sessionClosed = bool(key, v);
            default -> throw bad("unknown key '" + key + "'");
        }
    }

    private int roles(final String v) throws ScenarioException
    {
        int roles = 0;
        int start = 0;
        while (start <= v.length())
        {
            int comma = v.indexOf(',', start);
            if (comma < 0)
            {
                comma = v.length();
            }
            final String name = v.substring(start, comma);
            final int role = Roles.parse(name);
            if (role == 0)
            {
                throw bad("unknown role '" + name + "' (RENTER, OWNER, MARKET_MAKER, ADMIN)");
            }
            roles |= role;
            start = comma + 1;
        }
        return roles;
    }

    private boolean bool(final String key, final String v) throws ScenarioException
    {
        return switch (v)
        {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(key + " must be true or false: '" + v + "'");
        };
    }

    private long integer(final String key, final String v) throws ScenarioException
    {
        if (!isDigits(v, v.startsWith("-") ? 1 : 0))
        {
            throw bad(key + " is not an integer: '" + v + "'");
        }
        return parseLong(v, key);
    }

    /** A decimal with at most {@code decimals} places, as an integer count of 10^-decimals. */
    private long decimal(final String key, final String v, final int decimals) throws ScenarioException
    {
        final int sign = v.startsWith("-") ? 1 : 0;
        final int dot = v.indexOf('.');
        final String whole = dot < 0 ? v.substring(sign) : v.substring(sign, dot);
        final String frac = dot < 0 ? "" : v.substring(dot + 1);
        if (!isDigits(whole, 0) || (dot >= 0 && !isDigits(frac, 0)))
        {
            throw bad(key + " is not a number: '" + v + "'");
        }
        if (frac.length() > decimals)
        {
            throw bad(key + " has more than " + decimals + " decimal places: '" + v + "'");
        }
        try
        {
            long value = Long.parseLong(whole);
            for (int i = 0; i < decimals; i++)
            {
                value = Math.multiplyExact(value, 10);
            }
            long f = frac.isEmpty() ? 0 : Long.parseLong(frac);
            for (int i = frac.length(); i < decimals; i++)
            {
                f *= 10;
            }
            value = Math.addExact(value, f);
            return sign == 1 ? -value : value;
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw bad(key + " is out of range: '" + v + "'");
        }
    }

    private long parseLong(final String v, final String what) throws ScenarioException
    {
        try
        {
            return Long.parseLong(v);
        }
        catch (final NumberFormatException ex)
        {
            throw bad(what + " is out of range: '" + v + "'");
        }
    }

    private static boolean isDigits(final String s, final int from)
    {
        if (s.length() <= from)
        {
            return false;
        }
        for (int i = from; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (c < '0' || c > '9')
            {
                return false;
            }
        }
        return true;
    }

    private static boolean isSpace(final char c)
    {
        return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\u000B';
    }

    private static int skipSpace(final String s, final int from)
    {
        final int len = s.length();
        int i = from;
        while (i < len && isSpace(s.charAt(i)))
        {
            i++;
        }
        return i;
    }

    private static int tokenEnd(final String s, final int from)
    {
        final int len = s.length();
        int i = from;
        while (i < len && !isSpace(s.charAt(i)))
        {
            i++;
        }
        return i;
    }

    private ScenarioException bad(final String problem)
    {
        return new ScenarioException(lineNo, problem);
    }
}
