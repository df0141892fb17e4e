package io.gpux.sim.report;

/**
 * A window of market time in which the exchange was down (killed and not yet restarted), marked on
 * every time chart of the report.
 *
 * @param fromMs market time the exchange went down.
 * @param toMs   market time it was back.
 */
public record Outage(long fromMs, long toMs)
{
    /** The label on the charts and in report.html. */
    public static final String LABEL = "exchange down";
}
