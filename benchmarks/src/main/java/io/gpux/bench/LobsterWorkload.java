package io.gpux.bench;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.funds.Account;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A day of real Nasdaq order flow (LOBSTER GOOG 2012-06-21, level 10) as plain gpux commands, one share
 * being one GPU and the LOBSTER price (USD x 10000) the price in ticks:
 * <ul>
 * <li>the opening book (orderbook row 0) is seeded as one GTC order per level;</li>
 * <li>type 1 add: a GTC ASK (seller: an owner account with one huge machine) or BID (a renter account);</li>
 * <li>type 3 delete: CANCEL; type 2 partial cancel: REPLACE gpus=open-size (CANCEL if nothing is left); a
 *     delete or partial cancel of an order resting before 09:30 (unknown id) shrinks the seed of its level;</li>
 * <li>type 4 execution: an IOC order of a taker account (MARKET_MAKER, with its own machine) crossing the
 *     resting side at the execution price; when LOBSTER's order is then fully executed and still open in
 *     gpux (a fully leased GTC ask stays open, rulebook 13.9), it is CANCELled;</li>
 * <li>type 5 hidden executions and type 7 halts change no visible order and are skipped.</li>
 * </ul>
 * Market: preemption off, fee 0; CONFIG heartbeatTimeoutMs=0, so the only timers are lease periods.
 * Leases are RELEASEd in batches of 16 once their GPUs can no longer return to an open ask (the ask they came
 * from is closed), so releases never re-open volume that Nasdaq had executed. A pass ends with MASS_CANCELs,
 * the last RELEASEs and deposits that restore the renters' balances; the next pass runs a day later.
 */
final class LobsterWorkload
{
    static final long DAY_MS = 86_400_000L;
    static final long MARKET = 1;
    static final long SELLER = 1;
    static final long BUYER = 2;
    static final long TAKER = 3;
    static final long SELLER_RIG = 1;
    static final long TAKER_RIG = 2;
    static final long TAKER_ORDER = 1;
    static final long SEED_ASK = 9_000_000_000L;
    static final long SEED_BID = 9_100_000_000L;
    static final long BALANCE = 1_000_000_000_000_000_000L;
    static final int RELEASE_BATCH = 16;

    /** The parsed LOBSTER day. */
    static final class Day
    {
        int n;
        long[] timeMs;
        byte[] type;
        long[] id;
        int[] size;
        long[] price;
        byte[] dir;
        long[] book0;
    }

    private static final Map<String, Workload> CACHE = new HashMap<>();

    static synchronized Workload get(final File zip)
    {
        return CACHE.computeIfAbsent(zip.getAbsolutePath(), k -> build(read(zip)));
    }

    static Day read(final File zip)
    {
        final Day d = new Day();
        try (ZipFile z = new ZipFile(zip))
        {
            final Enumeration<? extends ZipEntry> entries = z.entries();
            ZipEntry messages = null;
            ZipEntry book = null;
            while (entries.hasMoreElements())
            {
                final ZipEntry e = entries.nextElement();
                if (e.getName().contains("_message_"))
                {
                    messages = e;
                }
                else if (e.getName().contains("_orderbook_"))
                {
                    book = e;
                }
            }
            if (messages == null || book == null)
            {
                throw new IOException(zip + ": no *_message_* / *_orderbook_* entry");
            }
            final List<String> lines = new ArrayList<>();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(z.getInputStream(messages), StandardCharsets.US_ASCII)))
            {
                for (String line; (line = r.readLine()) != null; )
                {
                    if (!line.isBlank())
                    {
                        lines.add(line);
                    }
                }
            }
            d.n = lines.size();
            d.timeMs = new long[d.n];
            d.type = new byte[d.n];
            d.id = new long[d.n];
            d.size = new int[d.n];
            d.price = new long[d.n];
            d.dir = new byte[d.n];
            for (int i = 0; i < d.n; i++)
            {
                final String[] f = lines.get(i).split(",");
                d.timeMs[i] = millis(f[0]);
                d.type[i] = Byte.parseByte(f[1]);
                d.id[i] = Long.parseLong(f[2]);
                d.size[i] = Integer.parseInt(f[3]);
                d.price[i] = Long.parseLong(f[4]);
                d.dir[i] = Byte.parseByte(f[5]);
            }
            try (BufferedReader r = new BufferedReader(new InputStreamReader(z.getInputStream(book), StandardCharsets.US_ASCII)))
            {
                final String[] f = r.readLine().split(",");
                d.book0 = new long[f.length];
                for (int i = 0; i < f.length; i++)
                {
                    d.book0[i] = Long.parseLong(f[i]);
                }
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return d;
    }

    /** Seconds after midnight as a decimal string, to whole milliseconds (truncated), without floating point. */
    static long millis(final String s)
    {
        final int dot = s.indexOf('.');
        final long seconds = Long.parseLong(dot < 0 ? s : s.substring(0, dot));
        long ms = 0;
        for (int i = 1; i <= 3; i++)
        {
            ms = ms * 10 + (dot >= 0 && dot + i < s.length() ? s.charAt(dot + i) - '0' : 0);
        }
        return seconds * 1000 + ms;
    }

