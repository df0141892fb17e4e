package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.client.agent.AgentWorkloads;
import io.gpux.client.agent.GpuInfo;
import io.gpux.client.agent.NvidiaSmi;
import io.gpux.client.agent.NvidiaSmiException;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.OwnerAgentContext;
import io.gpux.client.agent.OwnerAgentListener;
import io.gpux.client.agent.workload.DockerConfig;
import io.gpux.client.agent.workload.DockerRuntime;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Reason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpux agent}: runs the {@link OwnerAgent} on this machine until Ctrl-C (or SIGTERM, or {@code --run-for}),
 * which stops it gracefully; a second Ctrl-C stops it at once.
 */
@Command(name = "agent", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs the owner agent: discovers the GPUs with nvidia-smi, registers the machine, heartbeats with "
        + "GPU telemetry, keeps an ask of the free GPUs on the book, and reclaims the machine while --reclaim-file "
        + "exists. Needs an OWNER or MARKET_MAKER key. Runs until Ctrl-C.",
        "Stopping: Ctrl-C, SIGTERM or the end of --run-for stops gracefully: the machine's asks are cancelled with "
            + "reclaim (renters get OWNER_RECLAIM notices with the market's full grace; a reclaim already running keeps "
            + "its notices) and the agent keeps heartbeating until the last lease has ended, at most the grace plus "
            + "--stop-margin, retrying while the exchange cannot be reached. A second Ctrl-C stops at once: the "
            + "leases then end MACHINE_OFFLINE, without notice, when the exchange's heartbeat timeout passes "
            + "(15 s by default).",
        "Exit status: 0 stopped (no lease left behind), 1 the exchange refused the machine, 2 bad usage, "
            + "3 connection or login failure, 4 stopped leaving leases to end MACHINE_OFFLINE, 5 no GPU found "
            + "(nvidia-smi missing, failing or listing none)."})
public final class AgentCommand extends ClientCommand
{
    /** Exit status: stopped at once, or past the graceful stop's deadline, with leases still on the machine. */
    static final int LEASES_LEFT = 4;

    @Option(names = "--reserve", required = true, paramLabel = "PRICE", converter = Converters.Price.class,
        description = "the least to take per GPU-hour: the ask never goes below it")
    long reserve;

    @Option(names = "--price", paramLabel = "PRICE", converter = Converters.Price.class,
        description = "the asking price (with --undercut: while no other ask is on the book); default the reserve")
    long price;

    @Option(names = "--undercut", description = "each interval, ask one tick below the best ask of another account "
        + "(never under the asks of this account's other machines), never below the reserve")
    boolean undercut;

    @Option(names = "--clear-every", paramLabel = "DURATION", converter = Converters.DurationMs.class,
        description = "every DURATION, clear idle GPUs from the book: an ask with idle GPUs meets the best bid at or "
            + "above the reserve, or else comes down 20 %; a fully leased ask goes up 1 %, at most to --price "
            + "(excludes --undercut)")
    Long clearEveryMs;

    @Option(names = "--reclaim-file", paramLabel = "FILE",
        description = "while this file exists the machine is reclaimed: the ask is cancelled with reclaim "
            + "(renters get OWNER_RECLAIM notices, leases end after the grace period) and not posted again")
    Path reclaimFile;

    @Option(names = "--name", paramLabel = "NAME", description = "the machine's name (default: the host name)")
    String name;

    @Option(names = "--market", paramLabel = "SYMBOL", description = "the market (default: from the first GPU, e.g. H200-141G)")
    String market;

    @Option(names = "--region", paramLabel = "REGION", defaultValue = "", description = "the machine's region")
    String region;

