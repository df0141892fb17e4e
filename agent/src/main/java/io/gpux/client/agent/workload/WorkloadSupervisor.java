package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;
import io.gpux.client.workload.WorkloadSpec;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochClock;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Runs each lease's workload on exactly the lease's GPUs, and never past the lease: what the owner
 * agent calls when a lease starts, is noticed, or ends.
 * <ul>
 *   <li>{@link #onLeaseStarted} assigns the lease its own GPUs and starts its workload;</li>
 *   <li>{@link #onNotice} writes the notice file the workload reads, sends it the notice signal
 *       (TERM by default) and kills it at the effective time;</li>
 *   <li>{@link #onLeaseEnded} kills it at once; either way its GPUs are free again;</li>
 *   <li>{@link #doWork} (an Agrona {@link Agent} duty cycle, or called from the agent's own loop)
 *       carries out the kills that are due and notices workloads that exited by themselves;</li>
 *   <li>{@link #recover} after a restart stops every workload left from before whose lease is not
 *       live, and takes back those whose lease is.</li>
 * </ul>
 * What it started is recorded in {@code STATE_DIR/workloads.json}, written atomically, so a crash
 * of the agent leaves nothing running that a restart does not find. Workloads outlive the agent
 * process on purpose: a restart must not cost a renter its job.
 * <p>
 * Time comes from the context's clock only. The methods are synchronized: the agent may call them
 * from its thread while an {@link org.agrona.concurrent.AgentRunner} runs {@link #doWork}.
 */
public final class WorkloadSupervisor implements Agent
{
    /** The lease end when it is not known: the workload runs until {@link #onLeaseEnded}. */
    public static final long NO_END = Long.MAX_VALUE;

    private static final int ENDED_KEPT = 256;

    private final WorkloadSupervisorContext ctx;
    private final EpochClock clock;
    private final WorkloadListener listener;
    private final GpuAssignment assignment;
    private final Map<WorkloadSpec.Runtime, WorkloadRuntime> runtimes = new EnumMap<>(WorkloadSpec.Runtime.class);
    private final StateFile stateFile;
    private final Map<Long, Lease> live = new LinkedHashMap<>();
    private final Map<Long, Lease> ended = new LinkedHashMap<>()
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(final Map.Entry<Long, Lease> eldest)
        {
            return size() > ENDED_KEPT;
        }
    };
    private long nextPollMs;

    /** One lease's workload. */
    private static final class Lease
    {
        final long leaseId;
        final int attempt;
        final List<Integer> ports;
        WorkloadRuntime runtime;
        WorkloadHandle handle;
        WorkloadStatus status = WorkloadStatus.PENDING;
        long killAtMs;

        Lease(final long leaseId, final int attempt, final List<Integer> ports, final long killAtMs)
        {
            this.leaseId = leaseId;
            this.attempt = attempt;
            this.ports = List.copyOf(ports);
            this.killAtMs = killAtMs;
        }
    }

    /**
     * @param ctx the settings; {@link WorkloadSupervisorContext#conclude()} is called here.
     */
    public WorkloadSupervisor(final WorkloadSupervisorContext ctx)
    {
        this.ctx = ctx.conclude();
        this.clock = ctx.clock();
        this.listener = ctx.listener();
        this.assignment = new GpuAssignment(ctx.gpus());
        for (final WorkloadRuntime runtime : ctx.runtimes())
        {
            runtimes.put(runtime.kind(), runtime);
        }
        this.stateFile = new StateFile(ctx.stateDir());
    }

    /** Starts a lease's workload whose end is not known; see {@link #onLeaseStarted(long, int, WorkloadSpec, int, Path, long)}. */
    public synchronized WorkloadStatus onLeaseStarted(
        final long leaseId, final int gpuCount, final WorkloadSpec spec, final int attempt, final Path checkpointDir)
    {
        return onLeaseStarted(leaseId, gpuCount, spec, attempt, checkpointDir, NO_END);
    }

    /**
     * Assigns the lease gpuCount GPUs of its own and starts its workload on them. The status goes
     * PENDING, STARTING, then RUNNING, or FAILED with the reason (too few GPUs free, no runtime of
     * that kind, an image the owner does not allow, a command that cannot start); a failed start
     * holds no GPU. A lease already running keeps its workload and this returns its status.
     *
     * @param leaseId       the lease.
     * @param gpuCount      how many GPUs it bought on this machine.
     * @param spec          what to run.
     * @param attempt       which attempt of the job this is, from 1 ({@code GPUX_ATTEMPT}).
     * @param checkpointDir the job's checkpoint directory on this machine, or null for none
     *                      ({@code GPUX_CHECKPOINT_DIR}).
     * @param endsAtMs      when the lease ends, epoch milliseconds, or {@link #NO_END}: the workload is
     *                      killed then even if {@link #onLeaseEnded} is never called.
     * @return the status after the start: RUNNING or FAILED.
     */
    public synchronized WorkloadStatus onLeaseStarted(
        final long leaseId,
        final int gpuCount,
        final WorkloadSpec spec,
        final int attempt,
        final Path checkpointDir,
        final long endsAtMs)
    {
        final Lease running = live.get(leaseId);
        if (running != null)
        {
            return running.status;
        }
        final Lease lease = new Lease(leaseId, attempt, spec.ports(), endsAtMs);
        ended.remove(leaseId);
        setStatus(lease, WorkloadStatus.PENDING);
        lease.runtime = runtimes.get(spec.runtime());
        if (lease.runtime == null)
        {
            return fail(lease, "this machine runs no " + spec.runtime().fileName() + " workloads");
        }
        final List<GpuInfo> gpus;
        try
        {
            gpus = assignment.assign(leaseId, gpuCount);
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            return fail(lease, ex.getMessage());
        }
        setStatus(lease, WorkloadStatus.STARTING);
        final Path leaseDir = ctx.stateDir().resolve("leases").resolve(Long.toString(leaseId));
        try
        {
            lease.handle = lease.runtime.start(new LaunchRequest(leaseId, attempt, gpus, spec, leaseDir, checkpointDir));
        }
        catch (final WorkloadException ex)
        {
            assignment.release(leaseId);
            return fail(lease, ex.getMessage());
        }
        live.put(leaseId, lease);
        save();
        setStatus(lease, WorkloadStatus.RUNNING);
        if (clock.time() >= lease.killAtMs)
        {
            terminate(lease);
        }
        return lease.status;
    }

    /**
     * The lease ends early at effectiveAtMs: writes the notice to the workload's
     * {@code GPUX_NOTICE_FILE} (atomically), sends it the notice signal, and kills it at
     * effectiveAtMs (at once if that has passed), freeing its GPUs. A lease with no workload here is
     * ignored.
     *
     * @param leaseId       the lease.
     * @param reason        why, in words, for the workload.
     * @param effectiveAtMs when the lease ends, epoch milliseconds.
     */
    public synchronized void onNotice(final long leaseId, final String reason, final long effectiveAtMs)
    {
        final Lease lease = live.get(leaseId);
        if (lease == null)
        {
            return;
        }
        final long now = clock.time();
        final Notice notice = new Notice(leaseId, reason, now, effectiveAtMs, Math.max(0, (effectiveAtMs - now) / 1000));
        try
        {
            AtomicFiles.write(lease.handle.leaseDir().resolve(LaunchRequest.NOTICE_DIR).resolve(LaunchRequest.NOTICE_FILE),
                stateFile.json().writeValueAsBytes(notice));
        }
        catch (final IOException ex)
        {
            listener.onMessage(leaseId, "cannot write the notice file: " + ex.getMessage());
        }
        lease.killAtMs = Math.min(lease.killAtMs, effectiveAtMs);
        save();
        final WorkloadSignal signal = ctx.noticeSignal();
        if (signal != null && lease.status.state() == WorkloadStatus.State.RUNNING && now < effectiveAtMs)
        {
            try
            {
                lease.runtime.signal(lease.handle, signal);
            }
            catch (final WorkloadException ex)
            {
                listener.onMessage(leaseId, ex.getMessage());
            }
        }
        if (now >= lease.killAtMs)
        {
            terminate(lease);
        }
    }

    /** The lease has ended: kills its workload at once and frees its GPUs; nothing if none runs here. */
    public synchronized void onLeaseEnded(final long leaseId)
    {
        final Lease lease = live.get(leaseId);
        if (lease != null)
        {
            terminate(lease);
        }
    }

    /** The lease's workload status, or null if this supervisor has not seen the lease (or forgot it long after its end). */
    public synchronized WorkloadStatus status(final long leaseId)
    {
        final Lease lease = find(leaseId);
        return lease == null ? null : lease.status;
    }

    /**
     * The last lines the workload printed, oldest first; also after its end for a process workload
     * (its log file stays in the lease directory). Empty for an unknown lease.
     *
     * @throws WorkloadException if the log cannot be read.
     */
    public synchronized List<String> logTail(final long leaseId, final int lines) throws WorkloadException
    {
        final Lease lease = find(leaseId);
        if (lease == null || lease.handle == null)
        {
            return List.of();
        }
        if (!live.containsKey(leaseId))
        {
            return LogTail.read(lease.handle.leaseDir().resolve(LaunchRequest.LOG_FILE), lines);
        }
        return lease.runtime.logTail(lease.handle, lines);
    }

    /**
     * Where the workload's declared ports are reached on this machine; empty unless it runs.
     *
     * @throws WorkloadException if the runtime cannot tell.
     */
    public synchronized List<Endpoint> endpoints(final long leaseId) throws WorkloadException
    {
        final Lease lease = live.get(leaseId);
        if (lease == null || lease.status.state() != WorkloadStatus.State.RUNNING || lease.ports.isEmpty())
        {
            return List.of();
        }
        return lease.runtime.endpoints(lease.handle, lease.ports);
    }

    /** The GPUs the lease holds now, in index order; empty once its workload is stopped. */
    public synchronized List<GpuInfo> gpusOf(final long leaseId)
    {
        return assignment.gpusOf(leaseId);
    }

    /**
     * After a start of the agent: reads the state file and the runtimes' own lists, kills every
     * workload whose lease is not in liveLeaseIds (an orphan of a crashed agent) and takes back those
     * whose lease is, with their GPUs and kill times. Call once, before the first lease starts.
     *
     * @param liveLeaseIds the leases the exchange says are live on this machine.
     * @return which leases' workloads were taken back and which were killed.
     */
    public synchronized Recovery recover(final Set<Long> liveLeaseIds)
    {
        final List<Long> adopted = new ArrayList<>();
        final List<Long> killed = new ArrayList<>();
        List<StateFile.Entry> entries = List.of();
        try
        {
            entries = stateFile.read();
        }
        catch (final IOException ex)
        {
            listener.onMessage(0, "cannot read " + stateFile.path() + ", starting from the runtimes' lists: " + ex.getMessage());
        }
        for (final StateFile.Entry entry : entries)
        {
            final WorkloadHandle handle = entry.handle();
            final WorkloadRuntime runtime = runtimeNamed(handle.runtime());
            if (runtime == null)
            {
                listener.onMessage(handle.leaseId(), "no " + handle.runtime() + " runtime to stop this workload with");
                continue;
            }
            if (liveLeaseIds.contains(handle.leaseId()) && adopt(entry, runtime))
            {
                adopted.add(handle.leaseId());
            }
            else if (killOrphan(runtime, handle))
            {
                killed.add(handle.leaseId());
            }
        }
        for (final WorkloadRuntime runtime : runtimes.values())
        {
            try
            {
                for (final WorkloadHandle handle : runtime.listRunning())
                {
                    if (!live.containsKey(handle.leaseId()) && !killed.contains(handle.leaseId()) && killOrphan(runtime, handle))
                    {
                        killed.add(handle.leaseId());
                    }
                }
            }
            catch (final WorkloadException ex)
            {
                listener.onMessage(0, ex.getMessage());
            }
        }
        save();
        return new Recovery(adopted, killed);
    }

    /**
     * What {@link #recover} did.
     *
     * @param adopted the leases whose workloads were taken back.
     * @param killed  the leases whose workloads were killed as orphans.
     */
    public record Recovery(List<Long> adopted, List<Long> killed)
    {
    }

    /**
     * Kills the workloads whose time is up and notices those that exited by themselves.
     *
     * @return how many workloads changed state.
     */
    @Override
    public synchronized int doWork()
    {
        final long now = clock.time();
        int work = 0;
        for (final Lease lease : new ArrayList<>(live.values()))
        {
            if (now >= lease.killAtMs)
            {
                terminate(lease);
                work++;
            }
        }
        if (now >= nextPollMs)
        {
            nextPollMs = now + ctx.pollIntervalMs();
            for (final Lease lease : live.values())
            {
                if (lease.status.state() == WorkloadStatus.State.RUNNING && pollExit(lease))
                {
                    work++;
                }
            }
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "workload-supervisor";
    }

    private boolean pollExit(final Lease lease)
    {
        try
        {
            final OptionalInt exit = lease.runtime.exitCode(lease.handle);
            if (exit.isPresent())
            {
                setStatus(lease, WorkloadStatus.exited(exit.getAsInt()));
                return true;
            }
        }
        catch (final WorkloadException ex)
        {
            listener.onMessage(lease.leaseId, ex.getMessage());
        }
        return false;
    }

    private boolean adopt(final StateFile.Entry entry, final WorkloadRuntime runtime)
    {
        final WorkloadHandle handle = entry.handle();
        try
        {
            assignment.adopt(handle.leaseId(), handle.gpus());
        }
        catch (final IllegalStateException ex)
        {
            listener.onMessage(handle.leaseId(), ex.getMessage());
            return false;
        }
        final Lease lease = new Lease(handle.leaseId(), entry.attempt(), entry.ports(), entry.killAtMs());
        lease.runtime = runtime;
        lease.handle = handle;
        live.put(handle.leaseId(), lease);
        setStatus(lease, WorkloadStatus.RUNNING);
        pollExit(lease);
        listener.onMessage(handle.leaseId(), "took back the workload of live lease " + handle.leaseId());
        return true;
    }

    private boolean killOrphan(final WorkloadRuntime runtime, final WorkloadHandle handle)
    {
        try
        {
            runtime.kill(handle);
            listener.onMessage(handle.leaseId(), "killed the workload of lease " + handle.leaseId()
                + ", which is not live: left from before the agent's restart");
            return true;
        }
        catch (final WorkloadException ex)
        {
            listener.onMessage(handle.leaseId(), "cannot kill the orphaned workload of lease " + handle.leaseId() + ": "
                + ex.getMessage());
            return false;
        }
    }

    private void terminate(final Lease lease)
    {
        if (lease.status.state() == WorkloadStatus.State.RUNNING)
        {
            pollExit(lease);
        }
        try
        {
            lease.runtime.kill(lease.handle);
        }
        catch (final WorkloadException ex)
        {
            // keep the GPUs held and the entry recorded: the next duty cycle tries again
            listener.onMessage(lease.leaseId, ex.getMessage());
            lease.killAtMs = Math.min(lease.killAtMs, clock.time());
            return;
        }
        live.remove(lease.leaseId);
        assignment.release(lease.leaseId);
        ended.put(lease.leaseId, lease);
        save();
        if (lease.status.state() != WorkloadStatus.State.EXITED)
        {
            setStatus(lease, WorkloadStatus.STOPPED);
        }
    }

    private WorkloadStatus fail(final Lease lease, final String reason)
    {
        ended.put(lease.leaseId, lease);
        setStatus(lease, WorkloadStatus.failed(reason));
        return lease.status;
    }

    private void setStatus(final Lease lease, final WorkloadStatus status)
    {
        lease.status = status;
        listener.onStatus(lease.leaseId, status);
    }

    private Lease find(final long leaseId)
    {
        final Lease lease = live.get(leaseId);
        return lease != null ? lease : ended.get(leaseId);
    }

    private WorkloadRuntime runtimeNamed(final String name)
    {
        for (final WorkloadRuntime runtime : runtimes.values())
        {
            if (runtime.kind().fileName().equals(name))
            {
                return runtime;
            }
        }
        return null;
    }

    private void save()
    {
        final List<StateFile.Entry> entries = new ArrayList<>(live.size());
        for (final Lease lease : live.values())
        {
            entries.add(new StateFile.Entry(lease.handle, lease.attempt, lease.ports, lease.killAtMs));
        }
        try
        {
            stateFile.write(entries);
        }
        catch (final IOException ex)
        {
            listener.onMessage(0, "cannot write " + stateFile.path() + ": " + ex.getMessage());
        }
    }
}
