package io.gpux.engine;

import io.gpux.engine.InvariantStream.Act;
import io.gpux.engine.InvariantStream.MachineDef;
import io.gpux.engine.InvariantStream.Setup;
import io.gpux.engine.event.EventType;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.replay.ScenarioPrinter;
import io.gpux.engine.replay.ScenarioReplayer;
import io.gpux.engine.timer.Timer;

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
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.gpux.engine.InvariantStream.ACCOUNTS;
import static io.gpux.engine.InvariantStream.BIDDERS;
import static io.gpux.engine.InvariantStream.MACHINES;
import static io.gpux.engine.InvariantStream.MARKETS;
import static io.gpux.engine.InvariantStream.MAX_DURATION;
import static io.gpux.engine.InvariantStream.MIN_REL;
import static io.gpux.engine.InvariantStream.OWNERS;
import static io.gpux.engine.InvariantStream.REGIONS;
import static io.gpux.engine.InvariantStream.RESTART_WINDOWS;
import static io.gpux.engine.InvariantStream.TIMEOUTS;

/**
 * Renders an {@link InvariantStream}'s actions into scenario lines and applies them to one engine,
 * running the {@link InvariantChecker} after every line and, when asked, checking that the state hash
 * changes with every state-changing command and stays put for a rejected one.
 *
 * <p>A failure reports (and writes under {@code target/invariant-failures/}) the scenario text up to
 * the failing line, ready for {@code gpux replay}; the JVM's first checker failure is also minimized.
 */
final class InvariantRun
{
    private static final AtomicBoolean MINIMIZED_ONCE = new AtomicBoolean();
    private static final AtomicBoolean FIRST_FAILURE_WRITTEN = new AtomicBoolean();

    final StringBuilder out = new StringBuilder();
    final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
    final MatchingEngine engine = replayer.engine();
    final InvariantChecker checker = new InvariantChecker(engine);
    final List<String> lines = new ArrayList<>();
    final List<Long> hashes = new ArrayList<>();
    final List<Integer> outputEnds = new ArrayList<>();
    final Map<EventType, Integer> totals = new EnumMap<>(EventType.class);
    final EnumSet<EventType> lineEvents = EnumSet.noneOf(EventType.class);
    final Map<String, Integer> noticeReasons = new TreeMap<>();
    final boolean checkHashes;
    /** One busy preemption market at a time: H100 or L4 bids only, more gang bids, higher bid prices. */
    boolean preemptionHeavy;
    final boolean[] alive = new boolean[MACHINES.length];
    long time;
    long hashBefore;
    /** The state hash but for the accounts' event numbers, which every private event moves on, a REJECTED too. */
    long quietHashBefore;

    InvariantRun(final boolean checkHashes)
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

    static InvariantRun run(final Setup setup, final List<Act> acts, final boolean checkHashes)
    {
        return run(setup, acts, checkHashes, false);
    }

    static InvariantRun run(final Setup setup, final List<Act> acts, final boolean checkHashes, final boolean preemptionHeavy)
    {
        final InvariantRun run = new InvariantRun(checkHashes);
        run.preemptionHeavy = preemptionHeavy;
        run.header(setup);
        for (final Act a : acts)
        {
            run.act(a);
        }
        return run;
    }
}
