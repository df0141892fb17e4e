package io.gpux.gateway.metrics;

import io.gpux.core.counters.CounterDescriptor;
import io.gpux.core.counters.CounterValue;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The exchange's counters as Prometheus metrics, read from the counters at each scrape: one metric
 * family per {@link CounterDescriptor}, one sample per counter, its key's label values as labels; and
 * the figures worked out from two counters ({@link Figures}).
 */
public final class CountersCollector implements MultiCollector
{
    static final String SNAPSHOT_AGE = "gpux_snapshot_age_ms";
    static final String EGRESS_BACKLOG = "gpux_egress_backlog_events";

    private final CountersReader reader;
    private final EpochClock wallClock;

    public CountersCollector(final CountersReader reader, final EpochClock wallClock)
    {
        this.reader = reader;
        this.wallClock = wallClock;
    }

    @Override
    public MetricSnapshots collect()
    {
        final List<CounterValue> values = CounterValue.readAll(reader);
        final Map<CounterDescriptor, List<CounterValue>> byFigure = new EnumMap<>(CounterDescriptor.class);
        for (final CounterValue v : values)
        {
            byFigure.computeIfAbsent(v.figure(), k -> new ArrayList<>()).add(v);
        }
        final List<MetricSnapshot> snapshots = new ArrayList<>();
        for (final Map.Entry<CounterDescriptor, List<CounterValue>> e : byFigure.entrySet())
        {
            snapshots.add(snapshot(e.getKey(), e.getValue()));
        }
        snapshots.add(gauge(SNAPSHOT_AGE, "how long ago the last snapshot was written (ms); -1: none since start",
            Figures.snapshotAgeMs(values, wallClock.time())));
        snapshots.add(gauge(EGRESS_BACKLOG, "events the engine emitted that the egress has not yet routed",
            Figures.egressBacklog(values)));
        return new MetricSnapshots(snapshots);
    }

    private static MetricSnapshot snapshot(final CounterDescriptor figure, final List<CounterValue> values)
    {
        if (figure.kind() == CounterDescriptor.Kind.COUNTER)
        {
            final CounterSnapshot.Builder b = CounterSnapshot.builder().name(figure.metricName()).help(figure.help());
            for (final CounterValue v : values)
            {
                b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels(figure, v)).value(v.value()).build());
            }
            return b.build();
        }
        final GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(figure.metricName()).help(figure.help());
        for (final CounterValue v : values)
        {
            b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels(figure, v)).value(v.value()).build());
        }
        return b.build();
    }

    private static Labels labels(final CounterDescriptor figure, final CounterValue v)
    {
        if (figure.labelCount() == 0)
        {
            return Labels.EMPTY;
        }
        final String[] names = new String[figure.labelCount()];
        for (int i = 0; i < names.length; i++)
        {
            names[i] = figure.labelName(i);
        }
        return Labels.of(names, v.labelValues());
    }

    private static MetricSnapshot gauge(final String name, final String help, final long value)
    {
        return GaugeSnapshot.builder().name(name).help(help)
            .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build()).build();
    }
}
