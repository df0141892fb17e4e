package io.gpux.client.agent;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.client.agent.workload.Endpoint;
import io.gpux.client.agent.workload.WorkloadException;
import io.gpux.client.agent.workload.WorkloadListener;
import io.gpux.client.agent.workload.WorkloadStatus;
import io.gpux.client.agent.workload.WorkloadSupervisor;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.WorkloadSpec;
import io.gpux.client.workload.WorkloadSpecs;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.LeaseState;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.WorkloadEndpoint;
import io.gpux.proto.v1.WorkloadLaunch;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadLogRequest;
import io.gpux.proto.v1.WorkloadState;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The owner agent's workloads: runs what the exchange launches on the machine's leases through a
 * {@link WorkloadSupervisor}, reports each state change back, answers the renters' log requests, and
 * stops a workload at its lease's notice and end. Everything runs on this component's own thread
 * (the client's event loop only hands work over): a start can take a while (a {@code docker run}).
 *
 * <p>Without a runtime every launch is answered FAILED "this machine runs no workloads". The
 * supervisor is made once the agent has discovered its GPUs and registered ({@link #onPortfolio});
 * launches that come before wait for it. A lease's notice reaches its workload the moment the
 * exchange's {@code PreemptNotice} does (the machine's owner gets each notice of its leases), with
 * the notice's effective time; the notices given while the agent was not running are taken from the
 * machine's leases in the portfolio it reads at its start and after every login (state PREEMPTING).
 */
public final class AgentWorkloads implements ClientListener, WorkloadListener, AutoCloseable
{
    /** The launch answer of a machine without a runtime. */
    public static final String NO_RUNTIME = "this machine runs no workloads";
    /** The notice's reason when the portfolio, not the notice itself, told of it. */
    static final String EARLY_END = "the lease ends early: it was preempted or reclaimed";
    /** How often the agent checks its workloads for their end, by default. */
    public static final long DEFAULT_POLL_INTERVAL_MS = 200;

    private final GpuxClient client;
    private final WorkloadSupervisorContext supervisorContext;
    private final Consumer<String> log;
    private final ScheduledThreadPoolExecutor thread;
    /** This thread only. */
    private WorkloadSupervisor supervisor;
    private long machineId;
    private final List<WorkloadLaunch> waiting = new ArrayList<>();
    private final Set<Long> noticed = new HashSet<>();
    /** Notices of the account's leases whose workloads have not been launched here (yet): lease to notice. */
    private final Map<Long, PendingNotice> earlyNotices = new HashMap<>();
    private final Map<Long, Long> launchedHere = new HashMap<>();

    /**
     * @param supervisorContext the supervisor's settings (state directory, runtimes, clock), or null
     *                          for a machine that runs no workloads; its GPUs and listener are this
     *                          component's to set.
     * @param pollIntervalMs    how often workloads are checked for their end.
     */
    public AgentWorkloads(final GpuxClient client, final WorkloadSupervisorContext supervisorContext,
        final long pollIntervalMs, final Consumer<String> log)
    {
        this.client = client;
        this.supervisorContext = supervisorContext;
        this.log = log;
        thread = new ScheduledThreadPoolExecutor(1, r ->
        {
            final Thread t = new Thread(r, "gpux-agent-workloads");
            t.setDaemon(true);
            return t;
        });
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        thread.scheduleWithFixedDelay(this::poll, pollIntervalMs, pollIntervalMs, TimeUnit.MILLISECONDS);
    }

    /** Whether this agent runs workloads (it was given a runtime). */
    public boolean runsWorkloads()
    {
        return supervisorContext != null;
    }

    // ---- from the owner agent's thread

    /**
     * The agent's portfolio, read at its start and after every login: the first makes the supervisor
     * (adopting the workloads of live leases an earlier run left, killing the others); each hands the
     * notices of the machine's leases to their workloads (those not already told by the notice itself).
     */
    void onPortfolio(final long machine, final List<GpuInfo> gpus, final Portfolio portfolio)
    {
        final Map<Long, Long> notices = new HashMap<>();
        final Set<Long> live = new HashSet<>();
        for (final LeaseInfo lease : portfolio.getLeasesList())
        {
            if (!lease.getRenter() && lease.getMachineId() == machine)
            {
                live.add(lease.getLeaseId());
                if (lease.getState() == LeaseState.PREEMPTING)
                {
                    notices.put(lease.getLeaseId(), lease.getNoticeEffectiveMs());
                }
            }
        }
        run(() ->
        {
            machineId = machine;
            if (supervisor == null && supervisorContext != null)
            {
                supervisor = new WorkloadSupervisor(supervisorContext.gpus(gpus).listener(this));
                final WorkloadSupervisor.Recovery recovery = supervisor.recover(live);
                if (!recovery.adopted().isEmpty() || !recovery.killed().isEmpty())
                {
                    log.accept("workloads: adopted " + recovery.adopted() + ", killed " + recovery.killed());
                }
                // an adopted workload is this agent's to stop at its lease's end, and the exchange hears how it
                // is now (it may have exited while no agent ran), whether or not its launch comes again
                for (final long leaseId : recovery.adopted())
                {
                    launchedHere.put(leaseId, machine);
                    report(leaseId, supervisor.status(leaseId));
                }
            }
            for (final WorkloadLaunch launch : waiting)
            {
                launch(launch);
            }
            waiting.clear();
            notices.forEach((leaseId, effectiveMs) ->
            {
                if (supervisor != null && noticed.add(leaseId))
                {
                    supervisor.onNotice(leaseId, EARLY_END, effectiveMs);
                }
            });
        });
    }

    // ---- from the client's event loop

    @Override
    public void onWorkloadLaunch(final WorkloadLaunch launch)
    {
        run(() ->
        {
            if (machineId == 0 || (supervisorContext != null && supervisor == null))
            {
                waiting.add(launch);
            }
            else
            {
                launch(launch);
            }
        });
    }

    @Override
    public void onWorkloadLogRequest(final long requestId, final WorkloadLogRequest request)
    {
        run(() ->
        {
            if (!launchedHere.containsKey(request.getLeaseId()))
            {
                return; // another agent of the account runs it
            }
            final WorkloadLog.Builder answer = WorkloadLog.newBuilder().setLeaseId(request.getLeaseId());
            try
            {
                answer.addAllLines(supervisor.logTail(request.getLeaseId(), request.getLines()));
            }
            catch (final WorkloadException | RuntimeException ex)
            {
                answer.setProblem(String.valueOf(ex.getMessage()));
            }
            try
            {
                client.answerLogRequest(requestId, answer.build());
            }
            catch (final IllegalStateException | IllegalArgumentException ex)
            {
                log.accept("workloads: the log of lease " + request.getLeaseId() + " could not be sent: " + ex.getMessage());
            }
        });
    }

    /**
     * A lease of the account ends early (the exchange tells the machine's owner as it tells the renter):
     * a workload running here gets its notice at once; one whose launch is still to come gets it then.
     */
    @Override
    public void onPreemptNotice(final long leaseId, final long effectiveAtMs, final NoticeReason reason)
    {
        run(() ->
        {
            if (launchedHere.containsKey(leaseId))
            {
                notice(leaseId, reason(reason), effectiveAtMs);
            }
            else
            {
                earlyNotices.putIfAbsent(leaseId, new PendingNotice(reason(reason), effectiveAtMs));
            }
        });
    }

    @Override
    public void onLeaseEnded(final AccountEvent event, final LeaseEnded ended)
    {
        run(() ->
        {
            if (supervisor != null && launchedHere.remove(ended.getLeaseId()) != null)
            {
                supervisor.onLeaseEnded(ended.getLeaseId());
            }
            noticed.remove(ended.getLeaseId());
            earlyNotices.remove(ended.getLeaseId());
        });
    }

    // ---- this component's thread

    private void launch(final WorkloadLaunch launch)
    {
        if (launch.getMachineId() != machineId)
        {
            return;
        }
        final long leaseId = launch.getLeaseId();
        launchedHere.put(leaseId, launch.getMachineId());
        if (supervisor == null)
        {
            report(leaseId, WorkloadStatus.failed(NO_RUNTIME));
            return;
        }
        final WorkloadSpec spec;
        try
        {
            spec = WorkloadSpecs.fromProto(launch.getSpec());
        }
        catch (final IllegalArgumentException ex)
        {
            report(leaseId, WorkloadStatus.failed(ex.getMessage()));
            return;
        }
        Path checkpoint = null;
        if (!launch.getSpec().getCheckpointDir().isEmpty())
        {
            checkpoint = checkpointDir(launch.getSpec().getCheckpointDir());
            if (checkpoint == null)
            {
                report(leaseId, WorkloadStatus.failed(checkpointRefusal(launch.getSpec().getCheckpointDir())));
                return;
            }
            try
            {
                Files.createDirectories(checkpoint);
            }
            catch (final IOException ex)
            {
                report(leaseId, WorkloadStatus.failed("cannot make the checkpoint directory: " + ex.getMessage()));
                return;
            }
        }
        final boolean seenBefore = supervisor.status(leaseId) != null;
        final WorkloadStatus status = supervisor.onLeaseStarted(leaseId, launch.getGpus(), spec,
            Math.max(1, launch.getSpec().getAttempt()), checkpoint);
        if (seenBefore)
        {
            // a launch sent again (a new session) finds the workload running: say so, the exchange may have missed it;
            // a first start has reported each of its states already
            report(leaseId, status);
        }
        final PendingNotice early = earlyNotices.remove(leaseId);
        if (early != null)
        {
            notice(leaseId, early.reason(), early.effectiveAtMs());
        }
    }

    /** Gives a workload of this machine its lease's notice, once. */
    private void notice(final long leaseId, final String reason, final long effectiveAtMs)
    {
        if (supervisor != null && noticed.add(leaseId))
        {
            supervisor.onNotice(leaseId, reason, effectiveAtMs);
        }
    }

    /** The notice's reason, as the workload reads it in its notice file. */
    static String reason(final NoticeReason reason)
    {
        return switch (reason)
        {
            case OUTBID -> "a higher bid preempted the lease";
            case NOTICE_OWNER_RECLAIM -> "the owner reclaims the machine";
            case NOTICE_INSUFFICIENT_FUNDS -> "the renter's funds run out";
            default -> EARLY_END;
        };
    }

    /**
     * Where a launch's checkpoint is on this machine: a name is {@code STATE_DIR/checkpoints/NAME}; an
     * absolute path is itself when it lies under a prefix the owner allows; null when it is neither.
     */
    Path checkpointDir(final String wire)
    {
        if (wire.startsWith("/"))
        {
            final Path path = Path.of(wire).normalize();
            for (final Path prefix : supervisorContext.checkpointPathPrefixes())
            {
                if (path.startsWith(prefix) && !path.equals(prefix))
                {
                    return path;
                }
            }
            return null;
        }
        if (wire.contains("/") || wire.equals(".") || wire.equals(".."))
        {
            return null;
        }
        return supervisorContext.stateDir().resolve("checkpoints").resolve(wire);
    }

    String checkpointRefusal(final String wire)
    {
        if (!wire.startsWith("/"))
        {
            return "checkpoint name '" + wire + "' must be a plain name or an absolute path";
        }
        final List<Path> prefixes = supervisorContext.checkpointPathPrefixes();
        return "checkpoint path " + wire + " is not allowed on this machine ("
            + (prefixes.isEmpty() ? "it allows none" : "it allows paths under " + prefixes.stream().map(Path::toString)
            .collect(java.util.stream.Collectors.joining(", "))) + ")";
    }

    private record PendingNotice(String reason, long effectiveAtMs)
    {
    }

    private void poll()
    {
        if (supervisor != null)
        {
            supervisor.doWork();
        }
    }

    /** The supervisor's state changes (this thread: the supervisor is only called from here). */
    @Override
    public void onStatus(final long leaseId, final WorkloadStatus status)
    {
        if (status.state() != WorkloadStatus.State.PENDING)
        {
            report(leaseId, status);
        }
    }

    @Override
    public void onMessage(final long leaseId, final String message)
    {
        log.accept("lease " + leaseId + ": " + message);
    }

    private void report(final long leaseId, final WorkloadStatus status)
    {
        final io.gpux.proto.v1.WorkloadStatus.Builder s = io.gpux.proto.v1.WorkloadStatus.newBuilder().setLeaseId(leaseId)
            .setState(state(status.state())).setExitCode(status.exitCode());
        if (status.reason() != null)
        {
            s.setReason(status.reason());
        }
        if (status.state() == WorkloadStatus.State.RUNNING && supervisor != null)
        {
            try
            {
                for (final Endpoint e : supervisor.endpoints(leaseId))
                {
                    s.addEndpoints(WorkloadEndpoint.newBuilder().setPort(e.workloadPort()).setHost(e.hostAddress())
                        .setHostPort(e.hostPort()));
                }
            }
            catch (final WorkloadException ex)
            {
                log.accept("workloads: endpoints of lease " + leaseId + ": " + ex.getMessage());
            }
        }
        try
        {
            client.reportWorkloadStatus(s.build());
        }
        catch (final IllegalStateException ex)
        {
            // disconnected: the exchange sends the launch again at the next login, and this reports again then
            log.accept("workloads: lease " + leaseId + " is " + status.state() + "; not reported: " + ex.getMessage());
        }
    }

    static WorkloadState state(final WorkloadStatus.State state)
    {
        return switch (state)
        {
            case PENDING -> WorkloadState.WORKLOAD_PENDING;
            case STARTING -> WorkloadState.WORKLOAD_STARTING;
            case RUNNING -> WorkloadState.WORKLOAD_RUNNING;
            case EXITED -> WorkloadState.WORKLOAD_EXITED;
            case FAILED -> WorkloadState.WORKLOAD_FAILED;
            case STOPPED -> WorkloadState.WORKLOAD_STOPPED;
        };
    }

    private void run(final Runnable task)
    {
        try
        {
            thread.execute(() ->
            {
                try
                {
                    task.run();
                }
                catch (final RuntimeException ex)
                {
                    log.accept("workloads: " + ex);
                }
            });
        }
        catch (final RejectedExecutionException ex)
        {
            // closed
        }
    }

    /** Stops this component's thread; the workloads run on until their leases end (a next run adopts them). */
    @Override
    public void close()
    {
        thread.shutdown();
        try
        {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
