package io.gpux.sim.report;

import io.gpux.sim.agent.Catalogue;
import io.gpux.sim.agent.GpuClass;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.IChart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report's charts, rendered headless to PNG with XChart. Time axes are market time since the
 * open for a run of a day and a half or less; beyond that the market's days and times ("Mon 12:00", or
 * "Mon 2 Jun" for a run of more than four days), in UTC. Colours
 * are the Okabe-Ito palette, which people with any common colour-vision deficiency can tell apart; a
 * market has the same colour on every chart. Legends sit outside the plot. When the exchange was
 * down during the run, every chart shades that window and labels it "exchange down".
 */
public final class Charts
{
    private static final int MAX_SCATTER_POINTS = 1500;
    private static final long HOUR_MS = 3_600_000L;
    private static final long DAY_MS = 24 * HOUR_MS;
    /** Runs longer than this are drawn in days. */
    private static final long DAYS_BEYOND_MS = 36 * HOUR_MS;
    /** Tick labels of a multi-day axis: the weekday and time of the market, or the date beyond four days. */
    static final String DAYS_PATTERN = "EEE HH:mm";
    static final String DATES_PATTERN = "EEE d MMM";

    // Okabe-Ito
    static final Color BLACK = new Color(0x000000);
    static final Color ORANGE = new Color(0xE69F00);
    static final Color SKY_BLUE = new Color(0x56B4E9);
    static final Color GREEN = new Color(0x009E73);
    static final Color YELLOW = new Color(0xF0E442);
    static final Color BLUE = new Color(0x0072B2);
    static final Color VERMILLION = new Color(0xD55E00);
    static final Color PURPLE = new Color(0xCC79A7);
    static final Color GREY = new Color(0x999999);
    /** One colour per market, in the catalogue's order. */
    private static final Color[] MARKET_COLOURS = {BLUE, ORANGE, GREEN, VERMILLION, SKY_BLUE, PURPLE, YELLOW};
    private static final BasicStroke DASHED = new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
        new float[] {6f, 4f}, 0f);
    private static final BasicStroke DOTTED = new BasicStroke(1.5f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 10f,
        new float[] {1.5f, 4f}, 0f);

    /** One PNG: its charts in a grid. */
    public record Figure(String file, String title, List<XYChart> charts, int rows, int columns)
    {
    }

    private Charts()
    {
    }

    /** Writes every chart into {@code dir}; returns the file names written. */
    public static List<String> write(final Analysis a, final Outage outage, final Path dir) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final List<String> files = new ArrayList<>();
        for (final Figure f : figures(a, outage))
        {
            save(f.charts(), f.rows(), f.columns(), dir.resolve(f.file()));
            files.add(f.file());
        }
        return files;
    }

    /** The report's figures, built but not rendered; {@code outage} may be null. */
    public static List<Figure> figures(final Analysis a, final Outage outage)
    {
        final Axis axis = new Axis(a);
        final List<Figure> figures = new ArrayList<>();
        figures.add(new Figure("prices.png", "Clearing prices per market (fills, VWAP per bucket, reference prices)",
            prices(a, axis, outage), 4, 2));
        figures.add(new Figure("utilization.png", "Utilization over time", List.of(utilization(a, axis, outage)), 1, 1));
        figures.add(new Figure("depth.png", "Book depth over time", depth(a, axis, outage), 2, 1));
        figures.add(new Figure("preemptions.png", "Preemptions over time", List.of(preemptions(a, axis, outage)), 1, 1));
        return figures;
    }

    /** The band a chart carries for the outage; null when it has none. */
    public static String outageLabel(final XYChart chart)
    {
        return chart instanceof TimeChart t ? t.outageLabel : null;
    }

    /** The colour of a market on every chart. */
    static Color marketColour(final String market)
    {
        final List<GpuClass> classes = Catalogue.CLASSES;
        for (int i = 0; i < classes.size(); i++)
        {
            if (classes.get(i).symbol().equals(market))
            {
                return MARKET_COLOURS[i % MARKET_COLOURS.length];
            }
        }
        return GREY;
    }

    private static void save(final List<? extends IChart> charts, final int rows, final int columns, final Path file)
        throws IOException
    {
        try (OutputStream out = Files.newOutputStream(file))
        {
            BitmapEncoder.saveBitmap(charts, rows, columns, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    /** Market time on the x axis: hours since the open, or, for multi-day runs, the market's dates (epoch ms). */
    private static final class Axis
    {
        final long openMs;
        final boolean days;
        final String datePattern;
        final double unitMs;
        /** Where the open sits on the axis: 0 hours, or its epoch ms. */
        final double origin;
        final double end;

        Axis(final Analysis a)
        {
            this.openMs = a.openMs;
            this.days = a.closeMs - a.openMs > DAYS_BEYOND_MS;
            this.datePattern = a.closeMs - a.openMs > 4 * DAY_MS ? DATES_PATTERN : DAYS_PATTERN;
            this.unitMs = days ? 1 : HOUR_MS;
            this.origin = days ? openMs : 0;
            this.end = origin + a.buckets * (double)a.bucketMs / unitMs;
        }

        double x(final long t)
        {
            return origin + (t - openMs) / unitMs;
        }

        double bucketMiddle(final Analysis a, final int b)
        {
            return origin + (b + 0.5) * a.bucketMs / unitMs;
        }

        double bucketStart(final Analysis a, final int b)
        {
            return origin + b * (double)a.bucketMs / unitMs;
        }

        String title()
        {
            return days ? "market time (UTC)" : "market hours since the open";
        }
    }

    /** An XYChart over market time: its axis, and the outage band it carries. */
    private static final class TimeChart extends XYChart
    {
        final Axis axis;
        String outageLabel;

        TimeChart(final int width, final int height, final Axis axis)
        {
            super(width, height);
            this.axis = axis;
        }

        /** Adds a series at market-time x values: numbers of hours, or dates. */
        XYSeries add(final String name, final double[] x, final double[] y)
        {
            if (!axis.days)
            {
                return addSeries(name, x, y);
            }
            final List<Date> dates = new ArrayList<>(x.length);
            final List<Double> ys = new ArrayList<>(y.length);
            for (int i = 0; i < x.length; i++)
            {
                dates.add(new Date((long)x[i]));
                ys.add(y[i]);
            }
            return addSeries(name, dates, ys);
        }
    }

    private static TimeChart chart(final int width, final int height, final String title, final Axis axis,
        final String yTitle, final Outage outage)
    {
        final TimeChart chart = new TimeChart(width, height, axis);
        chart.setTitle(title);
        chart.setXAxisTitle(axis.title());
        chart.setYAxisTitle(yTitle);
        final var styler = chart.getStyler();
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(0xE4E4E4));
        styler.setSeriesColors(MARKET_COLOURS);
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setLegendBorderColor(Color.WHITE);
        styler.setMarkerSize(4);
        styler.setXAxisMin(axis.origin);
        styler.setXAxisMax(axis.end);
        if (axis.days)
        {
            styler.setDatePattern(axis.datePattern);
            styler.setTimezone(TimeZone.getTimeZone("UTC"));
            styler.setLocale(Locale.ENGLISH);
        }
        else
        {
            styler.setXAxisDecimalPattern("0");
        }
        if (outage != null)
        {
            final OutageBand band = new OutageBand(axis.x(outage.fromMs()), axis.x(outage.toMs()), Outage.LABEL);
            chart.addAnnotation(band);
            chart.outageLabel = band.label();
        }
        return chart;
    }

    /** Adds a line without its NaN points (XChart would draw them as zero). */
    private static XYSeries line(final TimeChart chart, final String name, final double[] x, final double[] y, final Color colour)
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
        final XYSeries s = chart.add(name, xs, ys);
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(colour);
        s.setLineStyle(SeriesLines.SOLID);
        s.setLineWidth(1.8f);
        return s;
    }

    private static double[] bucketMiddles(final Analysis a, final Axis axis)
    {
        final double[] x = new double[a.buckets];
        for (int b = 0; b < a.buckets; b++)
        {
            x[b] = axis.bucketMiddle(a, b);
        }
        return x;
    }

    private static List<XYChart> prices(final Analysis a, final Axis axis, final Outage outage)
    {
        final List<XYChart> charts = new ArrayList<>();
        final double[] x = bucketMiddles(a, axis);
        for (final GpuClass c : Catalogue.CLASSES)
        {
            final Color colour = marketColour(c.symbol());
            final TimeChart chart = chart(560, 360, c.symbol(), axis, "$/GPU-hour", outage);
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
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
                    tx[i] = axis.x(t.timeMs());
                    ty[i] = t.price() / 10_000.0;
                }
                final XYSeries s = chart.add("fills", tx, ty);
                s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                s.setMarker(SeriesMarkers.CIRCLE);
                s.setMarkerColor(new Color(colour.getRed(), colour.getGreen(), colour.getBlue(), 70));
            }
            line(chart, "VWAP", x, a.vwapSeries.get(c.symbol()), colour).setLineWidth(2.5f);
            line(chart, "peer reference", new double[] {axis.origin, axis.end}, new double[] {c.peerPrice(), c.peerPrice()}, BLACK)
                .setLineStyle(DASHED);
            line(chart, "on-demand cloud", new double[] {axis.origin, axis.end}, new double[] {c.onDemandPrice(), c.onDemandPrice()},
                GREY).setLineStyle(DOTTED);
            chart.getStyler().setYAxisMin(0.0);
            charts.add(chart);
        }
        final TimeChart index = chart(560, 360, "VWAP / peer reference price, every market", axis, "ratio", outage);
        index.getStyler().setYAxisMin(0.0);
        for (final GpuClass c : Catalogue.CLASSES)
        {
            final double[] vwap = a.vwapSeries.get(c.symbol());
            final double[] ratio = new double[vwap.length];
            for (int b = 0; b < vwap.length; b++)
            {
                ratio[b] = vwap[b] / c.peerPrice();
            }
            line(index, c.symbol(), x, ratio, marketColour(c.symbol()));
        }
        line(index, "1.0 (peer)", new double[] {axis.origin, axis.end}, new double[] {1, 1}, BLACK).setLineStyle(DASHED);
        charts.add(index);
        return charts;
    }

    private static XYChart utilization(final Analysis a, final Axis axis, final Outage outage)
    {
        final TimeChart chart = chart(1000, 450, "Utilization: GPU-hours leased / available", axis, "%", outage);
        final double[] x = bucketMiddles(a, axis);
        a.utilizationSeries.forEach((market, v) -> line(chart, market, x, percent(v), marketColour(market)));
        line(chart, "all markets", x, percent(a.utilizationAll), BLACK).setLineWidth(3.5f);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(100.0);
        return chart;
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

    private static List<XYChart> depth(final Analysis a, final Axis axis, final Outage outage)
    {
        final List<XYChart> charts = new ArrayList<>();
        for (final boolean asks : new boolean[] {true, false})
        {
            final TimeChart chart = chart(1000, 380,
                asks ? "Depth: GPUs offered on the best 20 ask levels" : "Depth: GPUs wanted on the best 20 bid levels",
                axis, "GPUs", outage);
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
                    x[i] = axis.x(samples.get(i).timeMs());
                    y[i] = asks ? samples.get(i).askGpus() : samples.get(i).bidGpus();
                }
                line(chart, c.symbol(), x, y, marketColour(c.symbol()));
            }
            chart.getStyler().setYAxisMin(0.0);
            charts.add(chart);
        }
        return charts;
    }

    /** Stacked step areas: each series is drawn as the running total, the largest first, so the bands stack. */
    private static XYChart preemptions(final Analysis a, final Axis axis, final Outage outage)
    {
        final TimeChart chart = chart(1000, 420, "Preemptions per " + a.bucketMs / 60_000 + " min of market time, stacked: "
            + "notices by reason, and leases ended without notice", axis, "leases", outage);
        final String[] names = {"outbid", "owner reclaim", "insufficient funds", "no notice (machine offline)"};
        final Color[] colours = {SKY_BLUE, ORANGE, PURPLE, VERMILLION};
        final List<long[]> series = new ArrayList<>(a.preemptionSeries.values());
        final double[] x = new double[a.buckets + 1];
        for (int b = 0; b <= a.buckets; b++)
        {
            x[b] = axis.bucketStart(a, b);
        }
        final double[][] stacked = new double[series.size()][a.buckets + 1];
        for (int s = 0; s < series.size(); s++)
        {
            for (int b = 0; b < a.buckets; b++)
            {
                stacked[s][b] = (s == 0 ? 0 : stacked[s - 1][b]) + series.get(s)[b];
            }
            stacked[s][a.buckets] = stacked[s][Math.max(0, a.buckets - 1)];
        }
        for (int s = series.size() - 1; s >= 0; s--)
        {
            final XYSeries xy = chart.add(names[s], x, stacked[s]);
            xy.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.StepArea);
            xy.setMarker(SeriesMarkers.NONE);
            xy.setLineColor(colours[s]);
            xy.setFillColor(colours[s]);
        }
        chart.getStyler().setYAxisMin(0.0);
        return chart;
    }
}
