package io.gpux.bench.gateway;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.egress.PortfolioView;
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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What a portfolio query costs the core thread, against the size of the rest of the exchange. One account
 * has 4 machines, 4 leases as renter, 4 as owner and 4 open orders; {@code others} machines of other owners,
 * each leased whole by another renter, make up the rest. {@code copy} is what the core thread does for a
 * portfolio ({@link PortfolioView#copy}: the account's own lists only) and should not move between 10,000 and
 * 100,000 other machines; {@code encode} is the egress thread's part; {@code fullWalk} walks every lease and
 * machine of the exchange to find the account's, as a portfolio would without the per-account lists, and grows
 * with the exchange. Run with {@code ./gpux bench PortfolioQueryBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PortfolioQueryBenchmark
{
    /** Machines (and leases) of other accounts. */
    @Param({"10000", "100000"})
    public int others;

    private static final int OTHER_OWNERS = 100;
    private static final int OTHER_RENTERS = 100;

    private MatchingEngine engine;
    private Account me;
    private PortfolioView view;
    private final Directory directory = new Directory();
    private final Map<Long, MachineTelemetry> telemetry = new ConcurrentHashMap<>();

    @Setup(Level.Trial)
    public void setup() throws ScenarioException
    {
        final StringBuilder s = new StringBuilder();
        s.append("0 CONFIG heartbeatTimeoutMs=0\n0 MARKET id=H100 preemption=off\n");
        s.append("0 ACCOUNT id=me roles=OWNER,RENTER\n0 DEPOSIT account=me amount=100000\n");
        for (int o = 0; o < OTHER_OWNERS; o++)
        {
            s.append("0 ACCOUNT id=o").append(o).append(" roles=OWNER\n");
        }
        for (int r = 0; r < OTHER_RENTERS; r++)
        {
            s.append("0 ACCOUNT id=r").append(r).append(" roles=RENTER\n0 DEPOSIT account=r").append(r)
                .append(" amount=100000000\n");
        }
        for (int m = 0; m < others; m++)
        {
            final String owner = "o" + m % OTHER_OWNERS;
            s.append("0 MACHINE id=m").append(m).append(" owner=").append(owner).append(" market=H100 gpus=8\n");
            s.append("0 HEARTBEAT machine=m").append(m).append('\n');
            s.append("0 ASK id=a").append(m).append(" account=").append(owner).append(" machine=m").append(m)
                .append(" gpus=8 price=1.0000\n");
            s.append("0 BID id=b").append(m).append(" account=r").append(m % OTHER_RENTERS)
                .append(" market=H100 gpus=8 price=1.0000\n");
        }
        for (int m = 0; m < 4; m++)
        {
            s.append("0 MACHINE id=mine").append(m).append(" owner=me market=H100 gpus=8\n");
            s.append("0 HEARTBEAT machine=mine").append(m).append('\n');
            s.append("0 ASK id=myask").append(m).append(" account=me machine=mine").append(m)
                .append(" gpus=8 price=2.0000\n");
            s.append("0 BID id=theirs").append(m).append(" account=r").append(m).append(" market=H100 gpus=4 price=2.0000\n");
        }
        for (int m = 0; m < 4; m++)
        {
            s.append("0 MACHINE id=spare").append(m).append(" owner=o0 market=H100 gpus=8\n");
            s.append("0 HEARTBEAT machine=spare").append(m).append('\n');
            s.append("0 ASK id=spare").append(m).append(" account=o0 machine=spare").append(m)
                .append(" gpus=8 price=1.0000\n");
            s.append("0 BID id=mine").append(m).append(" account=me market=H100 gpus=8 price=1.0000\n");
        }
        final Symbols symbols = new Symbols();
        final ScenarioParser parser = new ScenarioParser(symbols);
        engine = ScenarioEngine.of(parser, s.toString());
        me = engine.account(symbols.accounts.existing("me"));
        int leases = 0;
        for (final Lease ignored : engine.leases())
        {
            leases++;
        }
        if (leases != others + 8 || me.machineCount() != 4 || me.ownedLeaseCount() != 4 || me.rentedLeaseCount() != 4 ||
            me.openOrderCount() != 4)
        {
            throw new IllegalStateException("setup built " + leases + " leases; the measured account has " +
                me.machineCount() + " machines, " + me.ownedLeaseCount() + " leases as owner, " + me.rentedLeaseCount() +
                " as renter and " + me.openOrderCount() + " open orders");
        }
        view = PortfolioView.copy(me, 0, directory, telemetry);
    }

    @Benchmark
    public PortfolioView copy()
    {
        return PortfolioView.copy(me, 0, directory, telemetry);
    }

    @Benchmark
    public Object encode()
    {
        return view.encode();
    }

    @Benchmark
    public long fullWalk()
    {
        long found = 0;
        for (final Lease lease : engine.leases())
        {
            if (lease.renter == me || lease.owner == me)
            {
                found += lease.id;
            }
        }
        for (final Machine machine : engine.machines())
        {
            if (machine.owner == me)
            {
                found += machine.id;
            }
        }
        return found;
    }
}
