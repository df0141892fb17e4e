package io.gpux.sim;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import static org.junit.jupiter.api.Assertions.assertEquals;

class OneLineFailuresTest
{
    @Command(name = "failing")
    static final class Failing implements Callable<Integer>
    {
        private final Exception failure;

        Failing(final Exception failure)
        {
            this.failure = failure;
        }

        @Override
        public Integer call() throws Exception
        {
            throw failure;
        }
    }

    private static String run(final Exception failure, final int[] status)
    {
        final StringWriter err = new StringWriter();
        final CommandLine cmd = OneLineFailures.commandLine(new Failing(failure), "gpux demo");
        cmd.setErr(new PrintWriter(err, true));
        status[0] = cmd.execute();
        return err.toString();
    }

    @Test
    void aFailureIsOneLineWithTheCommandsNameAndExitStatusOne()
    {
        final int[] status = {0};
        final String said = run(new IllegalStateException("no LoginAccepted within 15000 ms\nsecond line"), status);
        assertEquals("gpux demo: no LoginAccepted within 15000 ms" + System.lineSeparator(), said);
        assertEquals(1, status[0]);
    }

    @Test
    void aFailureWithoutAMessageSaysItsCausesOrItsKind()
    {
        final int[] status = {0};
        assertEquals("gpux demo: the exchange's port was taken" + System.lineSeparator(),
            run(new RuntimeException(null, new java.io.IOException("the exchange's port was taken")), status));
        assertEquals("gpux demo: NullPointerException" + System.lineSeparator(), run(new NullPointerException(), status));
        assertEquals(1, status[0]);
    }
}
