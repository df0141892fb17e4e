package io.gpux.engine;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ArbitrarySupplier;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.List;

/**
 * The world and the random command streams of the engine's invariant properties: three markets, owners,
 * renters with small and large deposits, a market maker, machines in regions, and steps of every kind
 * (every order type and constraint, cancels, replaces, mass cancels, reclaims, releases, deposits,
 * heartbeats that sometimes stop, halts, API keys, restarts and time jumps of up to hours), each a kind,
 * a time step and small integers that {@link InvariantRun} renders into scenario lines.
 */
final class InvariantStream
{
    private InvariantStream()
    {
    }

    static final String[] MARKETS = {"H100", "A100", "L4"};
    static final String[] OWNERS = {"own1", "own2", "mm", "r1"};
    static final String[] BIDDERS = {"r1", "r2", "r3", "r4", "mm", "own1"};
    static final String[] ACCOUNTS = {"own1", "own2", "mm", "r1", "r2", "r3", "r4", "adm"};
    static final String[] REGIONS = {null, "eu", "us", "ap"};
    static final String[] MIN_REL = {null, "0", "0.5", "0.9", "0.95", "0.99", "1"};
    static final long[] MAX_DURATION = {0, 1, 1000, 60_000, 3_600_000, 7_200_000};
    static final long[] TIMEOUTS = {15_000, 60_000, 14_400_000, 0};
    static final long[] RESTART_WINDOWS = {0, 5_000, 60_000, 3_600_000};

    record MachineDef(String id, String owner, String market, int gpus, String region)
    {
    }

    static final MachineDef[] MACHINES = {
        new MachineDef("h1", "own1", "H100", 8, "eu"),
        new MachineDef("h2", "own1", "H100", 4, "us"),
        new MachineDef("h3", "own2", "H100", 16, null),
        new MachineDef("h4", "mm", "H100", 8, "eu"),
        new MachineDef("a1", "own2", "A100", 8, "eu"),
        new MachineDef("a2", "mm", "A100", 4, "us"),
        new MachineDef("l1", "own1", "L4", 2, "eu"),
        new MachineDef("l2", "own2", "L4", 4, null),
    };

    /** The parameters of one run's header. */
    record Setup(
        long graceH, long prepayH, int feeH, int minIncTicksH, long graceA, long prepayA, long graceL, int timeoutIdx,
        long depositR1, long depositR4)
    {
    }

    enum Kind
    {
        ASK, BID, CANCEL, REPLACE, MASS_CANCEL, RELEASE, DEPOSIT, BEAT, HEARTBEAT, TOGGLE, TICK, CONFIG, HALT,
        RESUME, BOOK, KEY, COD_SESSION, RESTART
    }

    /** One step of a run: its kind, a time step and kind-specific small integers. */
    record Act(Kind kind, long dt, List<Integer> p)
    {
        int p(final int i)
        {
            return p.get(i);
        }
    }

    /** The parameters of a run's header. */
    static final class Setups implements ArbitrarySupplier<Setup>
    {
        @Override
        public Arbitrary<Setup> get()
        {
            final Arbitrary<Long> grace = Arbitraries.of(0L, 1L, 1_000L, 30_000L);
            final Arbitrary<Long> prepay = Arbitraries.of(60_000L, 600_000L, 3_600_000L);
            final Arbitrary<Integer> fee = Arbitraries.of(0, 1, 250, 500);
            final Arbitrary<Integer> minInc = Arbitraries.of(1, 5);
            final Arbitrary<Integer> timeout = Arbitraries.integers().between(0, TIMEOUTS.length - 1);
            final Arbitrary<Long> small = Arbitraries.longs().between(1_000_000L, 40_000_000L);
            return Combinators.combine(
                    Combinators.combine(grace, prepay, fee, minInc).as(Tuple::of),
                    Combinators.combine(grace, prepay, grace, timeout).as(Tuple::of),
                    small, small)
                .as((h, a, r1, r4) -> new Setup(h.get1(), h.get2(), h.get3(), h.get4(), a.get1(), a.get2(), a.get3(),
                    a.get4(), r1, r4));
        }
    }

