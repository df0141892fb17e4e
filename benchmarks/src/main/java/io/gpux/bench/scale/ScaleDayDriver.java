package io.gpux.bench.scale;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.NoticeReason;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.gateway.egress.WorkProbe;
import org.HdrHistogram.Histogram;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@link ScaleDay}'s driver of a polled pipeline: publishes, polls (each poll one engine batch, timed by the wall clock
 * and by the thread's CPU time, so that the work a batch caused is told from the scheduler's delays) and follows the
 * events: leases, asks to post again. Everything runs on the benchmark's one thread, the events inside its polls.
 */
final class ScaleDayDriver
{
    private final int batch;
    ExchangePipeline pipeline;
    final Histogram batchNs = new Histogram(60_000_000_000L, 3);
    /** The same batches' CPU time: what the engine thread ran of each, whatever the scheduler did meanwhile. */
    final Histogram batchCpuNs = new Histogram(60_000_000_000L, 3);
    /** Each portfolio query's own time on the engine thread (the batch that runs it is in batchNs too). */
    final Histogram queryNs = new Histogram(60_000_000_000L, 3);
    /** The same queries' CPU time on the engine thread. */
    final Histogram queryCpuNs = new Histogram(60_000_000_000L, 3);
    /** Which batch and which query (counting from 1) took the most CPU time. */
    long batchCpuMaxAt;
    long queryCpuMaxAt;
    private final io.gpux.gateway.directory.Directory directory = new io.gpux.gateway.directory.Directory();

    ScaleDayDriver(final int batch)
    {
        this.batch = batch;
        // as the gateway does when the exchange starts: the first query loads no class on the engine thread
        io.gpux.gateway.egress.PortfolioView.load();
    }

    /** A portfolio query as the gateway's: the account's orders, leases and machines copied on the engine thread. */
    void portfolioQuery(final long accountId)
    {
        final io.gpux.core.pipeline.Query query = engine ->
        {
            final long t = System.nanoTime();
            final long cpu = WorkProbe.Timer.threadCpuNs();
            io.gpux.gateway.egress.PortfolioView.copy(engine.account(accountId), engine.lastCommandTime(), directory,
                Map.of());
            final long used = WorkProbe.Timer.threadCpuNs() - cpu;
            if (used > queryCpuNs.getMaxValue())
            {
                queryCpuMaxAt = queryCpuNs.getTotalCount() + 1;
            }
            queryCpuNs.recordValue(used);
            queryNs.recordValue(System.nanoTime() - t);
        };
        while (!pipeline.tryPublishQuery(query))
        {
            if (pipeline.failed())
            {
                throw new IllegalStateException("the pipeline failed: " + pipeline.failureReason());
            }
            poll();
        }
    }
    final Map<Long, Long> askOfMachine = new HashMap<>();
    final Map<Long, Long> machineOfAsk = new HashMap<>();
    /** lease id to {machine, gpus} */
    final Map<Long, long[]> leases = new HashMap<>();
    final List<long[]> startedNow = new ArrayList<>();
    final ArrayDeque<long[]> releases = new ArrayDeque<>();
    final List<long[]> toPost = new ArrayList<>();
    long nextOrder = 1;
    long published;
    long started;
    long ended;
    long preempted;
    long reclaimed;
    long releasedCount;
    long reclaims;
    double wall;
    final java.util.TreeMap<String, Long> rejects = new java.util.TreeMap<>();

    void publish(final Command c)
    {
        while (!pipeline.tryPublish(c))
        {
            if (pipeline.failed())
            {
                throw new IllegalStateException("the pipeline failed: " + pipeline.failureReason());
            }
            poll();
        }
        published++;
    }

    int poll()
    {
        final long t = System.nanoTime();
        final long cpu = WorkProbe.Timer.threadCpuNs();
        final int n = pipeline.poll(batch);
        if (n > 0)
        {
            final long used = WorkProbe.Timer.threadCpuNs() - cpu;
            if (used > batchCpuNs.getMaxValue())
            {
                batchCpuMaxAt = batchCpuNs.getTotalCount() + 1;
            }
            batchCpuNs.recordValue(used);
            batchNs.recordValue(System.nanoTime() - t);
        }
        return n;
    }

    void drain()
    {
        while (poll() > 0)
        {
            // applied
        }
        if (pipeline.failed())
        {
            throw new IllegalStateException("the pipeline failed: " + pipeline.failureReason());
        }
    }

    void ask(final long machine, final int gpus, final long price)
    {
        final Command c = ScaleDay.command(CommandType.ASK);
        c.orderId = nextOrder++;
        c.accountId = ScaleDay.ownerOf(machine);
        c.machineId = machine;
        c.gpus = gpus;
        c.price = price;
        askOfMachine.put(machine, c.orderId);
        machineOfAsk.put(c.orderId, machine);
        publish(c);
    }

    /** On the polling thread, inside a batch: only notes what to do next. */
    void onEvent(final Event e)
    {
        switch (e.type)
        {
            case LEASE_STARTED ->
            {
                started++;
                leases.put(e.leaseId, new long[] {e.machineId, e.gpus});
                startedNow.add(new long[] {e.leaseId, e.renterId});
            }
            case LEASE_ENDED ->
            {
                ended++;
                if (e.endReason == EndReason.RELEASED)
                {
                    releasedCount++;
                }
                final long[] l = leases.remove(e.leaseId);
                // GPUs come back to the open ask when a lease ends; a reclaimed ask is closed, so its
                // owner offers them again
                if (l != null && e.endReason == EndReason.OWNER_RECLAIMED)
                {
                    toPost.add(l);
                }
            }
            case PREEMPT_NOTICE ->
            {
                if (e.noticeReason == NoticeReason.OUTBID)
                {
                    preempted++;
                }
                else if (e.noticeReason == NoticeReason.OWNER_RECLAIM)
                {
                    reclaimed++;
                }
            }
            case CANCELLED ->
            {
                if (e.cancelReason == CancelReason.IOC)
                {
                    rejects.merge("BID unfilled (IOC)", 1L, Long::sum);
                }
                final Long m = machineOfAsk.remove(e.orderId);
                if (m != null && e.cancelReason == CancelReason.OWNER_RECLAIM)
                {
                    askOfMachine.remove(m);
                    if (e.remaining > 0)
                    {
                        toPost.add(new long[] {m, e.remaining});
                    }
                }
            }
            case REJECTED -> rejects.merge(e.command + " " + e.rejectReason, 1L, Long::sum);
            default ->
            {
            }
        }
    }

    void scheduleReleases(final SplittableRandom random, final long nowMs, final long maxLeaseMs)
    {
        for (final long[] s : startedNow)
        {
            if (random.nextInt(5) == 0)
            {
                releases.addLast(new long[] {nowMs + 1_000 + random.nextLong(maxLeaseMs / 2), s[0], s[1]});
            }
        }
        startedNow.clear();
        // due times arrive out of order: keep the queue sorted by due time
        if (releases.size() > 1)
        {
            final long[][] all = releases.toArray(new long[0][]);
            java.util.Arrays.sort(all, (a, b) -> Long.compare(a[0], b[0]));
            releases.clear();
            java.util.Collections.addAll(releases, all);
        }
    }

    /** The owners post the GPUs they took back as new asks. */
    void repost()
    {
        final List<long[]> posts = new ArrayList<>(toPost);
        toPost.clear();
        for (final long[] p : posts)
        {
            ask(p[0], (int)p[1], 150);
        }
    }
}
