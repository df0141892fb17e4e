package io.gpux.client.agent.workload;

import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Waits for a positive marker from a real process, polling; fails with the description after a bound. */
final class Await
{
    private static final long TIMEOUT_MS = 10_000;

    private Await()
    {
    }

    static void until(final String what, final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("not within " + TIMEOUT_MS + " ms: " + what);
            }
            Thread.sleep(10);
        }
    }
}