    /** Long streams, up to 2,500 steps. */
    static final class Actions implements ArbitrarySupplier<List<Act>>
    {
        @Override
        public Arbitrary<List<Act>> get()
        {
            return act().list().ofMinSize(1).ofMaxSize(2500).withSizeDistribution(RandomDistribution.uniform());
        }
    }

    /** Short streams, for the determinism property. */
    static final class ShortActions implements ArbitrarySupplier<List<Act>>
    {
        @Override
        public Arbitrary<List<Act>> get()
        {
            return act().list().ofMinSize(1).ofMaxSize(1500).withSizeDistribution(RandomDistribution.uniform());
        }
    }

    static Arbitrary<Integer> ints(final int min, final int max)
    {
        return Arbitraries.integers().between(min, max);
    }

    /** 0 mostly, else 1..n. */
    @SuppressWarnings("unchecked")
    static Arbitrary<Integer> mostlyZero(final int weightZero, final int n)
    {
        return Arbitraries.frequencyOf(Tuple.of(weightZero, Arbitraries.just(0)), Tuple.of(10, ints(1, n)));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Long> dt()
    {
        return Arbitraries.frequencyOf(
            Tuple.of(60, Arbitraries.just(0L)),
            Tuple.of(30, Arbitraries.longs().between(1, 2_000)),
            Tuple.of(10, Arbitraries.longs().between(2_000, 20_000)));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Integer> gpus()
    {
        return Arbitraries.frequencyOf(Tuple.of(95, ints(1, 8)), Tuple.of(5, Arbitraries.of(0, 9, 2000)));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Integer> priceK()
    {
        return Arbitraries.frequencyOf(Tuple.of(98, ints(0, 20)), Tuple.of(2, Arbitraries.just(99)));
    }

    static Arbitrary<Act> act(final Kind kind, final Arbitrary<Long> dt, final List<Arbitrary<Integer>> params)
    {
        final Arbitrary<List<Integer>> p = params.isEmpty() ? Arbitraries.just(List.of()) : Combinators.combine(params)
            .as(ArrayList::new);
        return Combinators.combine(dt, p).as((d, ps) -> new Act(kind, d, List.copyOf(ps)));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Act> act()
    {
        final Arbitrary<Integer> slot = ints(0, 11);
        final Arbitrary<Integer> bool10 = Arbitraries.frequency(Tuple.of(9, 0), Tuple.of(1, 1));
        final Arbitrary<Integer> tif = Arbitraries.frequency(Tuple.of(7, 0), Tuple.of(2, 1), Tuple.of(2, 2));
        final Arbitrary<Act> ask = act(Kind.ASK, dt(), List.of(
            Arbitraries.frequency(Tuple.of(10, 0), Tuple.of(10, 1), Tuple.of(6, 2), Tuple.of(1, 3)),
            Arbitraries.frequencyOf(Tuple.of(95, ints(0, 7)), Tuple.of(5, ints(100, 107))),
            slot, Arbitraries.frequencyOf(Tuple.of(95, ints(1, 4)), Tuple.of(5, Arbitraries.of(0, 9, 2000))), priceK(),
            tif, bool10));
        final Arbitrary<Act> bid = act(Kind.BID, dt(), List.of(
            Arbitraries.frequency(Tuple.of(10, 0), Tuple.of(10, 1), Tuple.of(10, 2), Tuple.of(10, 3), Tuple.of(6, 4),
                Tuple.of(1, 5)),
            ints(0, 2), slot, gpus(), priceK(), tif, Arbitraries.frequency(Tuple.of(80, 0), Tuple.of(10, 1), Tuple.of(10, 2)),
            Arbitraries.frequency(Tuple.of(8, 0), Tuple.of(2, 1)),
            mostlyZero(25, MIN_REL.length - 1), mostlyZero(25, REGIONS.length - 1),
            mostlyZero(25, MAX_DURATION.length - 1)));
        final Arbitrary<Act> cancel = act(Kind.CANCEL, dt(), List.of(ints(0, ACCOUNTS.length - 1), slot,
            Arbitraries.frequency(Tuple.of(7, 0), Tuple.of(3, 1))));
        final Arbitrary<Act> replace = act(Kind.REPLACE, dt(), List.of(ints(0, ACCOUNTS.length - 1), slot,
            Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(-1)), Tuple.of(6, priceK())),
            Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(-1)), Tuple.of(6, ints(0, 8)))));
        final Arbitrary<Act> massCancel = act(Kind.MASS_CANCEL, dt(), List.of(ints(0, ACCOUNTS.length - 1),
            ints(-1, 2)));
        final Arbitrary<Act> release = act(Kind.RELEASE, dt(), List.of(ints(0, 4), ints(0, 50),
            Arbitraries.frequency(Tuple.of(9, 0), Tuple.of(1, 1))));
        final Arbitrary<Act> deposit = act(Kind.DEPOSIT, dt(), List.of(ints(0, ACCOUNTS.length - 1),
            Arbitraries.frequencyOf(Tuple.of(9, ints(1, 50_000)), Tuple.of(1, Arbitraries.just(0)))));
        final Arbitrary<Act> beat = act(Kind.BEAT, dt(), List.of());
        final Arbitrary<Act> heartbeat = act(Kind.HEARTBEAT, dt(), List.of(ints(0, MACHINES.length - 1)));
        final Arbitrary<Act> toggle = act(Kind.TOGGLE, dt(), List.of(ints(0, MACHINES.length - 1)));
        final Arbitrary<Act> tick = act(Kind.TICK, Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.longs().between(1, 60_000)),
            Tuple.of(3, Arbitraries.longs().between(60_000, 3_600_000)),
            Tuple.of(3, Arbitraries.longs().between(3_600_000, 43_200_000))), List.of());
        final Arbitrary<Act> config = act(Kind.CONFIG, dt(), List.of(ints(0, TIMEOUTS.length - 1),
            ints(-1, RESTART_WINDOWS.length - 1)));
        final Arbitrary<Act> halt = act(Kind.HALT, dt(), List.of(ints(0, 2)));
        final Arbitrary<Act> resume = act(Kind.RESUME, dt(), List.of(ints(0, 2)));
        final Arbitrary<Act> book = act(Kind.BOOK, dt(), List.of(ints(0, 2)));
        final Arbitrary<Act> key = act(Kind.KEY, dt(), List.of(ints(0, ACCOUNTS.length), ints(0, 6),
            Arbitraries.frequency(Tuple.of(2, 0), Tuple.of(1, 1))));
        final Arbitrary<Act> codSession = act(Kind.COD_SESSION, dt(), List.of(ints(0, ACCOUNTS.length),
            Arbitraries.frequency(Tuple.of(2, 0), Tuple.of(1, 1))));
        final Arbitrary<Act> restart = act(Kind.RESTART, Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.longs().between(0, 60_000)),
            Tuple.of(2, Arbitraries.longs().between(60_000, 3_600_000))), List.of());
        return Arbitraries.frequencyOf(
            Tuple.of(1, codSession),
            Tuple.of(1, restart),
            Tuple.of(20, ask),
            Tuple.of(30, bid),
            Tuple.of(6, cancel),
            Tuple.of(6, replace),
            Tuple.of(1, massCancel),
            Tuple.of(8, release),
            Tuple.of(3, deposit),
            Tuple.of(10, beat),
            Tuple.of(3, heartbeat),
            Tuple.of(2, toggle),
            Tuple.of(3, tick),
            Tuple.of(1, config),
            Tuple.of(1, halt),
            Tuple.of(6, resume),
            Tuple.of(1, book),
            Tuple.of(1, key));
    }
}
