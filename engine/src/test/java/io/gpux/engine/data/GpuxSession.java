package io.gpux.engine.data;

import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioReplayer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A gpux engine driven through scenario lines (docs/market-rules.md, section 15), for tests that translate other
 * people's matching vectors into gpux commands and read gpux's events back.
 *
 * <p>Every market is set up the way a plain limit order book behaves: {@code preemption=off},
 * {@code feeBps=0}, a very large {@code maxGpusPerOrder}, and a prepay period of a day so no lease settles
 * while a vector runs. Heartbeat timeouts are disabled, so every machine stays online after one heartbeat.
 */
final class GpuxSession
{
    /** Large enough for any order of the vectors, small enough for an {@code int} machine GPU count. */
    static final int HUGE_GPUS = 2_000_000_000;
    /** Currency deposited into every buying account: covers every hold of the vectors. */
    static final String HUGE_DEPOSIT = "100000000000";
    static final long PREPAY_MS = 86_400_000L;

    private final StringBuilder out = new StringBuilder(1 << 12);
    private final ScenarioReplayer replayer = new ScenarioReplayer(out);
    private final Map<String, String> machineOf = new HashMap<>();
    private long time;
    private int lines;

    GpuxSession()
    {
        run("CONFIG heartbeatTimeoutMs=0");
    }

    long time()
    {
        return time;
    }

    /** Moves the clock forward (never back) for the next command. */
    void time(final long timeMs)
    {
        time = Math.max(time, timeMs);
    }

    /** Runs one command (without its time) at the session's clock and returns the events it printed. */
    List<String> run(final String command)
    {
        out.setLength(0);
        lines++;
        try
        {
            replayer.line(time + " " + command);
        }
        catch (final ScenarioException ex)
        {
            throw new AssertionError("gpux rejected test-generated line '" + command + "': " + ex.getMessage(), ex);
        }
        return splitLines(out);
    }

    /** Like {@link #run(String)}, but writes the events straight into {@code sink} without splitting. */
    void runInto(final String command, final StringBuilder sink)
    {
        out.setLength(0);
        lines++;
        try
        {
            replayer.line(time + " " + command);
        }
        catch (final ScenarioException ex)
        {
            throw new AssertionError("gpux rejected test-generated line '" + command + "': " + ex.getMessage(), ex);
        }
        sink.setLength(0);
        sink.append(out);
    }

    int linesRun()
    {
        return lines;
    }

    void market(final String symbol)
    {
        expectSilent(run("MARKET id=" + symbol + " preemption=off feeBps=0 maxGpusPerOrder=" + HUGE_GPUS +
            " prepayMs=" + PREPAY_MS));
    }

    /**
     * Creates an account with a large deposit and, when it may sell, one online machine per market it
     * will sell in ({@link #machine(String, String)}).
     */
    void account(final String account, final String roles)
    {
        expectSilent(run("ACCOUNT id=" + account + " roles=" + roles));
        if (!roles.equals("OWNER"))
        {
            run("DEPOSIT account=" + account + " amount=" + HUGE_DEPOSIT);
        }
    }

    /** @return the id of the account's machine in the market, registering it and bringing it online first. */
    String machine(final String account, final String market)
    {
        return machineOf.computeIfAbsent(account + "|" + market, k ->
        {
            final String id = "m-" + account + "-" + market;
            expectSilent(run("MACHINE id=" + id + " owner=" + account + " market=" + market + " gpus=" + HUGE_GPUS));
            run("HEARTBEAT machine=" + id);
            return id;
        });
    }

    /** @return the top {@code depth} levels of both sides of the book, as gpux's {@code BOOK} prints them. */
    Book book(final String market, final int depth)
    {
        final List<String> events = run("BOOK market=" + market + " depth=" + depth);
        if (events.size() != 1 || !"BOOK".equals(verb(events.get(0))))
        {
            throw new AssertionError("BOOK printed " + events);
        }
        return Book.parse(events.get(0));
    }

    private static void expectSilent(final List<String> events)
    {
        if (!events.isEmpty())
        {
            throw new AssertionError("setup command printed " + events);
        }
    }

