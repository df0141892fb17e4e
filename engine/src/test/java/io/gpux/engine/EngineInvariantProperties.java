package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.event.EventType;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.ScenarioPrinter;
import io.gpux.engine.replay.ScenarioReplayer;
import io.gpux.engine.timer.Timer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random command streams (thousands of scenario lines) over three markets, owners, renters with small
 * and large deposits, a market maker, machines in regions whose heartbeats sometimes stop, every order
 * type and constraint, cancels, replaces, mass cancels, reclaims, releases, halts, API keys, and time
 * jumps of up to hours. After every line the {@link InvariantChecker} runs (rulebook section 12 and the engine's
 * own consistency); the same lines on a second engine must print the same text and reach the same state
 * hash after every line (invariant 6); the state hash must change with every state-changing command and
 * stay put for a rejected one.
 *
 * <p>A failure reports (and writes under {@code target/invariant-failures/}) the scenario text up to
 * the failing line, ready for {@code gpux replay}. jqwik prints the seed; failures shrink to a short
 * action list. Each property runs ten times its tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class EngineInvariantProperties
{
    // ------------------------------------------------------------------------------------------- world

    static final String[] MARKETS = {"H100", "A100", "L4"};
    static final String[] OWNERS = {"own1", "own2", "mm", "r1"};
    static final String[] BIDDERS = {"r1", "r2", "r3", "r4", "mm", "own1"};
    static final String[] ACCOUNTS = {"own1", "own2", "mm", "r1", "r2", "r3", "r4", "adm"};
    static final String[] REGIONS = {null, "eu", "us", "ap"};
    static final String[] MIN_REL = {null, "0", "0.5", "0.9", "0.95", "0.99", "1"};
    static final long[] MAX_DURATION = {0, 1, 1000, 60_000, 3_600_000, 7_200_000};
    static final long[] TIMEOUTS = {15_000, 60_000, 14_400_000, 0};
    static final long[] RESTART_WINDOWS = {0, 5_000, 60_000, 3_600_000};
    static final java.util.concurrent.atomic.AtomicBoolean MINIMIZED_ONCE = new java.util.concurrent.atomic.AtomicBoolean();
    static final java.util.concurrent.atomic.AtomicBoolean FIRST_FAILURE_WRITTEN =
        new java.util.concurrent.atomic.AtomicBoolean();

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

    // -------------------------------------------------------------------------------------- generators

    @Provide
    Arbitrary<Setup> setups()
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

    @Provide
    Arbitrary<List<Act>> actions()
    {
        return act().list().ofMinSize(1).ofMaxSize(2500).withSizeDistribution(RandomDistribution.uniform());
    }

    /** Short streams, for the determinism property. */
    @Provide
    Arbitrary<List<Act>> shortActions()
    {
        return act().list().ofMinSize(1).ofMaxSize(1500).withSizeDistribution(RandomDistribution.uniform());
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

    // ------------------------------------------------------------------------------------------ driver

    /** Renders actions into scenario lines and applies them to one engine, checking after every line. */
    static final class Run
    {
        final StringBuilder out = new StringBuilder();
        final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
        final MatchingEngine engine = replayer.engine();
        final InvariantChecker checker = new InvariantChecker(engine);
        final List<String> lines = new ArrayList<>();
        final List<Long> hashes = new ArrayList<>();
        final List<Integer> outputEnds = new ArrayList<>();
        final Map<EventType, Integer> totals = new EnumMap<>(EventType.class);
        final EnumSet<EventType> lineEvents = EnumSet.noneOf(EventType.class);
        final Map<String, Integer> noticeReasons = new java.util.TreeMap<>();
        final boolean checkHashes;
        /** One busy preemption market at a time: H100 or L4 bids only, more gang bids, higher bid prices. */
        boolean preemptionHeavy;
        final boolean[] alive = new boolean[MACHINES.length];
        long time;
        long hashBefore;
        /** The state hash but for the accounts' event numbers, which every private event moves on, a REJECTED too. */
        long quietHashBefore;

        Run(final boolean checkHashes)
        {
            this.checkHashes = checkHashes;
            final ScenarioPrinter printer = new ScenarioPrinter(replayer.symbols(), out);
            engine.sink(checker.tee(e ->
            {
                lineEvents.add(e.type);
                totals.merge(e.type, 1, Integer::sum);
                if (e.type == EventType.PREEMPT_NOTICE)
                {
                    noticeReasons.merge(e.noticeReason.name(), 1, Integer::sum);
                }
                printer.onEvent(e);
            }));
            java.util.Arrays.fill(alive, true);
            hashBefore = engine.stateHash();
            quietHashBefore = new StateWalker(engine, false).hash();
        }

        void header(final Setup s)
        {
            line("CONFIG heartbeatTimeoutMs=" + TIMEOUTS[s.timeoutIdx()]);
            line("MARKET id=H100 tick=0.0100 graceMs=" + s.graceH() + " prepayMs=" + s.prepayH() + " feeBps=" + s.feeH() +
                " minIncrement=" + price(100L * s.minIncTicksH()));
            line("MARKET id=A100 preemption=off graceMs=" + s.graceA() + " prepayMs=" + s.prepayA());
            line("MARKET id=L4 preemption=on graceMs=" + s.graceL() + " prepayMs=120000 maxGpusPerOrder=8 feeBps=100" +
                " preemptIncrementBps=500 fragmentFirst=true");
            line("ACCOUNT id=own1 roles=OWNER");
            line("ACCOUNT id=own2 roles=OWNER");
            line("ACCOUNT id=mm roles=MARKET_MAKER");
            line("ACCOUNT id=r1 roles=RENTER");
            line("ACCOUNT id=r2 roles=RENTER");
            line("ACCOUNT id=r3 roles=RENTER");
            line("ACCOUNT id=r4 roles=RENTER");
            line("ACCOUNT id=adm roles=ADMIN");
            deposit("r1", s.depositR1());
            deposit("r2", 500_000_000L);
            deposit("r3", 100_000_000_000L);
            deposit("r4", s.depositR4());
            deposit("mm", 1_000_000_000L);
            for (final MachineDef m : MACHINES)
            {
                line("MACHINE id=" + m.id() + " owner=" + m.owner() + " market=" + m.market() + " gpus=" + m.gpus() +
                    (m.region() == null ? "" : " region=" + m.region()));
            }
            for (final MachineDef m : MACHINES)
            {
                line("HEARTBEAT machine=" + m.id());
            }
        }

        void act(final Act a)
        {
            time += a.dt();
            switch (a.kind())
            {
                case ASK -> ask(a);
                case BID -> bid(a);
                case CANCEL -> line("CANCEL id=o" + a.p(1) + " account=" + ACCOUNTS[a.p(0)] +
                    (a.p(2) == 1 ? " reclaim=true" : ""));
                case REPLACE -> replace(a);
                case MASS_CANCEL -> line("MASS_CANCEL account=" + ACCOUNTS[a.p(0)] +
                    (a.p(1) < 0 ? "" : " market=" + MARKETS[a.p(1)]));
                case RELEASE -> release(a);
                case DEPOSIT -> deposit(ACCOUNTS[a.p(0)], a.p(1) * 1_000L);
                case BEAT ->
                {
                    for (int i = 0; i < MACHINES.length; i++)
                    {
                        if (alive[i])
                        {
                            line("HEARTBEAT machine=" + MACHINES[i].id());
                        }
                    }
                }
                case HEARTBEAT -> line("HEARTBEAT machine=" + MACHINES[a.p(0)].id());
                case TOGGLE -> alive[a.p(0)] = !alive[a.p(0)];
                case TICK -> line("TICK");
                case CONFIG -> line(preemptionHeavy ? "TICK" : "CONFIG heartbeatTimeoutMs=" + TIMEOUTS[a.p(0)] +
                    (a.p(1) < 0 ? "" : " restartWindowMs=" + RESTART_WINDOWS[a.p(1)]));
                case HALT -> line("HALT market=" + MARKETS[a.p(0)]);
                case RESUME -> line("RESUME market=" + MARKETS[a.p(0)]);
                case BOOK -> line("BOOK market=" + MARKETS[a.p(0)]);
                case KEY -> line("KEY account=" + (a.p(0) < ACCOUNTS.length ? ACCOUNTS[a.p(0)] : "nobody") + " key=" +
                    a.p(1) + (a.p(2) == 1 ? " revoke=true" : ""));
                case COD_SESSION -> line("COD_SESSION account=" + (a.p(0) < ACCOUNTS.length ? ACCOUNTS[a.p(0)] : "nobody") +
                    (a.p(1) == 1 ? " closed=true" : ""));
                case RESTART -> line("RESTART");
                default -> throw new IllegalStateException();
            }
        }

        private void ask(final Act a)
        {
            final String owner = OWNERS[a.p(0)];
            final int pick = a.p(1);
            MachineDef machine;
            if (pick >= 100)
            {
                machine = MACHINES[pick - 100];
            }
            else
            {
                final List<MachineDef> own = new ArrayList<>();
                for (final MachineDef m : MACHINES)
                {
                    if (m.owner().equals(owner))
                    {
                        own.add(m);
                    }
                }
                machine = own.isEmpty() ? MACHINES[pick] : own.get(pick % own.size());
            }
            line("ASK id=o" + freeSlot(owner, a.p(2)) + " account=" + owner + " machine=" + machine.id() + " gpus=" +
                a.p(3) + " price=" + price(priceOf(machine.market(), a.p(4))) + tif(a.p(5)) +
                (a.p(6) == 1 ? " postOnly=true" : ""));
        }

        private void bid(final Act a)
        {
            if (preemptionHeavy)
            {
                final List<Integer> p = new ArrayList<>(a.p());
                p.set(1, a.p(1) == 1 ? 2 : 0);
                p.set(4, a.p(4) == 99 ? 99 : Math.min(20, a.p(4) + 5));
                p.set(7, a.p(7) == 1 || a.p(3) % 3 == 0 ? 1 : 0);
                p.set(9, a.p(9) % 3 == 0 ? 0 : a.p(9));
                bidLine(new Act(a.kind(), a.dt(), p));
                return;
            }
            bidLine(a);
        }

        private void bidLine(final Act a)
        {
            final String market = MARKETS[a.p(1)];
            final StringBuilder sb = new StringBuilder("BID id=o").append(freeSlot(BIDDERS[a.p(0)], a.p(2)))
                .append(" account=").append(BIDDERS[a.p(0)]).append(" market=").append(market).append(" gpus=").append(a.p(3))
                .append(" price=").append(price(priceOf(market, a.p(4)))).append(tif(a.p(5)));
            if (a.p(6) == 1)
            {
                sb.append(" postOnly=true");
            }
            else if (a.p(6) == 2)
            {
                sb.append(" noPreempt=true");
            }
            if (a.p(7) == 1)
            {
                sb.append(" gang=true");
            }
            if (a.p(8) > 0)
            {
                sb.append(" minReliability=").append(MIN_REL[a.p(8)]);
            }
            if (a.p(9) > 0)
            {
                sb.append(" region=").append(REGIONS[a.p(9)]);
            }
            if (a.p(10) > 0)
            {
                sb.append(" maxDurationMs=").append(MAX_DURATION[a.p(10)]);
            }
            line(sb.toString());
        }

        /**
         * The order id for a new order: the slot asked for if it is free or if the slot is odd-numbered
         * above 7 (so that some orders reuse an open id: DUPLICATE_ORDER_ID), else the next free one.
         */
        private int freeSlot(final String account, final int slot)
        {
            final var acc = engine.account(replayer.symbols().accounts.existing(account));
            if (acc == null || slot >= 8 && slot % 2 == 1)
            {
                return slot;
            }
            for (int i = 0; i < 12; i++)
            {
                final int s = (slot + i) % 12;
                final long id = replayer.symbols().orders.existing("o" + s);
                if (id == 0 || !acc.openOrders.containsKey(id))
                {
                    return s;
                }
            }
            return slot;
        }

        private void replace(final Act a)
        {
            final String account = ACCOUNTS[a.p(0)];
            final StringBuilder sb = new StringBuilder("REPLACE id=o").append(a.p(1)).append(" account=").append(account);
            if (a.p(2) >= 0)
            {
                // the price scale of the order's market, if it is open; else H100's
                String market = "H100";
                final var acc = engine.account(replayer.symbols().accounts.existing(account));
                final var order = acc == null ? null :
                    acc.openOrders.get(replayer.symbols().orders.existing("o" + a.p(1)));
                if (order != null)
                {
                    market = order.market.name;
                }
                sb.append(" price=").append(price(priceOf(market, a.p(2))));
            }
            if (a.p(3) >= 0)
            {
                sb.append(" gpus=").append(a.p(3));
            }
            line(sb.toString());
        }

        private void release(final Act a)
        {
            final String renter = BIDDERS[a.p(0)];
            final List<Long> ids = new ArrayList<>();
            for (final Lease l : engine.leases())
            {
                if (l.renter.name.equals(renter))
                {
                    ids.add(l.id);
                }
            }
            ids.sort(null);
            if (a.p(2) == 1 || engine.leases.isEmpty())
            {
                // any lease id: often someone else's (NOT_AUTHORIZED) or ended (UNKNOWN_LEASE)
                line("RELEASE lease=L" + (1 + a.p(1) % Math.max(1, engine.nextLeaseId)) + " account=" + renter);
            }
            else if (ids.isEmpty())
            {
                // this renter has none: release someone's, as that renter
                final List<Lease> all = new ArrayList<>();
                engine.leases().forEach(all::add);
                all.sort((x, y) -> Long.compare(x.id, y.id));
                final Lease l = all.get(a.p(1) % all.size());
                line("RELEASE lease=L" + l.id + " account=" + l.renter.name);
            }
            else
            {
                line("RELEASE lease=L" + ids.get(a.p(1) % ids.size()) + " account=" + renter);
            }
        }

        void deposit(final String account, final long micros)
        {
            checker.expectDeposit(replayer.symbols().accounts.id(account), micros);
            line("DEPOSIT account=" + account + " amount=" + money(micros));
        }

        void line(final String body)
        {
            final String text = time + " " + body;
            lines.add(text);
            lineEvents.clear();
            final Timer next = engine.timers.peek();
            final boolean timersDue = next != null && next.dueMs <= time;
            final boolean sameTime = time == engine.lastCommandTime;
            try
            {
                replayer.line(text);
                checker.check();
            }
            catch (final Exception | AssertionError ex)
            {
                throw failure(ex, true);
            }
            outputEnds.add(out.length());
            if (checkHashes)
            {
                final long hash = engine.stateHash();
                hashes.add(hash);
                final String verb = body.substring(0, body.indexOf(' ') < 0 ? body.length() : body.indexOf(' '));
                final Set<EventType> changing = EnumSet.of(EventType.CANCELLED, EventType.FILL, EventType.LEASE_STARTED,
                    EventType.PREEMPT_NOTICE, EventType.LEASE_ENDED, EventType.SETTLED, EventType.BALANCE,
                    EventType.MACHINE_ONLINE, EventType.MACHINE_OFFLINE);
                if (!verb.equals("REPLACE"))
                {
                    changing.add(EventType.ACCEPTED);
                }
                final boolean changed = lineEvents.stream().anyMatch(changing::contains);
                if (changed && hash == hashBefore)
                {
                    throw failure(new AssertionError("state hash did not change although the command printed " +
                        lineEvents));
                }
                final boolean quiet = lineEvents.stream().allMatch(t -> t == EventType.REJECTED || t == EventType.BOOK);
                final boolean silentWriter = Set.of("MARKET", "CONFIG", "ACCOUNT", "MACHINE", "HALT", "RESUME",
                    "HEARTBEAT", "RESTART").contains(verb) ||
                    Set.of("KEY", "COD_SESSION").contains(verb) && !lineEvents.contains(EventType.REJECTED);
                final long quietHash = new StateWalker(engine, false).hash();
                if (quiet && !timersDue && sameTime && !silentWriter && quietHash != quietHashBefore)
                {
                    throw failure(new AssertionError("state hash changed although the command printed only " +
                        lineEvents + " and no timer was due"));
                }
                hashBefore = hash;
                quietHashBefore = quietHash;
            }
        }

        String scenario()
        {
            return String.join("\n", lines) + "\n";
        }

        AssertionError failure(final Throwable cause)
        {
            return failure(cause, false);
        }

        /**
         * The failure, with the scenario up to the failing line written to a file; the first checker
         * failure of the JVM is also minimized (ddmin over lines, 30 s at most) and printed.
         */
        AssertionError failure(final Throwable cause, final boolean minimize)
        {
            final String scenario = scenario();
            String minimized = "";
            if (minimize && !MINIMIZED_ONCE.getAndSet(true))
            {
                final List<String> min = ScenarioMinimizer.minimize(lines, 30_000);
                minimized = "--- minimized scenario (" + min.size() + " lines; fails with: " +
                    ScenarioMinimizer.failureOf(min) + "):\n" + String.join("\n", min) + "\n";
                System.out.println(minimized);
                try
                {
                    Files.createDirectories(Path.of("target", "invariant-failures"));
                    Files.writeString(Path.of("target", "invariant-failures", "minimized.scn"),
                        String.join("\n", min) + "\n");
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }
            String where = "";
            try
            {
                final Path dir = Path.of("target", "invariant-failures");
                Files.createDirectories(dir);
                // the first failure of the JVM (jqwik's original sample) and the latest (a shrunk one)
                final Path file = dir.resolve(FIRST_FAILURE_WRITTEN.getAndSet(true) ? "failure-latest.scn" :
                    "failure-first.scn");
                Files.writeString(file, scenario);
                where = " (scenario written to " + file.toAbsolutePath() + ")";
            }
            catch (final IOException ex)
            {
                where = " (could not write the scenario: " + ex + ")";
            }
            final String[] outLines = out.toString().split("\n");
            final StringBuilder tail = new StringBuilder();
            for (int i = Math.max(0, outLines.length - 25); i < outLines.length; i++)
            {
                tail.append(outLines[i]).append('\n');
            }
            final String text = lines.size() <= 120 ? scenario : "(" + lines.size() + " lines; last 30)\n" +
                String.join("\n", lines.subList(lines.size() - 30, lines.size())) + "\n";
            return new AssertionError(cause.getMessage() + "\n  after line " + lines.size() + ": " +
                lines.get(lines.size() - 1) + where + "\n--- scenario:\n" + text + "--- last output:\n" + tail + minimized,
                cause);
        }
    }

    static String tif(final int i)
    {
        return i == 0 ? "" : i == 1 ? " tif=IOC" : " tif=FOK";
    }

    /** Prices in ticks of 0.0001 for each market's ladder; k = 99 is off the tick (or zero). */
    static long priceOf(final String market, final int k)
    {
        return switch (market)
        {
            case "H100" -> k == 99 ? 10_050 : 10_000 + 500L * k;
            case "A100" -> k == 99 ? 0 : 5_000 + 500L * k;
            default -> k == 99 ? 0 : 2_000 + 100L * k;
        };
    }

    static String price(final long ticks)
    {
        return String.format("%d.%04d", ticks / 10_000, ticks % 10_000);
    }

    static String money(final long micros)
    {
        return String.format("%d.%06d", micros / 1_000_000, micros % 1_000_000);
    }

    static Run run(final Setup setup, final List<Act> acts, final boolean checkHashes)
    {
        return run(setup, acts, checkHashes, false);
    }

    static Run run(final Setup setup, final List<Act> acts, final boolean checkHashes, final boolean preemptionHeavy)
    {
        final Run run = new Run(checkHashes);
        run.preemptionHeavy = preemptionHeavy;
        run.header(setup);
        for (final Act a : acts)
        {
            run.act(a);
        }
        return run;
    }

    // ------------------------------------------------------------------------------------------ properties

    /** Invariants 1-3 and 5 and the engine's consistency, after every command of a long random stream. */
    @Property(tries = 20)
    void invariantsHoldAfterEveryCommand(@ForAll("setups") final Setup setup, @ForAll("actions") final List<Act> acts)
    {
        final Run run = run(setup, acts, false);
        Statistics.label("preemption notice").collect(run.totals.getOrDefault(EventType.PREEMPT_NOTICE, 0) > 0);
        Statistics.label("notice reasons").collect(run.noticeReasons.keySet().toString());
        Statistics.label("machine offline").collect(run.totals.getOrDefault(EventType.MACHINE_OFFLINE, 0) > 0);
        Statistics.label("settlements > 100").collect(run.checker.settlements() > 100);
        Statistics.label("plain fills > 50").collect(run.checker.plainFills() > 50);
        Statistics.label("notices > 10").collect(run.checker.notices() > 10);
        Statistics.label("preemption fills > 5").collect(run.checker.preemptionFills() > 5);
        Statistics.label("days").collect(run.time / 86_400_000L);
    }

    /**
     * The same checks on streams aimed at preemption: machines that never time out, bids only in the two
     * preemption markets, priced higher, a third of them gang bids; grace periods from 0 up.
     */
    @Property(tries = 15)
    void invariantsHoldUnderHeavyPreemption(@ForAll("setups") final Setup setup, @ForAll("actions") final List<Act> acts)
    {
        final Setup noTimeout = new Setup(setup.graceH(), setup.prepayH(), setup.feeH(), setup.minIncTicksH(),
            setup.graceA(), setup.prepayA(), setup.graceL(), 3, setup.depositR1(), setup.depositR4());
        final Run run = run(noTimeout, acts, false, true);
        Statistics.label("preemption fills > 20").collect(run.checker.preemptionFills() > 20);
        Statistics.label("notices ended early > 3").collect(run.checker.noticesEndedEarly() > 3);
        Statistics.label("gang preemptions > 2").collect(run.checker.gangPreemptions() > 2);
    }

    /**
     * Invariant 6: the same lines on two fresh engines print the same text and reach the same hashes;
     * and an engine restored from a snapshot of the second one, taken part way, prints and hashes the
     * same from there on.
     */
    @Property(tries = 10)
    void sameCommandsGiveSameEventsAndStateHash(@ForAll("setups") final Setup setup,
        @ForAll("shortActions") final List<Act> acts, @ForAll @IntRange(min = 0, max = 100) final int snapshotAtPercent)
        throws Exception
    {
        final Run a = run(setup, acts, true);
        final StringBuilder out = new StringBuilder();
        final ScenarioReplayer b = new ScenarioReplayer(out);
        final int snapshotAt = (a.lines.size() - 1) * snapshotAtPercent / 100;
        final StringBuilder restoredOut = new StringBuilder();
        MatchingEngine restored = null;
        final ScenarioParser restoredParser = new ScenarioParser(b.symbols());
        final Command command = new Command();
        int start = 0;
        for (int i = 0; i < a.lines.size(); i++)
        {
            final String line = a.lines.get(i);
            try
            {
                b.line(line);
                if (restored != null && restoredParser.parse(line, i + 1, command))
                {
                    restored.apply(command);
                }
            }
            catch (final Exception ex)
            {
                throw a.failure(ex);
            }
            final int end = a.outputEnds.get(i);
            if (out.length() != end || !out.substring(start, end).equals(a.out.substring(start, end)))
            {
                throw a.failure(new AssertionError("second engine printed differently at line " + (i + 1) + ": " + line));
            }
            if (b.engine().stateHash() != a.hashes.get(i))
            {
                throw a.failure(new AssertionError("state hashes differ after line " + (i + 1) + ": " + line));
            }
            if (restored != null)
            {
                if (!restoredOut.toString().equals(out.substring(a.outputEnds.get(snapshotAt), end)))
                {
                    throw a.failure(new AssertionError("engine restored from a snapshot after line " + (snapshotAt + 1) +
                        " printed differently at line " + (i + 1) + ": " + line));
                }
                if (restored.stateHash() != a.hashes.get(i))
                {
                    throw a.failure(new AssertionError("engine restored from a snapshot after line " + (snapshotAt + 1) +
                        ": state hash differs after line " + (i + 1) + ": " + line));
                }
            }
            if (i == snapshotAt)
            {
                final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                EngineSnapshot.write(b.engine(), new java.io.DataOutputStream(bytes));
                restored = new MatchingEngine(new ScenarioPrinter(b.symbols(), restoredOut));
                EngineSnapshot.read(restored, new java.io.DataInputStream(
                    new java.io.ByteArrayInputStream(bytes.toByteArray())));
                if (restored.stateHash() != a.hashes.get(i))
                {
                    throw a.failure(new AssertionError("engine restored from a snapshot after line " + (i + 1) +
                        " has another state hash"));
                }
            }
            start = end;
        }
        assertEquals(a.out.toString(), out.toString());
        // the whole text again, as one replay
        assertEquals(a.out.toString(), io.gpux.engine.replay.ScenarioReplayer.replay(a.scenario()));
    }
}
