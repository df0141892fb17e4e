package io.gpux.core.counters;

import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.List;

/**
 * One counter as read: its figure, its label values and its value (off the hot path: for
 * {@code gpux stat}, the metrics endpoint and tests).
 *
 * @param counterId the Agrona counter id.
 * @param figure what it counts.
 * @param labelValues its label values, in the order of the figure's label names.
 * @param label the counter's label as stored (its metric name and labels).
 * @param value its value when read.
 */
public record CounterValue(int counterId, CounterDescriptor figure, String[] labelValues, String label, long value)
{
    /** Every gpux counter allocated in {@code reader}, in counter id order (counters of other types are left out). */
    public static List<CounterValue> readAll(final CountersReader reader)
    {
        final List<CounterValue> all = new ArrayList<>();
        reader.forEach((counterId, typeId, key, label) ->
        {
            final CounterDescriptor figure = CounterDescriptor.forTypeId(typeId);
            if (figure != null)
            {
                all.add(new CounterValue(counterId, figure, ExchangeCounters.labelValues(figure, key), label,
                    reader.getCounterValue(counterId)));
            }
        });
        return all;
    }

    /** The value of the counter of {@code figure} with these label values in {@code values}, or -1 if there is none. */
    public static long find(final List<CounterValue> values, final CounterDescriptor figure, final String... labelValues)
    {
        for (final CounterValue v : values)
        {
            if (v.figure == figure && java.util.Arrays.equals(v.labelValues, labelValues))
            {
                return v.value;
            }
        }
        return -1;
    }

    /** The sum of every counter of {@code figure}. */
    public static long sum(final List<CounterValue> values, final CounterDescriptor figure)
    {
        long sum = 0;
        for (final CounterValue v : values)
        {
            if (v.figure == figure)
            {
                sum += v.value;
            }
        }
        return sum;
    }
}
