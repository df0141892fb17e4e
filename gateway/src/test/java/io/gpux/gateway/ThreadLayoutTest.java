package io.gpux.gateway;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The thread layout a server gets: named, or chosen by the machine's CPUs. */
class ThreadLayoutTest
{
    @Test
    void autoGivesTheCoreAndTheEgressThreadsOfTheirOwnFromFourCpus()
    {
        assertTrue(GatewayConfiguration.sharedLoop("auto", 1));
        assertTrue(GatewayConfiguration.sharedLoop("auto", 2));
        assertTrue(GatewayConfiguration.sharedLoop("auto", 3));
        assertFalse(GatewayConfiguration.sharedLoop("auto", 4));
        assertFalse(GatewayConfiguration.sharedLoop("AUTO", 16));
        assertEquals("auto", GatewayConfiguration.THREADS_DEFAULT);
    }

    @Test
    void aNamedLayoutHoldsWhateverTheCpus()
    {
        assertTrue(GatewayConfiguration.sharedLoop("shared", 16));
        assertTrue(GatewayConfiguration.sharedLoop("SHARED", 16));
        assertFalse(GatewayConfiguration.sharedLoop("dedicated", 1));
        assertFalse(GatewayConfiguration.sharedLoop("DEDICATED", 2));
    }

    @Test
    void theServerTakesTheLayoutFromItsOption()
    {
        final ServerMain main = new ServerMain();
        assertEquals(ServerMain.Threads.AUTO, main.threads);
        new CommandLine(main).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("--data", "unused", "--threads", "dedicated");
        assertEquals(ServerMain.Threads.DEDICATED, main.threads);
        new CommandLine(main).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("--data", "unused", "--threads", "SHARED");
        assertEquals(ServerMain.Threads.SHARED, main.threads);
    }
}