    private final Day day;
    private final WorkloadBuilder b = new WorkloadBuilder();
    /** LOBSTER's view: shares left per order id, and its side. */
    private final Map<Long, Integer> lobsterLeft = new HashMap<>();
    private final Map<Long, Boolean> lobsterBuy = new HashMap<>();
    private final Map<Long, Long> seedAsk = new HashMap<>();
    private final Map<Long, Long> seedBid = new HashMap<>();
    /** Leases by the SELLER ask their GPUs came from, released once that ask is closed. */
    private final Map<Long, List<Long>> leasesByAsk = new HashMap<>();
    private final Map<Long, Long> leaseAsk = new HashMap<>();
    /** Live leases: id -> renter. */
    private final TreeMap<Long, Long> live = new TreeMap<>();
    private final ArrayDeque<Long> releasable = new ArrayDeque<>();
    private long execTarget = -1;
    private boolean execHit;
    private int executions;
    private int executionsHitSameOrder;
    private int unknownIds;
    private int skipped;

    private LobsterWorkload(final Day day)
    {
        this.day = day;
    }

    static Workload build(final Day day)
    {
        return new LobsterWorkload(day).generate();
    }

    private void onEvent(final Event e)
    {
        if (e.type == EventType.FILL)
        {
            if (e.accountId == SELLER)
            {
                leaseAsk.put(e.leaseId, e.orderId);
            }
            if (execTarget >= 0 && e.accountId != TAKER && !execHit)
            {
                execHit = true;
                if (e.orderId == execTarget)
                {
                    executionsHitSameOrder++;
                }
            }
        }
        else if (e.type == EventType.LEASE_STARTED)
        {
            live.put(e.leaseId, e.renterId);
            if (e.machineId == TAKER_RIG)
            {
                releasable.add(e.leaseId);
            }
            else
            {
                leasesByAsk.computeIfAbsent(leaseAsk.get(e.leaseId), k -> new ArrayList<>()).add(e.leaseId);
            }
        }
        else if (e.type == EventType.LEASE_ENDED)
        {
            live.remove(e.leaseId);
        }
        else if (e.type == EventType.REJECTED)
        {
            throw new IllegalStateException("LOBSTER workload: unexpected reject " + e.rejectReason + " of " + e.command);
        }
    }

    private Workload generate()
    {
        b.listener(this::onEvent);
        b.heartbeatTimeout(0, 0);
        b.market(0, MARKET, "GOOG", false, Command.ABSENT, 0, Command.ABSENT, 1_000_000);
        b.account(0, SELLER, "SELLER", Roles.OWNER);
        b.account(0, BUYER, "BUYER", Roles.RENTER);
        b.account(0, TAKER, "TAKER", Roles.MARKET_MAKER);
        b.deposit(0, BUYER, BALANCE);
        b.deposit(0, TAKER, BALANCE);
        b.machine(0, SELLER_RIG, "SELLER-RIG", SELLER, MARKET, 1_000_000_000, Command.NONE);
        b.machine(0, TAKER_RIG, "TAKER-RIG", TAKER, MARKET, 1_000_000_000, Command.NONE);
        b.heartbeat(0, SELLER_RIG);
        b.heartbeat(0, TAKER_RIG);

        b.beginPass();
        final long t0 = DAY_MS + day.timeMs[0];
        // row 0 is the book after message 0: seed it, then replay from message 1
        for (int level = 0; level * 4 + 3 < day.book0.length; level++)
        {
            final long askPx = day.book0[level * 4];
            final long askSz = day.book0[level * 4 + 1];
            if (askSz > 0 && askPx > 0 && askPx < 9_999_999_999L)
            {
                seedAsk.put(askPx, SEED_ASK + level);
                order(t0, false, SEED_ASK + level, askPx, (int)askSz, TimeInForce.GTC);
            }
        }
        for (int level = 0; level * 4 + 3 < day.book0.length; level++)
        {
            final long bidPx = day.book0[level * 4 + 2];
            final long bidSz = day.book0[level * 4 + 3];
            if (bidSz > 0 && bidPx > 0)
            {
                seedBid.put(bidPx, SEED_BID + level);
                order(t0, true, SEED_BID + level, bidPx, (int)bidSz, TimeInForce.GTC);
            }
        }
        long t = t0;
        for (int m = 1; m < day.n; m++)
        {
            t = DAY_MS + day.timeMs[m];
            final long id = day.id[m];
            final boolean buy = day.dir[m] == 1;
            final int size = day.size[m];
            final long price = day.price[m];
            switch (day.type[m])
            {
                case 1 -> add(t, id, buy, price, size);
                case 2 -> reduce(t, id, buy, price, size, false);
                case 3 -> reduce(t, id, buy, price, size, true);
                case 4 -> execute(t, id, buy, price, size);
                default -> skipped++;
            }
            if (releasable.size() >= RELEASE_BATCH)
            {
                flushReleases(t);
            }
        }
        // end of the day: close everything so that the next pass starts from an empty book
        final String bookAtClose = String.format("book at 16:00: %d bid levels, %d ask levels, %d + %d open orders",
            b.engine.market(MARKET).bids.levelCount(), b.engine.market(MARKET).asks.levelCount(),
            b.engine.account(BUYER).openOrders.size(), b.engine.account(SELLER).openOrders.size());
        b.massCancel(t, SELLER);
        b.massCancel(t, BUYER);
        for (final List<Long> leases : leasesByAsk.values())
        {
            releasable.addAll(leases);
        }
        leasesByAsk.clear();
        flushReleases(t);
        if (!live.isEmpty())
        {
            throw new IllegalStateException("leases left: " + live);
        }
        b.topUp(t, BUYER, BALANCE);
        b.topUp(t, TAKER, BALANCE);
        final String notes = String.format(
            "LOBSTER messages %d; executions %d, of which the IOC first hit LOBSTER's own order %d (%.1f%%); " +
            "deletes/cancels of unknown (pre-09:30 or out-of-window) ids %d; hidden executions/halts skipped %d; %s",
            day.n, executions, executionsHitSameOrder, 100.0 * executionsHitSameOrder / Math.max(1, executions),
            unknownIds, skipped, bookAtClose);
        return b.build("lobster", DAY_MS, notes);
    }

