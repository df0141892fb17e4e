package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ReconnectBackoffTest
{
    @Test
    void doublesUpToTheMaximumWithJitterAndResets()
    {
        final ReconnectBackoff backoff = new ReconnectBackoff(100, 1000);
        final long[] ceilings = {100, 200, 400, 800, 1000, 1000, 1000};
        for (int round = 0; round < 50; round++)
        {
            for (final long ceiling : ceilings)
            {
                final long delay = backoff.nextDelayMs();
                assertTrue(delay >= ceiling / 2 && delay <= ceiling, delay + " not in [" + ceiling / 2 + ", " + ceiling + "]");
            }
            backoff.reset();
        }
    }

    @Test
    void refusesNonsense()
    {
        assertThrows(IllegalArgumentException.class, () -> new ReconnectBackoff(0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ReconnectBackoff(100, 10));
    }
}
