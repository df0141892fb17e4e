package io.gpux.gateway.workload;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.core.pipeline.Query;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.metrics.GatewayCounters;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.AuditedLaunch;
import io.gpux.proto.v1.AuditedStatus;
import io.gpux.proto.v1.EnvVar;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.LaunchWorkload;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SealedEnvValue;
import io.gpux.proto.v1.WorkloadAuditRecord;
import io.gpux.proto.v1.WorkloadLaunch;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadLogRequest;
import io.gpux.proto.v1.WorkloadSpec;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;
import io.gpux.proto.v1.WorkloadStatusRequest;

import org.agrona.concurrent.EpochClock;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongToIntFunction;
import java.util.function.Predicate;

/**
 * Carries workloads between a lease's renter and the agent of its machine: launches to the owner's
 * sessions, statuses to the renter's, log requests there and their answers back. Who may do what is
 * decided from the engine's lease (renter, machine owner, live or not), read by a short query on the
 * core thread; everything else (the audit journal, the state kept per lease, the relays in flight)
 * lives on this relay's own thread, so the network threads never wait on the disk and the engine
 * never waits on either.
 *
 * <p>Kept per lease: the launch (with its env values in memory only, and sealed in the journal) and
 * the latest status. The journal is replayed at start, so an agent that logs in after a restart
 * learns its launches again and a renter its statuses.
 */
public final class WorkloadRelay implements AutoCloseable
{
    /** Lines a log request asks for when it names none, and the most it may ask for. */
    public static final int DEFAULT_LOG_LINES = 100;
    public static final int MAX_LOG_LINES = 10_000;
    /** Log requests waiting for their agent's answer, across the exchange. */
    static final int MAX_LOG_RELAYS = 1024;
    /** How often the launches of leases that have ended are dropped from memory. */
    static final long FORGET_ENDED_EVERY_MS = 60_000;
    /** Relayed log requests carry request ids from here, apart from any a client picks for its own. */
    private static final long RELAY_ID_BASE = 1L << 62;

    /** What the engine says of a lease: its parties, and whether it still runs. */
    record LeaseParties(long leaseId, boolean live, long renterId, long ownerId, long machineId, int gpus)
    {
    }

    /** A launched lease: the launch, with env values in clear, and the latest status. */
    private record Launched(AuditedLaunch launch, WorkloadSpec spec, WorkloadStatus status)
    {
        Launched with(final WorkloadStatus newStatus)
        {
            return new Launched(launch, spec, newStatus);
        }
    }

    private record LogRelay(long renterSessionId, long renterRequestId, long leaseId, long ownerId,
        ScheduledFuture<?> timeout)
    {
    }

    private final Predicate<Query> queries;
    private final Egress egress;
    private GatewayCounters counters = GatewayCounters.inMemory();
    private final LongToIntFunction sessionsOfAccount;
    private final EpochClock clock;
    private final Consumer<String> log;
    private final long logTimeoutMs;
    private final EnvSealer sealer;
    private final ScheduledExecutorService thread;
    /** Relay thread only. */
    private final Map<Long, Launched> launched = new HashMap<>();
    private final Map<Long, LogRelay> logRelays = new HashMap<>();
    private final WorkloadAuditJournal journal;
    private long nextRelayId = RELAY_ID_BASE;

