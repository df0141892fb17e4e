package io.gpux.gateway.offers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.StressTries;
import io.gpux.engine.book.Order;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioReplayer;
import io.gpux.proto.v1.OfferSort;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

/**
 * The offer search against a brute-force filter: random markets (machines of every size, region,
 * interconnect and memory; asks, bids that lease GPUs, cancels, machines that go silent, halts, days
 * passing so reliabilities differ), then random searches, each answered both by the snapshot and the
 * search and by a direct walk over the engine's machines and asks with the rules written out plainly,
 * and by a board that followed the exchange batch by batch, copying only what each batch touched.
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class OfferSearchProperties
{
    private static final long MS = 1_000_000;
    private static final String[] REGIONS = {"eu", "us", "asia"};
    private static final String[] INTERCONNECTS = {"nvlink", "pcie"};

    @Property(tries = 60)
    void theSearchAnswersWhatABruteForceFilterAnswers(@ForAll final long seed, @ForAll @IntRange(min = 1, max = 40) final int machines)
        throws ScenarioException
    {
        final Random random = new Random(seed);
        final ScenarioReplayer replayer = new ScenarioReplayer(Writer.nullWriter());
        final int markets = 1 + random.nextInt(3);
        // a board that recovers part way and then follows every line as a batch, copying only the
        // machines each touched, some batches within the minimum interval (their changes wait)
        final AtomicLong nanos = new AtomicLong();
        final OfferBoard board = new OfferBoard(nanos::get, 20 * MS, 1_000 * MS);
        final List<String> lines = market(random, markets, machines);
        final int recoverAt = random.nextInt(lines.size());
        for (int i = 0; i < lines.size(); i++)
        {
            replayer.line(lines.get(i));
            if (i == recoverAt)
            {
                board.onRecovered(replayer.engine());
            }
            else if (i > recoverAt)
            {
                nanos.addAndGet(random.nextInt(30) * MS);
                board.onBatchApplied(replayer.engine());
            }
        }
        nanos.addAndGet(20 * MS);
        board.onBatchApplied(replayer.engine());
        final AtomicReference<OfferSnapshot> followed = new AtomicReference<>();
        board.read(followed::set);
        final MatchingEngine engine = replayer.engine();
        final long[] regionIds = new long[REGIONS.length];
        for (int i = 0; i < REGIONS.length; i++)
        {
            regionIds[i] = replayer.symbols().regions.id(REGIONS[i]);
        }
        final long[] interconnectIds = {replayer.symbols().interconnects.id(INTERCONNECTS[0]),
            replayer.symbols().interconnects.id(INTERCONNECTS[1])};
        for (int search = 0; search < 40; search++)
        {
            final long marketId = random.nextInt(markets + 1) == 0 ? 0 : replayer.symbols().markets.id("M" + random.nextInt(markets));
            final OfferSearch s = new OfferSearch(marketId,
                random.nextInt(3) == 0 ? 0 : random.nextInt(10),
                random.nextInt(3) == 0 ? 0 : 900_000 + random.nextInt(100_001),
                random.nextInt(2) == 0 ? 0 : regionIds[random.nextInt(regionIds.length)],
                random.nextInt(3) == 0 ? interconnectIds[random.nextInt(2)] : 0,
                random.nextInt(3) == 0 ? 40 * random.nextInt(3) : 0,
                random.nextInt(3) == 0 ? 10_000L * (1 + random.nextInt(5)) : 0,
                OfferSort.forNumber(random.nextInt(3)),
                1 + random.nextInt(random.nextBoolean() ? 5 : 100));
            final OfferSnapshot snapshot = OfferSnapshot.capture(engine, marketId);
            final OfferSearch.Result result = s.apply(snapshot.rows());
            final List<OfferRow> expected = bruteForce(engine, s);
            assertEquals(expected.size(), result.matched(), "matched");
            assertEquals(expected.subList(0, Math.min(s.limit(), expected.size())), result.rows(), s.toString());
            final OfferSearch.Result fromBoard = s.apply(followed.get().rows());
            assertEquals(result, fromBoard, "the board that followed the changes: " + s);
            for (final OfferRow row : result.rows())
            {
                assertEquals(machinesOf(engine, row.ownerId()), snapshot.machinesOf(row.ownerId()), "owner machines");
                assertEquals(machinesOf(engine, row.ownerId()), followed.get().machinesOf(row.ownerId()), "owner machines");
            }
            Statistics.collect(result.rows().isEmpty() ? "nothing" : result.rows().size() < result.matched() ? "cut" : "offers");
        }
        Statistics.coverage(checker ->
        {
            checker.check("offers").percentage(p -> p > 10);
            checker.check("cut").count(n -> n > 0);
            checker.check("nothing").count(n -> n > 0);
        });
    }

    /** The rules, one by one, over every machine and every ask. */
    private static List<OfferRow> bruteForce(final MatchingEngine engine, final OfferSearch s)
    {
        final List<OfferRow> all = new ArrayList<>();
        final Map<Long, Market> markets = new HashMap<>();
        engine.markets().forEach(m -> markets.put(m.id, m));
        for (final Machine m : engine.machines())
        {
            int free = 0;
            long price = 0;
            for (Order ask = m.firstAsk; ask != null; ask = ask.machineNext)
            {
                if (ask.openGpus > 0)
                {
                    price = free == 0 ? ask.price : Math.min(price, ask.price);
                    free += ask.openGpus;
                }
            }
            final long ppm = m.relNum * 1_000_000 / m.relDen;
            final long vram = m.vramGb < 0 ? 0 : m.vramGb;
            final boolean offered = free > 0 && m.online && !markets.get(m.market.id).halted;
            if (offered
                && (s.marketId() == 0 || s.marketId() == m.market.id)
                && free >= s.minGpus()
                && ppm >= s.minReliabilityPpm()
                && (s.regionId() == 0 || s.regionId() == m.regionId)
                && (s.interconnectId() == 0 || s.interconnectId() == m.interconnectId)
                && vram >= s.minVramGb()
                && (s.maxPrice() == 0 || price <= s.maxPrice()))
            {
                assertEquals(true, m.gpus - m.leased >= free, "free GPUs are not leased");
                all.add(new OfferRow(m.id, m.market.id, m.owner.id, m.gpus, free, price, ppm, m.regionId, m.interconnectId, vram));
            }
        }
        final Comparator<OfferRow> price = Comparator.comparingLong(OfferRow::price);
        final Comparator<OfferRow> reliability = (a, b) -> Long.compare(b.reliabilityPpm(), a.reliabilityPpm());
        final Comparator<OfferRow> gpus = (a, b) -> Integer.compare(b.freeGpus(), a.freeGpus());
        final Comparator<OfferRow> first = switch (s.sort())
        {
            case OFFER_SORT_RELIABILITY -> reliability.thenComparing(price);
            case OFFER_SORT_GPUS -> gpus.thenComparing(price);
            default -> price.thenComparing(reliability);
        };
        all.sort(first.thenComparingLong(OfferRow::machineId));
        return all;
    }

    private static long machinesOf(final MatchingEngine engine, final long ownerId)
    {
        long n = 0;
        for (final Machine m : engine.machines())
        {
            n += m.owner.id == ownerId ? 1 : 0;
        }
        return n;
    }

    /** A random exchange: markets, owners and their machines, heartbeats, asks, bids, cancels, silences, halts. */
    private static List<String> market(final Random random, final int markets, final int machines)
    {
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < markets; i++)
        {
            lines.add("0 MARKET id=M" + i + " graceMs=1000 prepayMs=3600000 feeBps=100");
        }
        lines.add("0 CONFIG heartbeatTimeoutMs=60000");
        final int owners = 1 + random.nextInt(5);
        for (int i = 0; i < owners; i++)
        {
            lines.add("0 ACCOUNT id=o" + i + " roles=OWNER");
        }
        lines.add("0 ACCOUNT id=r roles=RENTER");
        lines.add("0 DEPOSIT account=r amount=10000000");
        for (int m = 0; m < machines; m++)
        {
            final StringBuilder sb = new StringBuilder("0 MACHINE id=m").append(m).append(" owner=o").append(random.nextInt(owners))
                .append(" market=M").append(random.nextInt(markets)).append(" gpus=").append(1 + random.nextInt(16));
            if (random.nextInt(4) != 0)
            {
                sb.append(" region=").append(REGIONS[random.nextInt(REGIONS.length)]);
            }
            if (random.nextBoolean())
            {
                sb.append(" interconnect=").append(INTERCONNECTS[random.nextInt(2)]);
            }
            if (random.nextBoolean())
            {
                sb.append(" vramGb=").append(40 * (1 + random.nextInt(2)));
            }
            lines.add(sb.toString());
        }
        long time = 0;
        int orders = 0;
        final List<String> asks = new ArrayList<>();
        for (int step = 0; step < 6; step++)
        {
            time += 30_000 + random.nextInt(3) * 6 * 3_600_000L * random.nextInt(2);
            for (int m = 0; m < machines; m++)
            {
                if (random.nextInt(10) < 8 || step == 5)
                {
                    lines.add(time + " HEARTBEAT machine=m" + m);
                }
            }
            for (int m = 0; m < machines; m++)
            {
                if (random.nextInt(3) == 0)
                {
                    final String id = "a" + ++orders;
                    lines.add(time + " ASK id=" + id + " machine=m" + m + " account=" + ownerOf(lines, m) + " gpus="
                        + (1 + random.nextInt(8)) + " price=" + (1 + random.nextInt(5)) + "." + random.nextInt(10));
                    asks.add(ownerOf(lines, m) + ":" + id);
                }
            }
            for (int b = random.nextInt(4); b > 0; b--)
            {
                lines.add(time + " BID id=b" + ++orders + " account=r market=M" + random.nextInt(markets) + " gpus="
                    + (1 + random.nextInt(6)) + " price=" + (1 + random.nextInt(6)) + " tif=IOC");
            }
            if (!asks.isEmpty() && random.nextBoolean())
            {
                final String[] ask = asks.remove(random.nextInt(asks.size())).split(":");
                lines.add(time + " CANCEL id=" + ask[1] + " account=" + ask[0]);
            }
        }
        if (markets > 1 && random.nextInt(4) == 0)
        {
            lines.add(time + " HALT market=M" + random.nextInt(markets));
        }
        if (markets > 1 && random.nextInt(4) == 0)
        {
            final int halted = random.nextInt(markets);
            lines.add(time + " HALT market=M" + halted);
            lines.add(time + " RESUME market=M" + halted);
        }
        // some machines fall silent for longer than the timeout: offline
        time += 30_000;
        for (int m = 0; m < machines; m++)
        {
            if (random.nextInt(5) != 0)
            {
                lines.add(time + " HEARTBEAT machine=m" + m);
            }
        }
        lines.add(time + 45_000 + " TICK");
        return lines;
    }

    private static String ownerOf(final List<String> lines, final int machine)
    {
        final String prefix = "0 MACHINE id=m" + machine + " owner=";
        for (final String line : lines)
        {
            if (line.startsWith(prefix))
            {
                return line.substring(prefix.length(), line.indexOf(' ', prefix.length()));
            }
        }
        throw new IllegalStateException("no machine m" + machine);
    }
}
