package io.gpux.engine.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of busy GPU-market scenarios: owners with machines that heartbeat (and sometimes
 * go silent), renters with small and large deposits, market-maker cancel/replace bursts, gang bids,
 * constraints, preemption, reclaims, releases, halts, API keys and time passing so that periods settle
 * and funds run out. The same seed always gives the same lines. For tests, crash tests and benchmarks.
 */
public final class RandomScenario
{
    private static final String[] MARKETS = {"H100-SXM-80G", "A100-80G"};
    private static final String[] REGIONS = {"eu", "us"};

    private final Random random;
    private final List<String> openOrders = new ArrayList<>();
    private final int machines;
    private long time;
    private int orderSeq;
    private int leaseHint = 1;

    public RandomScenario(final long seed)
    {
        random = new Random(seed);
        machines = 6;
    }

    /** The set-up lines: markets, accounts, deposits, machines, first heartbeats. */
    public List<String> header()
    {
        final List<String> lines = new ArrayList<>();
        lines.add("0 MARKET id=" + MARKETS[0] + " graceMs=2000 prepayMs=60000 feeBps=250");
        lines.add("0 MARKET id=" + MARKETS[1] + " graceMs=0 prepayMs=30000 feeBps=100 minIncrement=0.0100");
        lines.add("0 CONFIG heartbeatTimeoutMs=15000");
        for (int i = 1; i <= 3; i++)
        {
            lines.add("0 ACCOUNT id=o" + i + " roles=OWNER");
        }
        lines.add("0 ACCOUNT id=mm roles=MARKET_MAKER");
        for (int i = 1; i <= 4; i++)
        {
            lines.add("0 ACCOUNT id=r" + i + " roles=RENTER");
            lines.add("0 DEPOSIT account=r" + i + " amount=" + (i <= 2 ? "5000" : "0.05"));
        }
        lines.add("0 DEPOSIT account=mm amount=200");
        for (int m = 1; m <= machines; m++)
        {
            final String owner = m == machines ? "mm" : "o" + (1 + m % 3);
            lines.add("0 MACHINE id=m" + m + " owner=" + owner + " market=" + MARKETS[m % 2] + " gpus=" + (m % 3 == 0 ? 4 : 8) +
                (m % 4 == 0 ? "" : " region=" + REGIONS[m % 2]));
            lines.add("0 HEARTBEAT machine=m" + m);
        }
        return lines;
    }

    /** The next command line; time advances by 0 to a few seconds, sometimes by minutes. */
    public String next()
    {
        final int dice = random.nextInt(1000);
        time += dice < 990 ? random.nextInt(400) : 20_000 + random.nextInt(120_000);
        final String market = MARKETS[random.nextInt(2)];
        final int m = 1 + random.nextInt(machines);
        if (dice < 150)
        {
            return time + " HEARTBEAT machine=m" + (random.nextInt(10) == 0 ? m : 1 + (int)((time / 3000) % machines));
        }
        if (dice < 330)
        {
            final String owner = m == machines ? "mm" : "o" + (1 + m % 3);
            final String id = "a" + (++orderSeq);
            openOrders.add(owner + ":" + id);
            return time + " ASK id=" + id + " account=" + owner + " machine=m" + m + " gpus=" + (1 + random.nextInt(4)) +
                " price=" + price() + tif();
        }
        if (dice < 560)
        {
            final String renter = random.nextInt(6) == 0 ? "mm" : "r" + (1 + random.nextInt(4));
            final String id = "b" + (++orderSeq);
            openOrders.add(renter + ":" + id);
            final StringBuilder sb = new StringBuilder().append(time).append(" BID id=").append(id).append(" account=")
                .append(renter).append(" market=").append(market).append(" gpus=").append(1 + random.nextInt(6))
                .append(" price=").append(price()).append(tif());
            if (random.nextInt(5) == 0)
            {
                sb.append(" gang=true");
            }
            if (random.nextInt(8) == 0)
            {
                sb.append(" region=").append(REGIONS[random.nextInt(2)]);
            }
            if (random.nextInt(10) == 0)
            {
                sb.append(" minReliability=0.9");
            }
            if (random.nextInt(6) == 0)
            {
                sb.append(" maxDurationMs=").append(5_000 + random.nextInt(200_000));
            }
            if (random.nextInt(15) == 0)
            {
                sb.append(" postOnly=true");
            }
            return sb.toString();
        }
        if (dice < 700 && !openOrders.isEmpty())
        {
            final String[] order = openOrders.get(random.nextInt(openOrders.size())).split(":");
            final StringBuilder sb = new StringBuilder().append(time).append(" REPLACE id=").append(order[1]).append(" account=")
                .append(order[0]);
            if (random.nextBoolean())
            {
                sb.append(" price=").append(price());
            }
            if (random.nextBoolean())
            {
                sb.append(" gpus=").append(1 + random.nextInt(5));
            }
            return sb.toString();
        }
        if (dice < 800 && !openOrders.isEmpty())
        {
            final int k = random.nextInt(openOrders.size());
            final String[] order = openOrders.get(k).split(":");
            openOrders.set(k, openOrders.get(openOrders.size() - 1));
            openOrders.remove(openOrders.size() - 1);
            return time + " CANCEL id=" + order[1] + " account=" + order[0] + (random.nextInt(4) == 0 ? " reclaim=true" : "");
        }
        if (dice < 880)
        {
            leaseHint += random.nextInt(3);
            return time + " RELEASE lease=L" + (1 + random.nextInt(leaseHint)) + " account=" + (random.nextInt(6) == 0 ? "mm" : "r" + (1 + random.nextInt(4)));
        }
        if (dice < 900)
        {
            return time + " MASS_CANCEL account=" + (random.nextBoolean() ? "mm" : "r" + (1 + random.nextInt(4))) +
                (random.nextBoolean() ? " market=" + market : "");
        }
        if (dice < 915)
        {
            return time + " DEPOSIT account=r" + (1 + random.nextInt(4)) + " amount=" + (1 + random.nextInt(20));
        }
        if (dice < 925)
        {
            return time + (random.nextInt(5) == 0 ? " HALT" : " RESUME") + " market=" + market;
        }
        if (dice < 935)
        {
            return time + " BOOK market=" + market + " depth=" + (1 + random.nextInt(5));
        }
        if (dice < 945)
        {
            return key();
        }
        return time + " TICK";
    }

    /** An API key added or revoked: few ids, so duplicates, foreign and repeated revokes happen too. */
    private String key()
    {
        final int who = random.nextInt(9);
        final String account = who < 4 ? "r" + (1 + who) : who < 7 ? "o" + (who - 3) : who == 7 ? "mm" : "nobody";
        return time + " KEY account=" + account + " key=" + random.nextInt(16) +
            (random.nextInt(3) == 0 ? " revoke=true" : "");
    }

    private String price()
    {
        return "1." + (10 + random.nextInt(40)) + "00";
    }

    private String tif()
    {
        final int r = random.nextInt(12);
        return r == 0 ? " tif=IOC" : r == 1 ? " tif=FOK" : "";
    }

    /** A whole scenario: the header and then {@code commands} generated lines. */
    public static String scenario(final long seed, final int commands)
    {
        final RandomScenario g = new RandomScenario(seed);
        final StringBuilder sb = new StringBuilder();
        for (final String line : g.header())
        {
            sb.append(line).append('\n');
        }
        for (int i = 0; i < commands; i++)
        {
            sb.append(g.next()).append('\n');
        }
        return sb.toString();
    }
}