    private void order(final long t, final boolean buy, final long id, final long price, final int gpus, final TimeInForce tif)
    {
        final Command c = b.command(buy ? CommandType.BID : CommandType.ASK, t);
        c.orderId = id;
        c.price = price;
        c.gpus = gpus;
        c.tif = tif;
        if (tif == TimeInForce.GTC)
        {
            c.accountId = buy ? BUYER : SELLER;
        }
        else
        {
            c.accountId = TAKER;
        }
        if (buy)
        {
            c.marketId = MARKET;
            c.hasMarket = true;
        }
        else
        {
            c.machineId = c.accountId == TAKER ? TAKER_RIG : SELLER_RIG;
        }
        b.apply(c);
    }

    private Order open(final boolean buy, final long id)
    {
        final Account a = b.engine.account(buy ? BUYER : SELLER);
        return a.openOrders.get(id);
    }

    private void add(final long t, final long id, final boolean buy, final long price, final int size)
    {
        lobsterLeft.put(id, size);
        lobsterBuy.put(id, buy);
        if (open(buy, id) != null)
        {
            skipped++;
            return;
        }
        order(t, buy, id, price, size, TimeInForce.GTC);
    }

    /** Partial cancel (shrink by size) or delete. */
    private void reduce(final long t, final long id, final boolean buy, final long price, final int size, final boolean delete)
    {
        long target = id;
        if (!lobsterBuy.containsKey(id))
        {
            unknownIds++;
            final Long seed = (buy ? seedBid : seedAsk).get(price);
            if (seed == null)
            {
                skipped++;
                return;
            }
            target = seed;
        }
        else
        {
            final int left = lobsterLeft.get(id) - size;
            if (delete || left <= 0)
            {
                lobsterLeft.remove(id);
                lobsterBuy.remove(id);
            }
            else
            {
                lobsterLeft.put(id, left);
            }
        }
        final Order o = open(buy, target);
        if (o == null)
        {
            skipped++;
            return;
        }
        final boolean seed = target != id;
        if ((delete && !seed) || o.openGpus - size <= 0)
        {
            close(t, buy, target);
        }
        else
        {
            final Command c = b.command(CommandType.REPLACE, t);
            c.accountId = buy ? BUYER : SELLER;
            c.orderId = target;
            c.gpus = o.openGpus - size;
            b.apply(c);
        }
    }

    private void close(final long t, final boolean buy, final long id)
    {
        b.cancel(t, buy ? BUYER : SELLER, id);
        if (!buy)
        {
            final List<Long> leases = leasesByAsk.remove(id);
            if (leases != null)
            {
                releasable.addAll(leases);
            }
        }
    }

    /** A visible execution of a resting order: direction is the resting side, the taker crosses it. */
    private void execute(final long t, final long id, final boolean restingBuy, final long price, final int size)
    {
        executions++;
        execTarget = id;
        execHit = false;
        order(t, !restingBuy, TAKER_ORDER, price, size, TimeInForce.IOC);
        execTarget = -1;
        final Integer left = lobsterLeft.get(id);
        if (left == null)
        {
            return;
        }
        if (left - size > 0)
        {
            lobsterLeft.put(id, left - size);
            return;
        }
        lobsterLeft.remove(id);
        lobsterBuy.remove(id);
        if (open(restingBuy, id) != null)
        {
            close(t, restingBuy, id);
        }
    }

    private void flushReleases(final long t)
    {
        while (!releasable.isEmpty())
        {
            final long lease = releasable.poll();
            final Long renter = live.get(lease);
            if (renter != null)
            {
                b.release(t, renter, lease);
            }
        }
    }
}
