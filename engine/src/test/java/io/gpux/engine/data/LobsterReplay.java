package io.gpux.engine.data;

import io.gpux.engine.data.LobsterOrders.Fill;
import io.gpux.engine.data.LobsterOrders.Ord;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Replays a LOBSTER message file (Nasdaq order flow) through gpux and checks it against LOBSTER's
 * order-book file, row by row.
 *
 * <h2>Mapping</h2>
 * One market ({@code preemption=off}, {@code feeBps=0}, huge {@code maxGpusPerOrder}, heartbeat timeout off);
 * account {@code sellers} (owner of one huge machine) holds every resting sell order, {@code buyers} every
 * resting buy order; a Nasdaq order id is the gpux client order id, prices are already gpux ticks (1e-4
 * dollars), shares are GPUs; times are the message times truncated to milliseconds.
 * <ul>
 *   <li>The opening book is seeded from order-book row 0 with message 0 undone (row 0 is the book after it):
 *       one synthetic GTC order per level ({@code pre-a-PRICE}, {@code pre-b-PRICE}).</li>
 *   <li>1 add: {@code ASK}/{@code BID} GTC, {@code postOnly=true} (a Nasdaq add never crosses: what crosses
 *       is reported as executions, so a rejected add would show a wrong gpux book).</li>
 *   <li>2 partial cancel: {@code REPLACE gpus=remaining} (keeps time priority), or {@code CANCEL} at 0.</li>
 *   <li>3 delete: {@code CANCEL}.</li>
 *   <li>4 visible execution of a known order: an IOC from a third account at the executed price for the
 *       executed size ({@code taker}, a renter, buys from a resting ask; {@code taker-seller}, owner of its
 *       own machine, sells into a resting bid); the execution <i>hits</i> when every {@code FILL} of the IOC
 *       has the Nasdaq order as its counter and they add up to the size. A fully executed resting ask is then
 *       cancelled (gpux keeps a fully leased GTC ask open, rulebook 13.9; Nasdaq's order is gone). Leases are
 *       never released: a release would give the GPUs back to the ask (rulebook section 5).</li>
 *   <li>5 hidden execution, 7 trading halt: skipped (no visible book change).</li>
 *   <li>Unknown ids (orders resting before 09:30, or added while deeper than the recorded levels): no IOC is
 *       sent, since which order gpux hits is not checkable; the message is counted, and its GPUs are taken
 *       off its price level so the book stays right: off synthetic orders first, then off known orders that
 *       no later message names (Nasdaq can only have removed those unseen, while they were out of view).</li>
 * </ul>
 *
 * <h2>Book check</h2>
 * Only the top N levels are recorded, so an order deeper than level N can appear, change or vanish without a
 * message. After each message, gpux's book ({@code BOOK}) is compared with the row on every price inside the
 * row's window (at or better than its N-th level; the whole side when the row shows fewer than N levels):
 * <ul>
 *   <li>a price that was inside the window of the previous row too is <i>fully known</i> (every change to it
 *       came with a message): a difference there is a mismatch, which the tests assert never happens;</li>
 *   <li>a price that has just come into the window may hold unknown orders, or have lost orders unseen: a
 *       difference there is <i>resynced</i> and counted. A synthetic order {@code rsN} adds GPUs at the back
 *       of the level; GPUs are given up first by known orders that no later message names (oldest first),
 *       then by synthetic orders, then by the newest known orders.</li>
 * </ul>
 * Mismatches are repaired the same way, so one of them does not cascade. Using the rest of the message file
 * to tell the orders that left unseen from those still resting is the only place where the replay looks
 * ahead; it changes which order gpux holds, never the sizes that are compared.
 */
final class LobsterReplay
{
    static final long NO_ASK = 9_999_999_999L;
    static final long NO_BID = -9_999_999_999L;

    private final String market;
    private final int depth;
    private final LobsterOrders orders;
    private final GpuxSession gpux;
    private final LobsterStats stats = new LobsterStats();
    private final long[] row;
    private long previousAskWindow;
    private long previousBidWindow;
    /** Nasdaq order id to the index of the last message naming it. */
    private final Map<String, Integer> lastNamed = new HashMap<>();
    private int index;
    private int resyncSeq;

    LobsterReplay(final String market, final int depth)
    {
        this.market = market;
        this.depth = depth;
        this.row = new long[4 * depth];
        this.orders = new LobsterOrders(market);
        this.gpux = orders.gpux();
    }

    /** Replays every message, checking the book after each against the matching order-book row. */
    LobsterStats run(final List<String> messages, final BufferedReader book) throws IOException
    {
        if (messages.isEmpty())
        {
            throw new AssertionError("empty LOBSTER message file");
        }
        for (int i = 0; i < messages.size(); i++)
        {
            final String m = messages.get(i);
            final int a = m.indexOf(',', m.indexOf(',') + 1);
            lastNamed.put(m.substring(a + 1, m.indexOf(',', a + 1)), i);
        }
        for (index = 0; index < messages.size(); index++)
        {
            final String bookRow = book.readLine();
            if (bookRow == null)
            {
                throw new AssertionError("order-book file shorter than message file at message " + index);
            }
            final String[] m = messages.get(index).split(",");
            parseRow(bookRow);
            gpux.time(millis(m[0]));
            if (index == 0)
            {
                seed(m);
            }
            apply(m);
            compare();
        }
        if (book.readLine() != null)
        {
            throw new AssertionError("order-book file longer than message file");
        }
        stats.gpuxLines = gpux.linesRun();
        return stats;
    }

    /** Seeds the book as it stood before message 0: row 0 with message 0 undone. */
    private void seed(final String[] m0)
    {
        final int type = Integer.parseInt(m0[1]);
        final long price = Long.parseLong(m0[4]);
        final boolean bid = Integer.parseInt(m0[5]) == 1;
        final long undo = switch (type)
        {
            case 1 -> -Long.parseLong(m0[3]);
            case 2, 3, 4 -> Long.parseLong(m0[3]);
            default -> 0;
        };
        final TreeMap<Long, Long> seedAsks = new TreeMap<>();
        final TreeMap<Long, Long> seedBids = new TreeMap<>();
        for (int k = 0; k < depth; k++)
        {
            if (row[4 * k] != NO_ASK)
            {
                seedAsks.put(row[4 * k], row[4 * k + 1]);
            }
            if (row[4 * k + 2] != NO_BID)
            {
                seedBids.put(row[4 * k + 2], row[4 * k + 3]);
            }
        }
        (bid ? seedBids : seedAsks).merge(price, undo, Long::sum);
        seedAsks.forEach((p, size) -> seedLevel(false, p, size));
        seedBids.forEach((p, size) -> seedLevel(true, p, size));
        previousAskWindow = window(false);
        previousBidWindow = window(true);
    }

    private void seedLevel(final boolean bid, final long price, final long size)
    {
        if (size > 0 && !orders.place((bid ? "pre-b-" : "pre-a-") + price, bid, price, size, true))
        {
            throw new AssertionError("seed order rejected: " + orders.lastEvents());
        }
    }

    private void apply(final String[] m)
    {
        final int type = Integer.parseInt(m[1]);
        final String id = m[2];
        final long size = Long.parseLong(m[3]);
        final long price = Long.parseLong(m[4]);
        final boolean bid = Integer.parseInt(m[5]) == 1;
        stats.messages++;
        stats.byType[type]++;
        switch (type)
        {
            case 1 ->
            {
                if (orders.place(id, bid, price, size, false))
                {
                    stats.addsAccepted++;
                }
                else
                {
                    stats.addsRejected++;
                }
            }
            case 2, 3 ->
            {
                final Ord o = known(id);
                if (o == null)
                {
                    stats.unknownCancels++;
                    absorb(bid, price, size);
                }
                else if (type == 2 && o.remaining > size)
                {
                    orders.reduce(o, o.remaining - size);
                }
                else
                {
                    orders.close(o);
                }
            }
            case 4 ->
            {
                stats.executions++;
                final Ord o = known(id);
                if (o == null)
                {
                    stats.unknownExecutions++;
                    absorb(bid, price, size);
                }
                else
                {
                    stats.knownExecutions++;
                    execute(o, size, price, m);
                }
            }
            default ->
            {
                // 5 hidden execution, 7 halt: no visible book change
            }
        }
    }

    /** @return the open order named by a message, or null when it is unknown or already closed in gpux. */
    private Ord known(final String id)
    {
        final Ord o = orders.get(id);
        if (o != null && !o.open)
        {
            stats.closedRefs++;
            return null;
        }
        return o;
    }

    /** Executes a known order with an IOC; it hits when every fill is against that very order, for the whole size. */
    private void execute(final Ord o, final long size, final long price, final String[] m)
    {
        final List<Fill> fills = orders.execute(o.bid, price, size);
        long filled = 0;
        boolean onlyTarget = true;
        for (final Fill f : fills)
        {
            filled += f.gpus();
            onlyTarget &= f.resting() == o;
        }
        if (onlyTarget && filled == size)
        {
            stats.hits++;
        }
        else if (stats.misses.size() < 20)
        {
            stats.misses.add(String.join(",", m) + " ->\n      " + orders.lastEvents().strip().replace("\n", "\n      "));
        }
    }

    /**
     * Takes GPUs of an unknown order off its price level: synthetic orders first, oldest first; then known
     * orders that no later message names (they can only have left unseen, while deeper than the window).
     */
    private void absorb(final boolean bid, final long price, final long size)
    {
        long need = size;
        for (final Ord o : orders.level(bid, price))
        {
            if (need > 0 && o.synthetic && o.open)
            {
                need -= orders.take(o, need);
            }
        }
        for (final Ord o : orders.level(bid, price))
        {
            if (need > 0 && !o.synthetic && o.open && !namedAgain(o))
            {
                stats.staleTaken++;
                need -= orders.take(o, need);
            }
        }
        stats.unabsorbedGpus += need;
    }

    /** @return whether a later message names the order: then Nasdaq still had it. */
    private boolean namedAgain(final Ord o)
    {
        final Integer last = lastNamed.get(o.name);
        return last != null && last > index;
    }

    /** Compares both sides with the current row inside its window; resyncs what has just come into view. */
    private void compare()
    {
        stats.rows++;
        final long askWindow = window(false);
        final long bidWindow = window(true);
        int bookDepth = depth + 1;
        GpuxSession.Book book = bookOf(gpux.run("BOOK market=" + market + " depth=" + bookDepth));
        while (truncated(book.askPrices(), false, askWindow, bookDepth) || truncated(book.bidPrices(), true, bidWindow, bookDepth))
        {
            bookDepth *= 2;
            book = bookOf(gpux.run("BOOK market=" + market + " depth=" + bookDepth));
        }
        final boolean askClean = compareSide(false, book.askPrices(), book.askGpus(), askWindow, previousAskWindow);
        final boolean bidClean = compareSide(true, book.bidPrices(), book.bidGpus(), bidWindow, previousBidWindow);
        if (askClean && bidClean)
        {
            stats.rowsFullyKnown++;
        }
        previousAskWindow = askWindow;
        previousBidWindow = bidWindow;
    }

    /** @return whether gpux may have more levels inside the window than {@code BOOK} printed. */
    private static boolean truncated(final long[] prices, final boolean bid, final long window, final int bookDepth)
    {
        return prices.length == bookDepth && inWindow(bid, prices[bookDepth - 1], window);
    }

    private static GpuxSession.Book bookOf(final List<String> lines)
    {
        if (lines.size() != 1)
        {
            throw new AssertionError("BOOK printed " + lines);
        }
        return GpuxSession.Book.parse(lines.get(0));
    }

    /** @return whether every level of the side was fully known and equal. */
    private boolean compareSide(final boolean bid, final long[] prices, final long[] gpus, final long window, final long previousWindow)
    {
        final int rowOffset = bid ? 2 : 0;
        int rowLevels = 0;
        while (rowLevels < depth && row[4 * rowLevels + rowOffset] != (bid ? NO_BID : NO_ASK))
        {
            rowLevels++;
        }
        int bookLevels = 0;
        while (bookLevels < prices.length && inWindow(bid, prices[bookLevels], window))
        {
            bookLevels++;
        }
        boolean allKnown = true;
        int r = 0;
        int g = 0;
        while (r < rowLevels || g < bookLevels)
        {
            final long rowPrice = r < rowLevels ? row[4 * r + rowOffset] : 0;
            final long bookPrice = g < bookLevels ? prices[g] : 0;
            final long price;
            long expected = 0;
            long actual = 0;
            if (g >= bookLevels || (r < rowLevels && (rowPrice == bookPrice || better(bid, rowPrice, bookPrice))))
            {
                price = rowPrice;
                expected = row[4 * r + rowOffset + 1];
                r++;
                if (g < bookLevels && bookPrice == rowPrice)
                {
                    actual = gpus[g++];
                }
            }
            else
            {
                price = bookPrice;
                actual = gpus[g++];
            }
            if (!check(bid, price, expected, actual, previousWindow))
            {
                allKnown = false;
            }
        }
        return allKnown;
    }

    private static boolean better(final boolean bid, final long a, final long b)
    {
        return bid ? a > b : a < b;
    }

    /** Checks one level: @return whether it was fully known and equal; repairs it either way. */
    private boolean check(final boolean bid, final long price, final long expected, final long actual, final long previousWindow)
    {
        final boolean known = inWindow(bid, price, previousWindow);
        if (known)
        {
            stats.levelsKnown++;
        }
        else
        {
            stats.levelsRevealed++;
        }
        if (expected == actual)
        {
            return known;
        }
        if (known)
        {
            stats.mismatches++;
            if (stats.mismatchSamples.size() < 20)
            {
                stats.mismatchSamples.add("row " + (stats.rows - 1) + " " + (bid ? "bid " : "ask ") + price +
                    ": csv " + expected + ", gpux " + actual);
            }
        }
        else
        {
            stats.resyncs++;
        }
        resync(bid, price, expected, actual);
        return false;
    }

    /**
     * Brings gpux's level to the row's size: a synthetic order adds GPUs at the back; known orders no later
     * message names give them up first (oldest first), then synthetic orders, then the newest known orders.
     */
    private void resync(final boolean bid, final long price, final long expected, final long actual)
    {
        final long mine = orders.total(bid, price);
        if (mine != actual)
        {
            stats.mirrorDivergence++;
        }
        if (expected > mine)
        {
            orders.place("rs" + ++resyncSeq, bid, price, expected - mine, true);
            return;
        }
        long need = mine - expected;
        for (final Ord o : orders.level(bid, price))
        {
            if (need > 0 && !o.synthetic && o.open && !namedAgain(o))
            {
                stats.droppedAtResync++;
                need -= orders.take(o, need);
            }
        }
        final List<Ord> newestFirst = orders.level(bid, price);
        Collections.reverse(newestFirst);
        for (final boolean synthetic : new boolean[]{true, false})
        {
            for (final Ord o : newestFirst)
            {
                if (need > 0 && o.synthetic == synthetic && o.open)
                {
                    stats.droppedAtResync += synthetic ? 0 : 1;
                    need -= orders.take(o, need);
                }
            }
        }
    }

    private long window(final boolean bid)
    {
        final long last = row[4 * (depth - 1) + (bid ? 2 : 0)];
        if (bid)
        {
            return last == NO_BID ? Long.MIN_VALUE : last;
        }
        return last == NO_ASK ? Long.MAX_VALUE : last;
    }

    private static boolean inWindow(final boolean bid, final long price, final long window)
    {
        return bid ? price >= window : price <= window;
    }

    private void parseRow(final String line)
    {
        int field = 0;
        int start = 0;
        for (int i = 0; i <= line.length() && field < row.length; i++)
        {
            if (i == line.length() || line.charAt(i) == ',')
            {
                row[field++] = Long.parseLong(line, start, i, 10);
                start = i + 1;
            }
        }
        if (field != row.length)
        {
            throw new AssertionError("order-book row with " + field + " fields, expected " + row.length + ": " + line);
        }
    }

    /** Seconds after midnight with up to nanosecond decimals, truncated to whole milliseconds. */
    static long millis(final String seconds)
    {
        final int dot = seconds.indexOf('.');
        if (dot < 0)
        {
            return Long.parseLong(seconds) * 1000L;
        }
        final String frac = (seconds.substring(dot + 1) + "000").substring(0, 3);
        return Long.parseLong(seconds.substring(0, dot)) * 1000L + Long.parseLong(frac);
    }
}
