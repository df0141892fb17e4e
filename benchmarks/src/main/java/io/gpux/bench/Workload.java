package io.gpux.bench;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.EventType;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * A precomputed command stream: setup commands (markets, accounts, machines, deposits) applied once, and
 * one pass that a {@link Replayer} applies again and again. A pass starts and ends with an empty book
 * and no leases, so that it can be repeated; {@link #verify()} checks that it repeats exactly.
 */
public final class Workload
{
    final String name;
    final Command[] setup;
    final Command[] pass;
    /** The pass packed for replay. */
    final long[] packedPass;
    /** How far a pass moves on in time each time it is repeated. */
    final long timeShiftMs;
    /** Leases one pass creates: the RELEASEs of the next pass name leases this much higher. */
    final long leasesPerPass;
    /** Events of one pass, by type, as the generator saw them. */
    final long[] passEvents;
    /** Free text about how the stream was made (fidelity counters and so on). */
    final String notes;

    Workload(
        final String name, final Command[] setup, final Command[] pass, final long timeShiftMs,
        final long leasesPerPass, final long[] passEvents, final String notes)
    {
        this.name = name;
        this.setup = setup;
        this.pass = pass;
        this.packedPass = CommandCodec.encode(pass);
        this.timeShiftMs = timeShiftMs;
        this.leasesPerPass = leasesPerPass;
        this.passEvents = passEvents;
        this.notes = notes;
    }

    /**
     * Replays setup and three passes on a fresh engine and checks that every pass emits exactly the
     * events the generator saw (so the lease ids of the precomputed RELEASEs stay right).
     *
     * @throws IllegalStateException if a pass diverges.
     */
    public Workload verify()
    {
        final Replayer r = new Replayer(this);
        long[] before = r.sink.snapshot();
        for (int p = 0; p < 3; p++)
        {
            r.finishPass();
            final long[] after = r.sink.snapshot();
            final long[] delta = new long[after.length];
            for (int i = 0; i < delta.length; i++)
            {
                delta[i] = after[i] - before[i];
            }
            if (!Arrays.equals(delta, passEvents))
            {
                throw new IllegalStateException(name + ": pass " + p + " diverged: events " + histogram(delta) +
                    ", expected " + histogram(passEvents));
            }
            before = after;
        }
        return this;
    }

    static String histogram(final long[] counts)
    {
        final StringBuilder sb = new StringBuilder("{");
        final EventType[] types = EventType.values();
        for (int i = 0; i < counts.length; i++)
        {
            if (counts[i] != 0)
            {
                sb.append(sb.length() > 1 ? ", " : "").append(types[i]).append('=').append(counts[i]);
            }
        }
        return sb.append('}').toString();
    }

    /** The command mix of one pass, e.g. {@code BID/GTC 24.1%, CANCEL 44.0%, ...}. */
    public String mix()
    {
        final Map<String, Integer> counts = new java.util.TreeMap<>();
        for (final Command c : pass)
        {
            String key = c.type.name();
            if (c.type == CommandType.ASK || c.type == CommandType.BID)
            {
                key += "/" + c.tif + (c.gang ? "/gang" : "");
            }
            counts.merge(key, 1, Integer::sum);
        }
        final StringBuilder sb = new StringBuilder();
        for (final Map.Entry<String, Integer> e : counts.entrySet())
        {
            sb.append(sb.length() > 0 ? ", " : "")
                .append(e.getKey()).append(' ').append(String.format("%.1f%%", 100.0 * e.getValue() / pass.length));
        }
        return sb.toString();
    }

    /** Adds (GTC orders), cancels (incl. mass cancels), executions (IOC/FOK), in % of the pass. */
    public String summary()
    {
        final EnumMap<CommandType, Integer> byType = new EnumMap<>(CommandType.class);
        int gtc = 0;
        int ioc = 0;
        for (final Command c : pass)
        {
            byType.merge(c.type, 1, Integer::sum);
            if (c.type == CommandType.ASK || c.type == CommandType.BID)
            {
                if (c.tif == TimeInForce.GTC)
                {
                    gtc++;
                }
                else
                {
                    ioc++;
                }
            }
        }
        final double n = pass.length / 100.0;
        return String.format(
            "%s: %d commands/pass (+%d setup), adds %.1f%%, cancels %.1f%%, replaces %.1f%%, IOC/FOK %.1f%%, " +
            "releases %.1f%%, leases/pass %d, events/pass %d %s",
            name, pass.length, setup.length, gtc / n, (byType.getOrDefault(CommandType.CANCEL, 0) +
            byType.getOrDefault(CommandType.MASS_CANCEL, 0)) / n, byType.getOrDefault(CommandType.REPLACE, 0) / n,
            ioc / n, byType.getOrDefault(CommandType.RELEASE, 0) / n, leasesPerPass,
            Arrays.stream(passEvents).sum(), histogram(passEvents));
    }
}
