package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import sun.misc.Signal;

/** The two-stage stop: the first request is graceful, every later one immediate; real signals reach it while installed. */
class StopSignalsTest
{
    @Test
    void theFirstRequestIsGracefulAndEveryLaterOneImmediate()
    {
        final AtomicInteger graceful = new AtomicInteger();
        final AtomicInteger immediate = new AtomicInteger();
        final StopSignals stops = new StopSignals(graceful::incrementAndGet, immediate::incrementAndGet);
        assertEquals(1, stops.request());
        assertEquals(1, graceful.get());
        assertEquals(0, immediate.get());
        assertEquals(2, stops.request());
        assertEquals(3, stops.request());
        assertEquals(1, graceful.get());
        assertEquals(2, immediate.get());
        assertEquals(3, stops.requests());
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void aRealSigtermWhileInstalledIsAStopRequestNotTheEndOfTheJvm() throws Exception
    {
        final Semaphore graceful = new Semaphore(0);
        final Semaphore immediate = new Semaphore(0);
        try (StopSignals stops = new StopSignals(graceful::release, immediate::release).install())
        {
            // never raise a signal that is not ours: it would end the test's JVM
            assumeTrue(stops.installed().contains("TERM"), "SIGTERM could not be taken: " + stops.installed());
            Signal.raise(new Signal("TERM"));
            assertTrue(graceful.tryAcquire(10, TimeUnit.SECONDS), "the first SIGTERM stops gracefully");
            Signal.raise(new Signal("TERM"));
            assertTrue(immediate.tryAcquire(10, TimeUnit.SECONDS), "the second stops at once");
            assertEquals(2, stops.requests());
        }
    }
}
