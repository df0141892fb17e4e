package io.gpux.core.counters;

import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The counters file: what the server writes, a second mapping reads; no file and a foreign file read as one-line reasons. */
class CountersFileTest
{
    @TempDir
    Path dir;

    @Test
    void aSecondMappingSeesTheCountersTheirLabelsAndTheirValues() throws IOException
    {
        try (ExchangeCounters counters = ExchangeCounters.inFile(dir, 1234L))
        {
            final AtomicCounter commands = counters.newCounter(CounterDescriptor.COMMANDS);
            final AtomicCounter notices = counters.newCounter(CounterDescriptor.MARKET_NOTICES, "H100-SXM", "OUTBID");
            commands.incrementRelease();
            commands.incrementRelease();
            notices.setRelease(7);
            try (CountersFile file = CountersFile.open(dir))
            {
                assertEquals(1234L, file.startTimeMs());
                assertEquals(ProcessHandle.current().pid(), file.pid());
                final List<CounterValue> values = CounterValue.readAll(new CountersReader(file.metadata(), file.values()));
                assertEquals(2, values.size());
                assertEquals(2, CounterValue.find(values, CounterDescriptor.COMMANDS));
                assertEquals(7, CounterValue.find(values, CounterDescriptor.MARKET_NOTICES, "H100-SXM", "OUTBID"));
                assertArrayEquals(new String[] {"H100-SXM", "OUTBID"}, values.get(1).labelValues());
                assertEquals("gpux_market_notices{market=H100-SXM,reason=OUTBID}", values.get(1).label());
                commands.incrementRelease();
                assertEquals(3, CounterValue.find(CounterValue.readAll(new CountersReader(file.metadata(), file.values())),
                    CounterDescriptor.COMMANDS), "a live value, not a copy");
            }
        }
    }

    @Test
    void labelsMustMatchTheFigure() throws IOException
    {
        try (ExchangeCounters counters = ExchangeCounters.inMemory())
        {
            assertThrows(IllegalArgumentException.class, () -> counters.newCounter(CounterDescriptor.ENGINE_REJECTS));
            assertThrows(IllegalArgumentException.class, () -> counters.newCounter(CounterDescriptor.COMMANDS, "x"));
        }
    }

    @Test
    void noFileOrAForeignFileIsAOneLineReason() throws IOException
    {
        final IOException none = assertThrows(IOException.class, () -> CountersFile.open(dir));
        assertTrue(none.getMessage().contains("no server has started there"), none.getMessage());
        Files.write(dir.resolve(CountersFile.FILE_NAME), new byte[4096]);
        final IOException foreign = assertThrows(IOException.class, () -> CountersFile.open(dir));
        assertTrue(foreign.getMessage().contains("is not a gpux counters file"), foreign.getMessage());
    }

    @Test
    void everyFigureHasItsOwnTypeId()
    {
        for (final CounterDescriptor d : CounterDescriptor.values())
        {
            assertEquals(d, CounterDescriptor.forTypeId(d.typeId()));
        }
    }
}