    static List<String> splitLines(final CharSequence text)
    {
        final List<String> result = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++)
        {
            if (text.charAt(i) == '\n')
            {
                result.add(text.subSequence(start, i).toString());
                start = i + 1;
            }
        }
        if (start < text.length())
        {
            result.add(text.subSequence(start, text.length()).toString());
        }
        return result;
    }

    /** @return the event name of an output line ({@code <time> <EVENT> key=value ...}). */
    static String verb(final String event)
    {
        final int a = event.indexOf(' ');
        final int b = event.indexOf(' ', a + 1);
        return b < 0 ? event.substring(a + 1) : event.substring(a + 1, b);
    }

    /** @return the value of {@code key} in an output line, or null. */
    static String value(final String event, final String key)
    {
        final String probe = " " + key + "=";
        final int at = event.indexOf(probe);
        if (at < 0)
        {
            return null;
        }
        final int from = at + probe.length();
        final int end = event.indexOf(' ', from);
        return end < 0 ? event.substring(from) : event.substring(from, end);
    }

    /** Prices in 1e-4 units (gpux ticks), as written with 4 decimals. */
    static long ticks(final String price)
    {
        final int dot = price.indexOf('.');
        if (dot < 0)
        {
            return Long.parseLong(price) * 10_000L;
        }
        if (price.length() - dot - 1 > 4)
        {
            throw new IllegalArgumentException("more than 4 decimals: " + price);
        }
        final String frac = (price.substring(dot + 1) + "0000").substring(0, 4);
        final long whole = Long.parseLong(price.substring(0, dot).isEmpty() ? "0" : price.substring(0, dot));
        return whole * 10_000L + Long.parseLong(frac);
    }

    /** @return a price in gpux's scenario form (4 decimals) from ticks. */
    static String price(final long ticks)
    {
        final String frac = Long.toString(ticks % 10_000L);
        return ticks / 10_000L + "." + "0000".substring(frac.length()) + frac;
    }

    /** Both sides of a {@code BOOK} line: price ticks and GPUs per level, best first. */
    record Book(long[] bidPrices, long[] bidGpus, long[] askPrices, long[] askGpus)
    {
        static Book parse(final String line)
        {
            final String bids = value(line, "bids");
            final String asks = value(line, "asks");
            final long[][] b = levels(bids);
            final long[][] a = levels(asks);
            return new Book(b[0], b[1], a[0], a[1]);
        }

        /** Parses {@code price:gpus,...} without intermediate strings (the LOBSTER replay reads a book per message). */
        private static long[][] levels(final String text)
        {
            if (text == null || text.equals("-"))
            {
                return new long[][]{new long[0], new long[0]};
            }
            int n = 1;
            for (int i = 0; i < text.length(); i++)
            {
                if (text.charAt(i) == ',')
                {
                    n++;
                }
            }
            final long[] prices = new long[n];
            final long[] gpus = new long[n];
            int level = 0;
            long whole = 0;
            long frac = 0;
            int fracDigits = -1;
            long qty = 0;
            boolean inQty = false;
            for (int i = 0; i <= text.length(); i++)
            {
                final char c = i == text.length() ? ',' : text.charAt(i);
                if (c == ',')
                {
                    for (int d = Math.max(fracDigits, 0); d < 4; d++)
                    {
                        frac *= 10;
                    }
                    prices[level] = whole * 10_000L + frac;
                    gpus[level++] = qty;
                    whole = 0;
                    frac = 0;
                    fracDigits = -1;
                    qty = 0;
                    inQty = false;
                }
                else if (c == ':')
                {
                    inQty = true;
                }
                else if (c == '.')
                {
                    fracDigits = 0;
                }
                else if (inQty)
                {
                    qty = qty * 10 + (c - '0');
                }
                else if (fracDigits >= 0)
                {
                    frac = frac * 10 + (c - '0');
                    fracDigits++;
                }
                else
                {
                    whole = whole * 10 + (c - '0');
                }
            }
            return new long[][]{prices, gpus};
        }

        /** @return {@code "price:gpus,..."} of one side with prices in the given formatter, {@code -} when empty. */
        static String format(final long[] prices, final long[] gpus)
        {
            if (prices.length == 0)
            {
                return "-";
            }
            final StringBuilder sb = new StringBuilder();
            for (int i = 0; i < prices.length; i++)
            {
                sb.append(i == 0 ? "" : ",").append(price(prices[i])).append(':').append(gpus[i]);
            }
            return sb.toString();
        }

        String bids()
        {
            return format(bidPrices, bidGpus);
        }

        String asks()
        {
            return format(askPrices, askGpus);
        }
    }
}