    /**
     * Replays the audit journal of {@code dataDir}.
     *
     * @param queries           publishes a query to the core thread; false when the ring is full.
     * @param sessionsOfAccount how many sessions an account has now.
     * @param logTimeoutMs      how long a relayed log request waits for the agent's answer.
     */
    public WorkloadRelay(final Path dataDir, final byte[] masterKey, final Predicate<Query> queries, final Egress egress,
        final LongToIntFunction sessionsOfAccount, final EpochClock clock, final long logTimeoutMs,
        final Consumer<String> log) throws IOException
    {
        this.queries = queries;
        this.egress = egress;
        this.sessionsOfAccount = sessionsOfAccount;
        this.clock = clock;
        this.logTimeoutMs = logTimeoutMs;
        this.log = log;
        this.sealer = new EnvSealer(masterKey);
        this.journal = WorkloadAuditJournal.open(dataDir, this::replay, log);
        final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r ->
        {
            final Thread t = new Thread(r, "gpux-workloads");
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
        this.thread = executor;
    }

    /**
     * Call once the engine has recovered: forgets the launches of leases that no longer run, now and
     * every minute (they are kept in the journal only).
     */
    public void onRecovered()
    {
        forgetEnded();
        thread.scheduleWithFixedDelay(this::forgetEnded, FORGET_ENDED_EVERY_MS, FORGET_ENDED_EVERY_MS, TimeUnit.MILLISECONDS);
    }

    private void forgetEnded()
    {
        queries.test(engine ->
        {
            final Set<Long> live = new HashSet<>();
            for (final Lease lease : engine.leases())
            {
                if (lease.state != Lease.ENDED)
                {
                    live.add(lease.id);
                }
            }
            onRelayThread(() -> launched.keySet().removeIf(id -> !live.contains(id)));
        });
    }

    private void replay(final WorkloadAuditRecord record)
    {
        if (record.hasLaunch())
        {
            final AuditedLaunch l = record.getLaunch();
            final WorkloadSpec.Builder spec = l.getSpec().toBuilder().clearEnv();
            for (final SealedEnvValue sealed : l.getSealedEnvList())
            {
                final String value = sealer.open(l.getLeaseId(), sealed.getName(), sealed.getSealed().toByteArray());
                if (value == null)
                {
                    log.accept("workload journal: env " + sealed.getName() + " of lease " + l.getLeaseId() +
                        " does not open with this gateway.key; the launch is kept without it");
                    continue;
                }
                spec.addEnv(EnvVar.newBuilder().setName(sealed.getName()).setValue(value));
            }
            launched.put(l.getLeaseId(), new Launched(l, spec.build(), pending(l.getLeaseId(), record.getTimeMs())));
        }
        else if (record.hasStatus())
        {
            final WorkloadStatus s = record.getStatus().getStatus();
            launched.computeIfPresent(s.getLeaseId(), (id, l) -> l.with(s));
        }
    }

    private static WorkloadStatus pending(final long leaseId, final long timeMs)
    {
        return WorkloadStatus.newBuilder().setLeaseId(leaseId).setState(WorkloadState.WORKLOAD_PENDING)
            .setTimeMs(timeMs).build();
    }

    // ---- requests, from a connection's event loop

    /** The renter launches a workload on its lease. */
    public void launch(final Session s, final long rid, final LaunchWorkload request)
    {
        final String problem = request.hasSpec() ? SpecCheck.problem(request.getSpec()) : "a launch needs a spec";
        if (problem != null)
        {
            answer(s, rid, Reason.INVALID_REQUEST, problem);
            return;
        }
        final long leaseId = request.getLeaseId();
        withLease(s, rid, leaseId, p ->
        {
            if (p.renterId() != s.accountId)
            {
                answer(s, rid, Reason.NOT_AUTHORIZED, "lease " + leaseId + " is not rented by this account");
                return;
            }
            if (launched.containsKey(leaseId))
            {
                answer(s, rid, Reason.DUPLICATE_ID, "lease " + leaseId + " already has a workload");
                return;
            }
            final long now = clock.time();
            final WorkloadSpec spec = request.getSpec().getAttempt() == 0 ?
                request.getSpec().toBuilder().setAttempt(1).build() : request.getSpec();
            final AuditedLaunch.Builder audited = AuditedLaunch.newBuilder().setLeaseId(leaseId)
                .setRenterAccountId(s.accountId).setRenterAccount(s.accountName).setOwnerAccountId(p.ownerId())
                .setMachineId(p.machineId()).setGpus(p.gpus()).setSpec(spec.toBuilder().clearEnv());
            for (final EnvVar v : spec.getEnvList())
            {
                audited.addSealedEnv(SealedEnvValue.newBuilder().setName(v.getName())
                    .setSealed(com.google.protobuf.ByteString.copyFrom(sealer.seal(leaseId, v.getName(), v.getValue()))));
            }
            final AuditedLaunch launch = audited.build();
            if (!journal(s, rid, WorkloadAuditRecord.newBuilder().setTimeMs(now).setLaunch(launch).build()))
            {
                return;
            }
            final Launched entry = new Launched(launch, spec, pending(leaseId, now));
            launched.put(leaseId, entry);
            answer(s, rid, Reason.REASON_OK, "");
            egress.put(new Egress.ToAccount(p.ownerId(), launchEnvelope(entry)));
            egress.put(new Egress.ToAccount(s.accountId, statusEnvelope(entry.status())));
        });
    }

    /** The owner's agent reports the state of a lease's workload. */
    public void status(final Session s, final long rid, final WorkloadStatus status)
    {
        final WorkloadState state = status.getState();
        if (state == WorkloadState.WORKLOAD_STATE_UNSPECIFIED || state == WorkloadState.WORKLOAD_PENDING ||
            state == WorkloadState.UNRECOGNIZED)
        {
            answer(s, rid, Reason.INVALID_REQUEST, "an agent reports STARTING, RUNNING, EXITED, FAILED or STOPPED");
            return;
        }
        final long leaseId = status.getLeaseId();
        withLease(s, rid, leaseId, p ->
        {
            if (p.ownerId() != s.accountId)
            {
                answer(s, rid, Reason.NOT_AUTHORIZED, "lease " + leaseId + " does not run on this account's machine");
                return;
            }
            final Launched entry = launched.get(leaseId);
            if (entry == null)
            {
                answer(s, rid, Reason.UNKNOWN_LEASE, "no workload was launched on lease " + leaseId);
                return;
            }
            final long now = clock.time();
            final WorkloadStatus stamped = status.toBuilder().setReason(oneLine(status.getReason())).setTimeMs(now).build();
            if (!journal(s, rid, WorkloadAuditRecord.newBuilder().setTimeMs(now).setStatus(
                AuditedStatus.newBuilder().setReporterAccountId(s.accountId).setStatus(stamped)).build()))
            {
                return;
            }
            launched.put(leaseId, entry.with(stamped));
            answer(s, rid, Reason.REASON_OK, "");
            egress.put(new Egress.ToAccount(p.renterId(), statusEnvelope(stamped)));
        });
    }

    /** The renter asks for the latest status of its workload. */
    public void statusRequest(final Session s, final long rid, final WorkloadStatusRequest request)
    {
        final long leaseId = request.getLeaseId();
        withLease(s, rid, leaseId, p ->
        {
            final Launched entry = renterLaunch(s, rid, p);
            if (entry != null)
            {
                egress.put(new Egress.Direct(s.id, statusEnvelope(entry.status()).toBuilder().setRequestId(rid).build()));
            }
        });
    }

    /** The lease's launch when the session's account rents it and it has one; else answers why not and returns null. */
    private Launched renterLaunch(final Session s, final long rid, final LeaseParties p)
    {
        if (p.renterId() != s.accountId)
        {
            answer(s, rid, Reason.NOT_AUTHORIZED, "lease " + p.leaseId() + " is not rented by this account");
            return null;
        }
        final Launched entry = launched.get(p.leaseId());
        if (entry == null)
        {
            answer(s, rid, Reason.UNKNOWN_LEASE, "no workload was launched on lease " + p.leaseId());
        }
        return entry;
    }

    /** The renter asks for the last lines of its workload's log: relayed to the owner's agent. */
    public void logRequest(final Session s, final long rid, final WorkloadLogRequest request)
    {
        if (request.getLines() > MAX_LOG_LINES)
        {
            answer(s, rid, Reason.INVALID_REQUEST, "lines must be 1 to " + MAX_LOG_LINES);
            return;
        }
        final long leaseId = request.getLeaseId();
        final int lines = request.getLines() == 0 ? DEFAULT_LOG_LINES : request.getLines();
        withLease(s, rid, leaseId, p ->
        {
            if (renterLaunch(s, rid, p) == null)
            {
                return;
            }
            if (sessionsOfAccount.applyAsInt(p.ownerId()) == 0)
            {
                answer(s, rid, Reason.UNAVAILABLE, "the agent of machine " + p.machineId() + " is not connected");
                return;
            }
            if (logRelays.size() >= MAX_LOG_RELAYS)
            {
                answer(s, rid, Reason.BUSY, "too many log requests in flight: retry");
                return;
            }
            final long relayId = nextRelayId++;
            final ScheduledFuture<?> timeout = thread.schedule(() ->
            {
                if (logRelays.remove(relayId) != null)
                {
                    answer(s, rid, Reason.UNAVAILABLE,
                        "the agent of machine " + p.machineId() + " did not answer within " + logTimeoutMs + " ms");
                }
            }, logTimeoutMs, TimeUnit.MILLISECONDS);
            logRelays.put(relayId, new LogRelay(s.id, rid, leaseId, p.ownerId(), timeout));
            egress.put(new Egress.ToAccount(p.ownerId(), Envelope.newBuilder().setRequestId(relayId)
                .setWorkloadLogRequest(WorkloadLogRequest.newBuilder().setLeaseId(leaseId).setLines(lines)).build()));
        });
    }

    /** An agent answers a relayed log request; an answer nobody waits for (late, or not its own) is dropped. */
    public void log(final Session s, final long rid, final WorkloadLog answer)
    {
        onRelayThread(() ->
        {
            final LogRelay relay = logRelays.get(rid);
            if (relay == null || relay.ownerId() != s.accountId || relay.leaseId() != answer.getLeaseId())
            {
                return;
            }
            logRelays.remove(rid);
            relay.timeout().cancel(false);
            egress.put(new Egress.Direct(relay.renterSessionId(), Envelope.newBuilder()
                .setRequestId(relay.renterRequestId()).setWorkloadLog(answer).build()));
        });
    }

    /**
     * A session logged in (its Attach is in the egress): an owner gets the launch of every live lease
     * of its machines, a renter the status of every live lease it rents that has a workload.
     */
    public void onLogin(final Session s)
    {
        final boolean published = queries.test(engine ->
        {
            final Account account = engine.account(s.accountId);
            if (account == null || (account.firstRented == null && account.firstOwned == null))
            {
                return;
            }
            final long[] rented = new long[account.rentedLeaseCount()];
            int n = 0;
            for (Lease lease = account.firstRented; lease != null; lease = lease.renterNext)
            {
                rented[n++] = lease.id;
            }
            final long[] owned = new long[account.ownedLeaseCount()];
            n = 0;
            for (Lease lease = account.firstOwned; lease != null; lease = lease.ownerNext)
            {
                owned[n++] = lease.id;
            }
            onRelayThread(() ->
            {
                for (final long id : owned)
                {
                    final Launched l = launched.get(id);
                    if (l != null)
                    {
                        egress.put(new Egress.Direct(s.id, launchEnvelope(l)));
                    }
                }
                for (final long id : rented)
                {
                    final Launched l = launched.get(id);
                    if (l != null)
                    {
                        egress.put(new Egress.Direct(s.id, statusEnvelope(l.status())));
                    }
                }
            });
        });
        if (!published)
        {
            log.accept("workloads: the exchange was busy at the login of session " + s.id +
                "; its launches and statuses come with the next change");
        }
    }

    // ---- the relay thread

    /** Reads the lease on the core thread, then continues with it here (a lease not live is refused). */
    private void withLease(final Session s, final long rid, final long leaseId, final Consumer<LeaseParties> then)
    {
        final boolean published = queries.test(engine ->
        {
            final LeaseParties p = parties(engine, leaseId);
            onRelayThread(() ->
            {
                if (!p.live())
                {
                    launched.remove(leaseId);
                    answer(s, rid, Reason.UNKNOWN_LEASE, "lease " + leaseId + " is not live");
                    return;
                }
                then.accept(p);
            });
        });
        if (!published)
        {
            answer(s, rid, Reason.BUSY, "the exchange is busy: retry");
        }
    }

    static LeaseParties parties(final MatchingEngine engine, final long leaseId)
    {
        final Lease lease = engine.lease(leaseId);
        if (lease == null || lease.state == Lease.ENDED)
        {
            return new LeaseParties(leaseId, false, 0, 0, 0, 0);
        }
        return new LeaseParties(leaseId, true, lease.renter.id, lease.machine.owner.id, lease.machine.id, lease.gpus);
    }

    private void onRelayThread(final Runnable task)
    {
        try
        {
            thread.execute(task);
        }
        catch (final RejectedExecutionException ex)
        {
            // the exchange is closing: its sessions are closing too
        }
    }

    private boolean journal(final Session s, final long rid, final WorkloadAuditRecord record)
    {
        try
        {
            journal.append(record);
            return true;
        }
        catch (final IOException ex)
        {
            log.accept("workload journal: cannot append: " + ex.getMessage());
            answer(s, rid, Reason.UNAVAILABLE, "the exchange cannot record the workload: " + ex.getMessage());
            return false;
        }
    }

    private static Envelope launchEnvelope(final Launched l)
    {
        return Envelope.newBuilder().setWorkloadLaunch(WorkloadLaunch.newBuilder().setLeaseId(l.launch().getLeaseId())
            .setMachineId(l.launch().getMachineId()).setGpus(l.launch().getGpus()).setSpec(l.spec())).build();
    }

    private static Envelope statusEnvelope(final WorkloadStatus status)
    {
        return Envelope.newBuilder().setWorkloadStatus(status).build();
    }

    /** Where the relay counts its refusals (default: counters of its own). */
    public void counters(final GatewayCounters counters)
    {
        this.counters = counters;
    }

    private void answer(final Session s, final long rid, final Reason reason, final String message)
    {
        counters.answered(reason);
        egress.put(new Egress.Direct(s.id, Envelope.newBuilder().setRequestId(rid)
            .setResponse(Response.newBuilder().setReason(reason).setMessage(message)).build()));
    }

    private static String oneLine(final String text)
    {
        final String line = text.replaceAll("[\\r\\n]+", " ").strip();
        return line.length() <= 500 ? line : line.substring(0, 500);
    }

    @Override
    public void close()
    {
        thread.shutdown();
        try
        {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS))
            {
                thread.shutdownNow();
            }
            journal.close();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final IOException ex)
        {
            log.accept("workload journal: close failed: " + ex.getMessage());
        }
    }
}