    @Option(names = "--interconnect", paramLabel = "KIND", defaultValue = "", description = "the GPUs' interconnect, e.g. NVLINK")
    String interconnect;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "5s", converter = Converters.DurationMs.class,
        description = "heartbeat, telemetry and re-pricing interval (default ${DEFAULT-VALUE})")
    long intervalMs;

    @Option(names = "--nvidia-smi", paramLabel = "PATH", defaultValue = NvidiaSmi.DEFAULT_EXECUTABLE,
        description = "the nvidia-smi to run (default: ${DEFAULT-VALUE} from the PATH)")
    String nvidiaSmi;

    @Option(names = "--recorded-gpus", paramLabel = "NAME",
        description = "no GPU needed: answer GPU discovery and telemetry from nvidia-smi output recorded on a real machine "
            + "and shipped with gpux instead of running nvidia-smi: h200 (one NVIDIA H200 141 GB). To try the agent, "
            + "and for demos")
    String recordedGpus;

    @Option(names = "--nvidia-smi-timeout", paramLabel = "DURATION", defaultValue = "10s",
        converter = Converters.DurationMs.class, description = "how long one nvidia-smi run may take (default ${DEFAULT-VALUE})")
    long nvidiaSmiTimeoutMs;

    @Option(names = "--withdraw-on-exit",
        description = "on a stop at once (second Ctrl-C), cancel the ask too; a graceful stop always withdraws it")
    boolean withdrawOnExit;

    @Option(names = "--stop-margin", paramLabel = "DURATION", defaultValue = "5s", converter = Converters.DurationMs.class,
        description = "how long a graceful stop waits past the notices' grace for the leases to end (default ${DEFAULT-VALUE})")
    long stopMarginMs;

    @Option(names = "--run-for", paramLabel = "DURATION", converter = Converters.DurationMs.class,
        description = "stop after this long (default: run until Ctrl-C)")
    Long runForMs;

    @Option(names = "--runtime", paramLabel = "KIND",
        description = "run the workloads renters launch on the machine's leases: process or docker (default: none; "
            + "launches are answered FAILED \"" + AgentWorkloads.NO_RUNTIME + "\")")
    String runtime;

    @Option(names = "--state-dir", paramLabel = "DIR",
        description = "where the workloads' directories, logs, notice files and checkpoints are kept (needed with --runtime)")
    Path stateDir;

    @Option(names = "--run-as", paramLabel = "USER",
        description = "process runtime: run workloads as this unprivileged user (the agent must run as root)")
    String runAs;

    @Option(names = "--allow-checkpoint-path", paramLabel = "DIR",
        description = "a directory (absolute, e.g. shared storage) under which a job may name its own checkpoint path "
            + "(repeatable; none: such jobs fail)")
    List<Path> checkpointPaths = new ArrayList<>();

    @Option(names = "--docker", paramLabel = "PATH", defaultValue = "docker",
        description = "docker runtime: the docker executable (default ${DEFAULT-VALUE})")
    String docker;

    @Option(names = "--allow-image", paramLabel = "REF",
        description = "docker runtime: an image workloads may use, exact or a prefix ending in * (repeatable; none: no image)")
    List<String> allowedImages = new ArrayList<>();

    @Option(names = "--memory", paramLabel = "SIZE", description = "docker runtime: each container's memory limit, e.g. 64g")
    String memory;

    @Option(names = "--cpus", paramLabel = "N", description = "docker runtime: each container's CPU limit, e.g. 16")
    String cpus;

    @Option(names = "--pids-limit", paramLabel = "N", defaultValue = "0",
        description = "docker runtime: each container's process limit (default: none)")
    int pidsLimit;

    @Override
    int execute() throws Exception
    {
        if (price != 0 && price < reserve)
        {
            throw CliException.usage("--price must not be below --reserve");
        }
        if (clearEveryMs != null && undercut)
        {
            throw CliException.usage("--clear-every and --undercut exclude each other");
        }
        if (runtime != null && stateDir == null)
        {
            throw CliException.usage("--runtime needs --state-dir");
        }
        if (runtime != null && !runtime.equals("process") && !runtime.equals("docker"))
        {
            throw CliException.usage("--runtime must be process or docker, not '" + runtime + "'");
        }
        if (recordedGpus != null && !nvidiaSmi.equals(NvidiaSmi.DEFAULT_EXECUTABLE))
        {
            throw CliException.usage("--recorded-gpus and --nvidia-smi exclude each other");
        }
        if (recordedGpus != null && !NvidiaSmi.RECORDINGS.contains(recordedGpus))
        {
            throw CliException.usage("--recorded-gpus: no recording named '" + recordedGpus + "'; known: "
                + String.join(", ", NvidiaSmi.RECORDINGS));
        }
        final NvidiaSmi gpuSource = recordedGpus != null ? NvidiaSmi.recorded(recordedGpus)
            : new NvidiaSmi(nvidiaSmi, Duration.ofMillis(nvidiaSmiTimeoutMs));
        checkGpus(gpuSource);
        final OwnerAgentContext settings = new OwnerAgentContext()
            .nvidiaSmi(gpuSource)
            .machineName(name).market(market).region(region).interconnect(interconnect)
            .heartbeatInterval(Duration.ofMillis(intervalMs)).requestTimeout(timeout())
            .reservePrice(reserve).price(price).undercut(undercut)
            .clearEvery(clearEveryMs == null ? null : Duration.ofMillis(clearEveryMs)).reclaimFile(reclaimFile).withdrawOnClose(withdrawOnExit);
        final CountDownLatch stopAsked = new CountDownLatch(1);
        final AtomicInteger status = new AtomicInteger();
        try (GpuxClient client = newClient(null, ctx -> { }))
        {
            final Report report = new Report(stopAsked, status);
            settings.client(client).listener(report).stopMargin(Duration.ofMillis(stopMarginMs));
            try
            {
                settings.conclude();
            }
            catch (final IllegalArgumentException ex)
            {
                throw CliException.usage(ex.getMessage());
            }
            final java.util.function.Consumer<String> workloadLog = message -> report.line("workload", message,
                new Json().put("message", message));
            settings.workloads(new AgentWorkloads(client, workloadSettings(settings.machineName(), workloadLog),
                AgentWorkloads.DEFAULT_POLL_INTERVAL_MS, workloadLog));
            final OwnerAgent agent = new OwnerAgent(settings);
            // logged in only now that the agent listens: the launches the exchange sends at the Login (the
            // workloads of live leases, some perhaps launched while no agent ran) reach its workloads
            open(client);
            final AtomicBoolean finished = new AtomicBoolean();
            final Runnable finish = () ->
            {
                agent.close();
                if (finished.compareAndSet(false, true))
                {
                    report.line("stopped", "heartbeats " + agent.heartbeats(), new Json().put("heartbeats", agent.heartbeats()));
                }
            };
            // SIGINT and SIGTERM go to the two-stage stop; any other end of the JVM still closes the agent
            final Thread onExit = new Thread(finish, "gpux-agent-shutdown");
            Runtime.getRuntime().addShutdownHook(onExit);
            final StopSignals signals = new StopSignals(stopAsked::countDown, () -> report.stopNow(agent, status));
            try
            {
                report.again = signals.install().installed().contains("INT") ? "; Ctrl-C again to stop now" : "";
                final Json started = new Json().put("name", settings.machineName()).put("reserve", Format.price(reserve));
                if (!undercut)
                {
                    started.put("price", Format.price(settings.price()));
                }
                report.line("started", "machine " + settings.machineName() + ", reserve " + Format.price(reserve)
                    + (undercut ? ", undercut" : ", price " + Format.price(settings.price())),
                    started.put("undercut", undercut));
                agent.start();
                if (runForMs == null)
                {
                    stopAsked.await();
                }
                else if (!stopAsked.await(runForMs, TimeUnit.MILLISECONDS))
                {
                    signals.request();
                }
                if (status.get() != CliException.REJECTED)
                {
                    report.line("stopping", "withdrawing the asks of " + settings.machineName() + " with reclaim",
                        new Json().put("name", settings.machineName()));
                    agent.stop();
                    agent.awaitStopped();
                }
            }
            finally
            {
                finish.run();
                signals.close();
                try
                {
                    Runtime.getRuntime().removeShutdownHook(onExit);
                }
                catch (final IllegalStateException shuttingDown)
                {
                    // the JVM is exiting: the hook is running
                }
            }
            return status.get();
        }
    }

    /**
     * A machine without a GPU has nothing to offer: before connecting, nvidia-smi must list at least one
     * GPU, else the command ends with {@link CliException#NO_GPU} and a line saying why and what to do.
     */
    private void checkGpus(final NvidiaSmi gpuSource) throws CliException
    {
        try
        {
            gpuSource.discover();
        }
        catch (final NvidiaSmiException ex)
        {
            throw new CliException(CliException.NO_GPU, "no GPU found (" + ex.getMessage() + "): install the NVIDIA driver "
                + "so that nvidia-smi lists the GPUs (or name it with --nvidia-smi), or try the agent without a GPU with "
                + "--recorded-gpus h200");
        }
    }

    /** The workload supervisor's settings from --runtime and its options; null without --runtime. */
    private WorkloadSupervisorContext workloadSettings(final String machineName, final java.util.function.Consumer<String> log)
        throws CliException
    {
        if (runtime == null)
        {
            return null;
        }
        if (stateDir == null)
        {
            throw CliException.usage("--runtime needs --state-dir");
        }
        final WorkloadSupervisorContext context = new WorkloadSupervisorContext().stateDir(stateDir.toAbsolutePath());
        switch (runtime)
        {
            case "process" -> context.runtime(new ProcessRuntime(runAs, log));
            case "docker" -> context.runtime(new DockerRuntime(new DockerConfig(docker, machineName, allowedImages, memory,
                cpus, pidsLimit)));
            default -> throw CliException.usage("--runtime must be process or docker, not '" + runtime + "'");
        }
        for (final Path prefix : checkpointPaths)
        {
            if (!prefix.isAbsolute())
            {
                throw CliException.usage("--allow-checkpoint-path must be an absolute directory, not '" + prefix + "'");
            }
            context.allowCheckpointPath(prefix);
        }
        return context;
    }

    /** Prints what the agent reports, one line each; stops the command when the exchange refuses the machine. */
    private final class Report implements OwnerAgentListener
    {
        private final CountDownLatch stop;
        private final AtomicInteger status;
        /** What a waiting line ends with: how to stop at once, where Ctrl-C is ours. */
        volatile String again = "";

        Report(final CountDownLatch stop, final AtomicInteger status)
        {
            this.stop = stop;
            this.status = status;
        }

        void line(final String event, final String text, final Json fields)
        {
            line(event, event, text, fields);
        }

        /** One line: JSON with the event, or text with the label. */
        void line(final String event, final String label, final String text, final Json fields)
        {
            if (json)
            {
                out().println(new Json().put("type", "agent").putTime("time", System.currentTimeMillis()).put("event", event)
                    .putAll(fields));
            }
            else
            {
                out().println("agent  " + Format.time(System.currentTimeMillis()) + "  " + label + ": " + text);
            }
            out().flush();
        }

        @Override
        public void onDiscovered(final List<GpuInfo> gpus)
        {
            final GpuInfo first = gpus.get(0);
            line("discovered", gpus.size() + " x " + first.name() + " (" + first.vramGb() + " GB)",
                new Json().put("gpus", gpus.size()).put("gpu_name", first.name()).put("vram_gb", first.vramGb()));
        }

        @Override
        public void onRegistered(final long machineId, final String machineName, final String marketSymbol, final int gpus)
        {
            line("registered", "machine " + machineId + " '" + machineName + "' in " + marketSymbol + ", " + gpus + " GPUs",
                new Json().put("machine_id", machineId).put("name", machineName).put("market", marketSymbol).put("gpus", gpus));
        }

        @Override
        public void onRegisterRejected(final Reason reason, final String message)
        {
            err().println(name() + ": the exchange refused the machine: " + reason + (message.isEmpty() ? "" : " (" + message + ")"));
            err().flush();
            status.set(CliException.REJECTED);
            stop.countDown();
        }

        @Override
        public void onMachineOnline(final long machineId)
        {
            line("online", "machine " + machineId, new Json().put("machine_id", machineId));
        }

        @Override
        public void onMachineOffline(final long machineId)
        {
            line("offline", "machine " + machineId, new Json().put("machine_id", machineId));
        }

        @Override
        public void onAskPosted(final long orderId, final int gpus, final long askPrice)
        {
            line("ask", "order " + orderId + ": " + gpus + " GPUs at " + Format.price(askPrice),
                new Json().put("order_id", orderId).put("gpus", gpus).put("price", Format.price(askPrice)));
        }

        @Override
        public void onAskReplaced(final long orderId, final int openGpus, final long askPrice)
        {
            line("replaced", "order " + orderId + ": " + openGpus + " GPUs at " + Format.price(askPrice),
                new Json().put("order_id", orderId).put("gpus", openGpus).put("price", Format.price(askPrice)));
        }

        @Override
        public void onAskRejected(final long orderId, final Reason reason, final String message)
        {
            line("ask_rejected", "order " + orderId + ": " + reason + (message.isEmpty() ? "" : " (" + message + ")"),
                new Json().put("order_id", orderId).put("reason", reason.name()));
        }

        @Override
        public void onReclaimed(final long orderId)
        {
            line("reclaimed", orderId == 0 ? "no ask was open" : "order " + orderId + " cancelled with reclaim",
                new Json().putPositive("order_id", orderId));
        }

        @Override
        public void onResumed()
        {
            line("resumed", "posting the ask again", new Json());
        }

        @Override
        public void onLeaseStarted(final long leaseId, final int gpus, final long leasePrice)
        {
            line("lease_started", "lease " + leaseId + ": " + gpus + " GPUs at " + Format.price(leasePrice),
                new Json().put("lease_id", leaseId).put("gpus", gpus).put("price", Format.price(leasePrice)));
        }

        @Override
        public void onLeaseEnded(final long leaseId, final EndReason reason)
        {
            line("lease_ended", "lease " + leaseId + ": " + reason, new Json().put("lease_id", leaseId).put("reason", reason.name()));
        }

        @Override
        public void onTelemetryFailed(final NvidiaSmiException error)
        {
            line("nvidia_smi_failed", error.getMessage() + " (heartbeats go on without telemetry)",
                new Json().put("error", String.valueOf(error.getMessage())));
        }

        @Override
        public void onTelemetryRecovered()
        {
            line("nvidia_smi_recovered", "telemetry is back", new Json());
        }

        /** The second stop request: the agent stops at once; says what it costs the renters. */
        void stopNow(final OwnerAgent agent, final AtomicInteger exitStatus)
        {
            final int leases = agent.stopNow();
            if (leases > 0)
            {
                exitStatus.compareAndSet(0, LEASES_LEFT);
            }
            final String machine = agent.context().machineName();
            line("stop_now", "stopping now", leases == 0 ? "no lease on " + machine
                    : leases(leases) + " on " + machine + " will end MACHINE_OFFLINE without notice once the exchange "
                    + "misses the heartbeats (in 15 s with the default heartbeat timeout)",
                new Json().put("leases", leases).put("name", machine));
        }

        @Override
        public void onStopWaiting(final int leases, final long leftMs)
        {
            line("stop_waiting", "stopping", "waiting for " + leases(leases) + " to end after their notice (at most " + seconds(leftMs) + ")"
                + again, new Json().put("leases", leases).put("wait_ms", leftMs));
        }

        @Override
        public void onStopUnreachable(final String problem, final long leftMs)
        {
            line("stop_unreachable", "stopping", "cannot reach the exchange (" + problem + "); retrying for at most "
                + seconds(leftMs) + again, new Json().put("problem", problem).put("wait_ms", leftMs));
        }

        @Override
        public void onStopped(final int leasesLeft)
        {
            if (leasesLeft == 0)
            {
                line("stop_done", "stopping", "no lease left on the machine", new Json().put("leases", 0));
                return;
            }
            status.compareAndSet(0, LEASES_LEFT);
            line("stop_deadline", "stopping", "gave up waiting: " + leases(leasesLeft) + " will end MACHINE_OFFLINE "
                + "without notice once the exchange misses the heartbeats", new Json().put("leases", leasesLeft));
        }

        private static String leases(final int n)
        {
            return n == 1 ? "1 lease" : n + " leases";
        }

        private static String seconds(final long ms)
        {
            return (ms + 999) / 1000 + " s";
        }

        @Override
        public void onError(final String what, final String problem)
        {
            line("error", what + ": " + problem, new Json().put("what", what).put("problem", problem));
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("agent", args);
    }
}
