package io.gpux.bench.workload;

import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.client.agent.AgentWorkloads;
import io.gpux.client.agent.NvidiaSmi;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.OwnerAgentContext;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.WorkloadSpec;
import io.gpux.client.workload.WorkloadSpecs;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * How soon a renter sees its {@code process} workload RUNNING after its bid fills, through the whole
 * exchange on loopback: the exchange (in this JVM, its real gateway, pipeline and journals in a
 * temporary directory), an owner agent with the {@code process} runtime (on a stand-in nvidia-smi
 * that reports 8 H200s) and a renter, each over its own TCP connection to 127.0.0.1.
 * <p>
 * Each launch: the renter bids for one GPU at the agent's ask; when its {@code LeaseStarted} arrives
 * (the fill, at the renter) it sends the launch at once, as {@code gpux run} does; the exchange
 * passes it to the agent, whose supervisor starts the workload ({@code sleep 600}) and reports
 * RUNNING; the exchange passes that to the renter. Then the renter releases the lease and waits for
 * its end (the agent kills the workload) before the next launch. Measured at the renter with
 * {@link System#nanoTime()}: the fill's arrival to RUNNING's arrival, and the bid's sending to
 * RUNNING's arrival; and as the exchange stamps them, the status's time minus the lease's start
 * (milliseconds), which is the readiness {@code gpux run} reports.
 * <p>
 * {@code java -cp benchmarks.jar io.gpux.bench.workload.ExchangeReadiness [launches] [warmup] [agentIntervalMs]}
 */
public final class ExchangeReadiness
{
    private static final String MARKET = "READY-1";
    private static final long PRICE = 10_000;
    private static final Duration T = Duration.ofSeconds(10);
    private static final int GPUS = 8;

    private ExchangeReadiness()
    {
    }

    /** What the renter's event thread hands the measuring thread. */
    private record Seen(long nanos, AccountEvent event, WorkloadStatus status)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int launches = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        final int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        final long intervalMs = args.length > 2 ? Long.parseLong(args[2]) : 5_000;
        final Path dir = Files.createTempDirectory("gpux-exchange-readiness");
        final String load = Files.readString(Path.of("/proc/loadavg")).trim();
        try (Exchange exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("exchange")).port(0).log(line -> { })))
        {
            final int port = exchange.port();
            final String[] ownerKey;
            final String[] renterKey;
            try (GpuxClient admin = client(port, exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret()))
            {
                admin.connect();
                check(admin.call(Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol(MARKET)
                    .setPreemption(false)), T));
                ownerKey = account(admin, "owner", Role.OWNER, 0);
                renterKey = account(admin, "renter", Role.RENTER, 1_000_000_000_000L);
            }
            final LinkedBlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
            try (GpuxClient owner = client(port, Long.parseLong(ownerKey[0]), ownerKey[1]);
                GpuxClient renter = client(port, Long.parseLong(renterKey[0]), renterKey[1]))
            {
                final WorkloadSpec spec = WorkloadSpec.process("sleep 600", Map.of());
                renter.addListener(new ClientListener()
                {
                    @Override
                    public void onLeaseStarted(final AccountEvent event, final LeaseStarted started)
                    {
                        final long now = System.nanoTime();
                        renter.launch(started.getLeaseId(), WorkloadSpecs.toProto(spec, null, 1));
                        seen.add(new Seen(now, event, null));
                    }

                    @Override
                    public void onLeaseEnded(final AccountEvent event, final LeaseEnded ended)
                    {
                        seen.add(new Seen(System.nanoTime(), event, null));
                    }

                    @Override
                    public void onWorkloadStatus(final WorkloadStatus status)
                    {
                        seen.add(new Seen(System.nanoTime(), null, status));
                    }
                });
                owner.connect();
                renter.connect();
                final OwnerAgent agent = new OwnerAgent(new OwnerAgentContext().client(owner).machineName("bench-1")
                    .market(MARKET).reservePrice(PRICE).nvidiaSmi(new NvidiaSmi(fakeNvidiaSmi(dir).toString(), T))
                    .heartbeatInterval(Duration.ofMillis(intervalMs)).requestTimeout(T)
                    .workloads(new AgentWorkloads(owner, new WorkloadSupervisorContext().stateDir(dir.resolve("agent-state"))
                        .runtime(new ProcessRuntime(null, line -> { })), AgentWorkloads.DEFAULT_POLL_INTERVAL_MS, line -> { })));
                try (agent)
                {
                    agent.start();
                    final long askDeadline = System.nanoTime() + T.toNanos();
                    while (agent.askOrderId() == 0)
                    {
                        if (System.nanoTime() > askDeadline)
                        {
                            throw new IllegalStateException("the agent posted no ask within " + T);
                        }
                        Thread.sleep(10);
                    }
                    run(renter, seen, launches, warmup, intervalMs, load);
                }
            }
        }
    }

    private static void run(final GpuxClient renter, final LinkedBlockingQueue<Seen> seen, final int launches,
        final int warmup, final long intervalMs, final String load) throws Exception
    {
        final Histogram fillToRunning = new Histogram(3);
        final Histogram bidToRunning = new Histogram(3);
        final Histogram exchangeStamped = new Histogram(3);
        final Histogram fillToStarting = new Histogram(3);
        final Histogram startingToRunning = new Histogram(3);
        for (int i = 0; i < warmup + launches; i++)
        {
            final long bidNanos = System.nanoTime();
            check(renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(i + 1).setMarket(MARKET)
                .setGpus(1).setPrice(PRICE)), T));
            Seen fill;
            do
            {
                fill = next(seen, "the lease");
            }
            while (fill.event() == null || !fill.event().hasLeaseStarted());
            final long lease = fill.event().getLeaseStarted().getLeaseId();
            Seen running;
            long startingNanos = 0;
            do
            {
                running = next(seen, "RUNNING");
                final WorkloadStatus status = running.status();
                if (status != null && status.getLeaseId() == lease && status.getState() == WorkloadState.WORKLOAD_STARTING)
                {
                    startingNanos = running.nanos();
                }
                if (status != null && status.getState() == WorkloadState.WORKLOAD_FAILED)
                {
                    throw new IllegalStateException("launch " + i + ": " + status);
                }
            }
            while (running.status() == null || running.status().getLeaseId() != lease
                || running.status().getState() != WorkloadState.WORKLOAD_RUNNING);
            if (i >= warmup)
            {
                fillToRunning.recordValue((running.nanos() - fill.nanos()) / 1000);
                bidToRunning.recordValue((running.nanos() - bidNanos) / 1000);
                exchangeStamped.recordValue(Math.max(0, running.status().getTimeMs() - fill.event().getTimeMs()));
                if (startingNanos != 0)
                {
                    fillToStarting.recordValue((startingNanos - fill.nanos()) / 1000);
                    startingToRunning.recordValue((running.nanos() - startingNanos) / 1000);
                }
            }
            check(renter.call(Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(lease)), T));
            Seen end;
            do
            {
                end = next(seen, "the lease's end");
            }
            while (end.event() == null || !end.event().hasLeaseEnded());
            seen.clear();
        }
        System.out.println("exchange readiness (fill -> RUNNING at the renter), process runtime, " + launches
            + " launches after " + warmup + " warm-up, agent interval " + intervalMs + " ms, "
            + Runtime.getRuntime().availableProcessors() + " CPU(s), java " + System.getProperty("java.version")
            + ", load average at start " + load);
        print("the fill at the renter -> RUNNING at the renter", fillToRunning, 1000.0);
        print("the bid sent -> RUNNING at the renter", bidToRunning, 1000.0);
        print("as the exchange stamps them (status time - lease start)", exchangeStamped, 1.0);
        System.out.println("the parts, at the renter: the launch to the agent and the agent's STARTING back; then the start "
            + "of the process and RUNNING back");
        print("the fill -> STARTING", fillToStarting, 1000.0);
        print("STARTING -> RUNNING", startingToRunning, 1000.0);
    }

    private static Seen next(final LinkedBlockingQueue<Seen> seen, final String what) throws InterruptedException
    {
        final Seen s = seen.poll(T.toMillis(), TimeUnit.MILLISECONDS);
        if (s == null)
        {
            throw new IllegalStateException("waited " + T + " for " + what);
        }
        return s;
    }

    private static void print(final String what, final Histogram histogram, final double perMs)
    {
        System.out.printf("%s, ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f%n", what,
            histogram.getValueAtPercentile(50) / perMs, histogram.getValueAtPercentile(90) / perMs,
            histogram.getValueAtPercentile(99) / perMs, histogram.getMaxValue() / perMs);
    }

    private static GpuxClient client(final int port, final long keyId, final String secret)
    {
        return new GpuxClient(new ClientContext().host("127.0.0.1").port(port).keyId(keyId).secretHex(secret));
    }

    private static String[] account(final GpuxClient admin, final String name, final Role role, final long deposit)
        throws Exception
    {
        check(admin.call(Envelope.newBuilder().setCreateAccount(CreateAccount.newBuilder().setName(name).addRoles(role)), T));
        if (deposit > 0)
        {
            check(admin.call(Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount(name).setAmount(deposit)), T));
        }
        final Response key = check(admin.call(Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(name)), T));
        return new String[] {Long.toString(key.getAssignedId()), key.getSecret()};
    }

    /** A stand-in for nvidia-smi reporting 8 idle H200s (the fields the agent asks for, as a real one prints them). */
    private static Path fakeNvidiaSmi(final Path dir) throws Exception
    {
        final StringBuilder idle = new StringBuilder("name, uuid, serial, pci.bus_id, driver_version, memory.total [MiB], "
            + "memory.used [MiB], memory.free [MiB], utilization.gpu [%], utilization.memory [%], temperature.gpu, "
            + "power.draw [W], power.limit [W], clocks.current.sm [MHz], clocks.max.sm [MHz], "
            + "ecc.errors.uncorrected.volatile.total, pstate, compute_cap\n");
        final StringBuilder telemetry = new StringBuilder("timestamp, " + idle.substring(0, idle.indexOf("memory.total"))
            + "memory.total [MiB], memory.used [MiB], memory.free [MiB], utilization.gpu [%], utilization.memory [%], "
            + "temperature.gpu, power.draw [W], power.limit [W], clocks.current.sm [MHz], clocks.max.sm [MHz], "
            + "ecc.errors.uncorrected.volatile.total, pstate, compute_cap\n");
        for (int i = 1; i <= GPUS; i++)
        {
            final String id = "NVIDIA H200, GPU-5f1d0c2e-0000-4000-8000-00000000000" + i + ", 165000000000" + i
                + ", 00000000:00:0" + i + ".0, 580.159.04, ";
            idle.append(id).append("143771 MiB, 0 MiB, 143156 MiB, 0 %, 0 %, 36, 122.52 W, 700.00 W, 1980 MHz, 1980 MHz, 0, P0, 9.0\n");
            telemetry.append("2026/11/30 01:15:57.111, ").append(id)
                .append("143771, 0, 143156, 0, 0, 36, 121.74, 700.00, 405, 1980, 0, P0, 9.0\n");
        }
        Files.writeString(dir.resolve("query-idle.csv"), idle);
        Files.writeString(dir.resolve("telemetry.csv"), telemetry);
        final Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\ncase \"$1\" in\n"
            + "  --query-gpu=timestamp,*) cat '" + dir.resolve("telemetry.csv") + "' ;;\n"
            + "  *) cat '" + dir.resolve("query-idle.csv") + "' ;;\nesac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    private static Response check(final Response r)
    {
        if (r.getReason() != Reason.REASON_OK)
        {
            throw new IllegalStateException(r.getReason() + " " + r.getMessage());
        }
        return r;
    }
}
