package io.gpux.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The workload lane's jobs against its wind-down: a job whose start is under way when the lane closes (the previous
 * job ended just before the wind-down, as many do when the clients resume after a restart of the exchange) is the
 * one the closer gets, to cancel it and wait for its leases; no job starts after the close.
 */
class JobChainTest
{
    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void aJobStartingWhileTheLaneClosesIsTheOneTheCloserGets() throws Exception
    {
        final JobChain<String> chain = new JobChain<>();
        assertTrue(chain.start(() -> "job-1"));
        final CountDownLatch starting = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);
        final Thread lane = new Thread(() ->
        {
            try
            {
                chain.start(() ->
                {
                    // the next job is being built (its job file, its directories, its first bid) ...
                    starting.countDown();
                    proceed.await();
                    return "job-2";
                });
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
        }, "lane");
        lane.start();
        starting.await();
        // ... when the wind-down closes the chain
        final FutureTask<String> closed = new FutureTask<>(chain::close);
        final Thread closer = new Thread(closed, "closer");
        closer.start();
        awaitBlockedInClose(closer);
        assertFalse(closed.isDone(), "the close waits for the job being started");
        proceed.countDown();
        assertEquals("job-2", closed.get(5, TimeUnit.SECONDS), "the closer gets the job that was starting, not the ended one");
        lane.join(5_000);
        assertEquals("job-2", chain.current());

        final AtomicInteger built = new AtomicInteger();
        assertFalse(chain.start(() -> "job-" + (3 + built.getAndIncrement())), "no job starts after the close");
        assertEquals(0, built.get(), "nor is one built");
        assertEquals("job-2", chain.current());
    }

    @Test
    void aChainClosedBeforeItsFirstJobStartsNone() throws Exception
    {
        final JobChain<String> chain = new JobChain<>();
        assertNull(chain.close());
        assertFalse(chain.start(() -> "job-1"));
        assertNull(chain.current());
    }

    /**
     * Waits until the closer is blocked in {@link JobChain#close} on the chain's lock (the positive marker of the
     * wait); only that thread is looked at, since other test classes' demos run job chains of their own beside it.
     */
    private static void awaitBlockedInClose(final Thread closer) throws InterruptedException
    {
        while (!(closer.getState() == Thread.State.BLOCKED && blockedInClose(closer)))
        {
            Thread.sleep(1);
        }
    }

    private static boolean blockedInClose(final Thread t)
    {
        for (final StackTraceElement e : t.getStackTrace())
        {
            if (e.getClassName().equals(JobChain.class.getName()) && e.getMethodName().equals("close"))
            {
                return true;
            }
        }
        return false;
    }
}
