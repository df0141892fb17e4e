package io.gpux.core.counters;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.ConcurrentCountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The exchange's counters: allocates one Agrona {@link AtomicCounter} per figure (and per label values),
 * in the counters file of the data directory or, where nobody reads them from outside, in memory.
 *
 * <p>Allocation is thread-safe (a market's counters are made on the core thread when it first sees the
 * market); updating a counter is a plain ordered write by its one writing thread, or an atomic add where
 * several threads count the same figure. A counter's key holds its label values: for each, a length
 * (int) then its ASCII bytes.
 */
public final class ExchangeCounters implements AutoCloseable
{
    /** Enough for the system counters and a few dozen markets. */
    public static final int DEFAULT_MAX_COUNTERS = 2048;

    private final ConcurrentCountersManager manager;
    private final CountersFile file;

    private ExchangeCounters(final AtomicBuffer metadata, final AtomicBuffer values, final CountersFile file)
    {
        manager = new ConcurrentCountersManager(metadata, values, StandardCharsets.US_ASCII, new CachedEpochClock(), 0);
        this.file = file;
    }

    /** Counters in {@code <dataDir>/counters.dat}, for {@code gpux stat} and the metrics endpoint. */
    public static ExchangeCounters inFile(final Path dataDir, final long startTimeMs) throws IOException
    {
        final CountersFile file = CountersFile.create(dataDir, DEFAULT_MAX_COUNTERS, ProcessHandle.current().pid(), startTimeMs);
        return new ExchangeCounters(file.metadata(), file.values(), file);
    }

    /** Counters nobody outside this process reads (tests, benchmarks, an embedded pipeline). */
    public static ExchangeCounters inMemory()
    {
        return new ExchangeCounters(
            new UnsafeBuffer(ByteBuffer.allocateDirect(DEFAULT_MAX_COUNTERS * CountersReader.METADATA_LENGTH)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(DEFAULT_MAX_COUNTERS * CountersReader.COUNTER_LENGTH)), null);
    }

    /**
     * A new counter of a figure; {@code labelValues} in the order of the figure's label names.
     *
     * @throws IllegalArgumentException if the values do not match the figure's labels.
     * @throws IllegalStateException if the counters file is full.
     */
    public AtomicCounter newCounter(final CounterDescriptor figure, final String... labelValues)
    {
        if (labelValues.length != figure.labelCount())
        {
            throw new IllegalArgumentException(figure + " has " + figure.labelCount() + " labels, not " + labelValues.length);
        }
        final StringBuilder label = new StringBuilder(figure.metricName());
        for (int i = 0; i < labelValues.length; i++)
        {
            label.append(i == 0 ? "{" : ",").append(figure.labelName(i)).append('=').append(labelValues[i]);
        }
        if (labelValues.length > 0)
        {
            label.append('}');
        }
        return manager.newCounter(label.toString(), figure.typeId(), key ->
        {
            int at = 0;
            for (final String value : labelValues)
            {
                final byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
                if (at + Integer.BYTES + bytes.length > CountersReader.MAX_KEY_LENGTH)
                {
                    throw new IllegalArgumentException("label values too long for a counter key: " + String.join(",", labelValues));
                }
                key.putInt(at, bytes.length);
                key.putBytes(at + Integer.BYTES, bytes);
                at += Integer.BYTES + bytes.length;
            }
        });
    }

    /** Reads every counter (in this process; another process opens the {@link CountersFile}). */
    public CountersReader reader()
    {
        return manager;
    }

    /** The label values held in a counter's key, in the order of its figure's label names. */
    public static String[] labelValues(final CounterDescriptor figure, final DirectBuffer key)
    {
        final String[] values = new String[figure.labelCount()];
        int at = 0;
        for (int i = 0; i < values.length; i++)
        {
            final int length = key.getInt(at);
            if (length < 0 || at + Integer.BYTES + length > CountersReader.MAX_KEY_LENGTH)
            {
                values[i] = "";
                continue;
            }
            values[i] = key.getStringWithoutLengthAscii(at + Integer.BYTES, length);
            at += Integer.BYTES + length;
        }
        return values;
    }

    /** Unmaps the counters file, if any; the file stays for {@code gpux stat} to show the last figures. */
    @Override
    public void close()
    {
        if (file != null)
        {
            file.close();
        }
    }
}
