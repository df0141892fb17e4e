package io.gpux.sim.report;

import io.gpux.sim.agent.Catalogue;
import io.gpux.sim.agent.GpuClass;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.IChart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The report's charts, rendered headless to PNG with XChart. Time axes are hours of market time since the open. */
public final class Charts
{
    private static final int MAX_SCATTER_POINTS = 1500;

    private Charts()
    {
    }

    /** Writes every chart into {@code dir}; returns the file names written. */
    public static List<String> write(final Analysis a, final Path dir) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final List<String> files = new ArrayList<>();
        prices(a, dir, files);
        utilization(a, dir, files);
        depth(a, dir, files);
        preemptions(a, dir, files);
        return files;
    }

    private static void save(final List<? extends IChart> charts, final int rows, final int columns, final Path file)
        throws IOException
    {
        try (OutputStream out = Files.newOutputStream(file))
        {
            BitmapEncoder.saveBitmap(charts, rows, columns, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static double[] bucketHours(final Analysis a)
    {
        final double[] x = new double[a.buckets];
        for (int b = 0; b < a.buckets; b++)
        {
            x[b] = (b + 0.5) * a.bucketMs / 3_600_000.0;
        }
        return x;
    }

    private static double hours(final Analysis a, final long t)
    {
        return (t - a.openMs) / 3_600_000.0;
    }

    private static void style(final XYChart chart)
    {
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setMarkerSize(4);
        chart.getStyler().setXAxisDecimalPattern("0");
    }

    /** Adds a line without its NaN points (XChart would draw them as zero). */
    private static XYSeries line(final XYChart chart, final String name, final double[] x, final double[] y)
    {
        int n = 0;
        for (final double v : y)
        {
            n += Double.isNaN(v) ? 0 : 1;
        }
        final double[] xs = new double[Math.max(1, n)];
        final double[] ys = new double[Math.max(1, n)];
        int i = 0;
        for (int k = 0; k < y.length; k++)
        {
            if (!Double.isNaN(y[k]))
            {
                xs[i] = x[k];
                ys[i++] = y[k];
            }
        }
        if (n == 0)
        {
            xs[0] = x.length > 0 ? x[0] : 0;
            ys[0] = 0;
        }
        final XYSeries s = chart.addSeries(name, xs, ys);
        s.setMarker(SeriesMarkers.NONE);
        return s;
    }

    private static void prices(final Analysis a, final Path dir, final List<String> files) throws IOException
    {
        final List<XYChart> charts = new ArrayList<>();
        final double[] x = bucketHours(a);
        final double end = a.buckets * a.bucketMs / 3_600_000.0;
        for (final GpuClass c : Catalogue.CLASSES)
        {
            final XYChart chart = new XYChartBuilder().width(560).height(330).title(c.symbol())
                .xAxisTitle("market hours").yAxisTitle("$/GPU-hour").build();
            style(chart);
            final List<TradeRecord> trades = new ArrayList<>();
            for (final TradeRecord t : a.trades)
            {
                if (t.market().equals(c.symbol()) && t.timeMs() >= a.openMs && t.timeMs() < a.closeMs)
                {
                    trades.add(t);
                }
            }
            final int stride = Math.max(1, trades.size() / MAX_SCATTER_POINTS);
            final int n = trades.isEmpty() ? 0 : (trades.size() + stride - 1) / stride;
            if (n > 0)
            {
                final double[] tx = new double[n];
                final double[] ty = new double[n];
                for (int i = 0; i < n; i++)
                {
                    final TradeRecord t = trades.get(i * stride);
                    tx[i] = hours(a, t.timeMs());
                    ty[i] = t.price() / 10_000.0;
                }
                final XYSeries s = chart.addSeries("fills", tx, ty);
                s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                s.setMarker(SeriesMarkers.CIRCLE);
                s.setMarkerColor(new Color(120, 150, 200, 90));
            }
            line(chart, "VWAP", x, a.vwapSeries.get(c.symbol())).setLineColor(new Color(20, 60, 160)).setLineWidth(2.5f);
            line(chart, "peer reference", new double[] {0, end}, new double[] {c.peerPrice(), c.peerPrice()})
                .setLineStyle(SeriesLines.DASH_DASH).setLineColor(new Color(0, 140, 60));
            line(chart, "on-demand cloud", new double[] {0, end}, new double[] {c.onDemandPrice(), c.onDemandPrice()})
                .setLineStyle(SeriesLines.DASH_DASH).setLineColor(new Color(200, 60, 40));
            chart.getStyler().setYAxisMin(0.0);
            chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
            chart.getStyler().setLegendVisible(charts.isEmpty());
            charts.add(chart);
        }
        final XYChart index = new XYChartBuilder().width(560).height(330).title("VWAP / peer reference price, every market")
            .xAxisTitle("market hours").yAxisTitle("ratio").build();
        style(index);
        index.getStyler().setLegendPosition(Styler.LegendPosition.InsideSW);
        index.getStyler().setYAxisMin(0.0);
        for (final GpuClass c : Catalogue.CLASSES)
        {
            final double[] vwap = a.vwapSeries.get(c.symbol());
            final double[] ratio = new double[vwap.length];
            for (int b = 0; b < vwap.length; b++)
            {
                ratio[b] = vwap[b] / c.peerPrice();
            }
            line(index, c.symbol(), x, ratio);
        }
        line(index, "1.0", new double[] {0, end}, new double[] {1, 1}).setLineStyle(SeriesLines.DASH_DASH)
            .setLineColor(Color.GRAY);
        charts.add(index);
        save(charts, 4, 2, dir.resolve("prices.png"));
        files.add("prices.png");
    }

    private static void utilization(final Analysis a, final Path dir, final List<String> files) throws IOException
    {
        final XYChart chart = new XYChartBuilder().width(1000).height(450).title("Utilization: GPU-hours leased / available")
            .xAxisTitle("market hours").yAxisTitle("%").build();
        style(chart);
        final double[] x = bucketHours(a);
        for (final Map.Entry<String, double[]> e : a.utilizationSeries.entrySet())
        {
            line(chart, e.getKey(), x, percent(e.getValue()));
        }
        line(chart, "all markets", x, percent(a.utilizationAll)).setLineWidth(3.5f).setLineColor(Color.BLACK);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(100.0);
        save(List.of(chart), 1, 1, dir.resolve("utilization.png"));
        files.add("utilization.png");
    }

    private static double[] percent(final double[] v)
    {
        final double[] p = new double[v.length];
        for (int i = 0; i < v.length; i++)
        {
            p[i] = v[i] * 100;
        }
        return p;
    }

    private static void depth(final Analysis a, final Path dir, final List<String> files) throws IOException
    {
        final List<XYChart> charts = new ArrayList<>();
        for (final boolean asks : new boolean[] {true, false})
        {
            final XYChart chart = new XYChartBuilder().width(1000).height(380)
                .title(asks ? "Depth: GPUs offered on the best 20 ask levels" : "Depth: GPUs wanted on the best 20 bid levels")
                .xAxisTitle("market hours").yAxisTitle("GPUs").build();
            style(chart);
            for (final GpuClass c : Catalogue.CLASSES)
            {
                final List<DepthSample> samples = new ArrayList<>();
                for (final DepthSample d : a.depth)
                {
                    if (d.market().equals(c.symbol()) && d.timeMs() >= a.openMs && d.timeMs() < a.closeMs)
                    {
                        samples.add(d);
                    }
                }
                final double[] x = new double[samples.size()];
                final double[] y = new double[samples.size()];
                for (int i = 0; i < samples.size(); i++)
                {
                    x[i] = hours(a, samples.get(i).timeMs());
                    y[i] = asks ? samples.get(i).askGpus() : samples.get(i).bidGpus();
                }
                line(chart, c.symbol(), x, y);
            }
            chart.getStyler().setYAxisMin(0.0);
            charts.add(chart);
        }
        save(charts, 2, 1, dir.resolve("depth.png"));
        files.add("depth.png");
    }

    private static void preemptions(final Analysis a, final Path dir, final List<String> files) throws IOException
    {
        final CategoryChart chart = new CategoryChartBuilder().width(1000).height(420)
            .title("Preemptions per " + (a.bucketMs / 60_000) + " min: notices by reason, and leases ended without notice")
            .xAxisTitle("market hours (bucket start)").yAxisTitle("leases").build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setStacked(true);
        chart.getStyler().setXAxisLabelRotation(90);
        final List<String> x = new ArrayList<>();
        for (int b = 0; b < a.buckets; b++)
        {
            x.add(String.format(java.util.Locale.ROOT, "%.1f", b * a.bucketMs / 3_600_000.0));
        }
        final String[] names = {"outbid", "owner reclaim", "insufficient funds", "no notice (machine offline)"};
        int i = 0;
        for (final long[] counts : a.preemptionSeries.values())
        {
            final List<Number> y = new ArrayList<>();
            for (final long c : counts)
            {
                y.add(c);
            }
            chart.addSeries(names[i++], x, y);
        }
        save(List.of(chart), 1, 1, dir.resolve("preemptions.png"));
        files.add("preemptions.png");
    }
}
