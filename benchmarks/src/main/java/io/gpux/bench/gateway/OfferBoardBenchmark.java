package io.gpux.bench.gateway;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import io.gpux.gateway.offers.OfferBoard;
import io.gpux.gateway.offers.OfferSnapshot;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What keeping the offer board costs the core thread per batch, against the size of the exchange.
 * {@code machines} machines are online, each with an ask; a batch is one REPLACE that moves the price
 * of one machine's ask (cycling over {@value #CHANGED} machines), then the board's after-batch step.
 * {@code incremental} is the board as it runs ({@link OfferBoard#onBatchApplied}: the machines the batch
 * touched, into its persistent tree) and should not move between 10,000 and 100,000 machines;
 * {@code fullCopy} copies every machine of the exchange after the same batch
 * ({@link OfferSnapshot#capture}), as a board without the engine's list of touched machines would, and
 * grows with the exchange; {@code batchOnly} is the batch alone. Run with {@code ./gpux bench OfferBoardBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class OfferBoardBenchmark
{
    @Param({"10000", "100000"})
    public int machines;

    private static final int OWNERS = 100;
    private static final int CHANGED = 1024;
    private static final long INTERVAL_NS = 20_000_000;

    private MatchingEngine engine;
    private OfferBoard board;
    private long nanos;
    /** Per changed machine, its ask's REPLACE to a higher and back to the lower price. */
    private Command[] replaces;
    private int next;

    @Setup(Level.Trial)
    public void setup() throws ScenarioException
    {
        final StringBuilder s = new StringBuilder();
        s.append("0 CONFIG heartbeatTimeoutMs=0\n0 MARKET id=H100\n");
        for (int o = 0; o < OWNERS; o++)
        {
            s.append("0 ACCOUNT id=o").append(o).append(" roles=OWNER\n");
        }
        for (int m = 0; m < machines; m++)
        {
            final String owner = "o" + m % OWNERS;
            s.append("0 MACHINE id=m").append(m).append(" owner=").append(owner).append(" market=H100 gpus=8\n");
            s.append("0 HEARTBEAT machine=m").append(m).append('\n');
            s.append("0 ASK id=a").append(m).append(" account=").append(owner).append(" machine=m").append(m)
                .append(" gpus=8 price=1.0000\n");
        }
        final Symbols symbols = new Symbols();
        final ScenarioParser parser = new ScenarioParser(symbols);
        engine = ScenarioEngine.of(parser, s.toString());
        replaces = new Command[2 * CHANGED];
        for (int m = 0; m < CHANGED; m++)
        {
            for (int up = 0; up < 2; up++)
            {
                final Command replace = new Command();
                parser.parse("0 REPLACE id=a" + m + " account=o" + m % OWNERS + " price=" + (up == 0 ? "2.0000" : "1.0000"),
                    1, replace);
                replaces[2 * m + up] = replace;
            }
        }
        board = new OfferBoard(() -> nanos, INTERVAL_NS, 1_000 * INTERVAL_NS);
        board.onRecovered(engine);
        final int[] rows = new int[1];
        board.read(snapshot -> rows[0] = snapshot.rows().size());
        if (rows[0] != machines)
        {
            throw new IllegalStateException("setup built " + rows[0] + " offers of " + machines + " machines");
        }
    }

    private void batch()
    {
        engine.apply(replaces[next]);
        next = (next + 1) % replaces.length;
        nanos += INTERVAL_NS;
    }

    /** The batch alone, without the board: what {@code incremental} costs beyond it is the board's. */
    @Benchmark
    public MatchingEngine batchOnly()
    {
        batch();
        while (engine.pollTouched() != null)
        {
            // nobody keeps a board here
        }
        return engine;
    }

    @Benchmark
    public OfferBoard incremental()
    {
        batch();
        board.onBatchApplied(engine);
        return board;
    }

    @Benchmark
    public OfferSnapshot fullCopy()
    {
        batch();
        // drains the engine's list, as the board would, so that it does not grow across invocations
        while (engine.pollTouched() != null)
        {
            // the full copy takes every machine
        }
        return OfferSnapshot.capture(engine, 0);
    }
}
