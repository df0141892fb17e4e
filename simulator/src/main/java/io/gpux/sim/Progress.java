package io.gpux.sim;

import io.gpux.sim.report.LiveCounters;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** The progress line: a carriage-return line on standard error with market time and what happened so far. */
final class Progress
{
    private static final DateTimeFormatter MARKET_TIME = DateTimeFormatter.ofPattern("EEE HH:mm", Locale.ROOT)
        .withZone(ZoneOffset.UTC);
    private static final int WIDTH = 24;

    private final PrintStream out;
    private final LiveCounters live;
    private final boolean terminal = System.console() != null;
    private int lastLength;
    private long lastShownNanos;

    Progress(final PrintStream out, final LiveCounters live)
    {
        this.out = out;
        this.live = live;
    }

    void show(final double fraction, final long marketMs, final String note)
    {
        // a terminal redraws the line in place; a log (CI) gets one line every few seconds
        final long now = System.nanoTime();
        if (!terminal && fraction < 1.0 && now - lastShownNanos < 5_000_000_000L && lastShownNanos != 0)
        {
            return;
        }
        lastShownNanos = now;
        final int filled = (int)Math.round(Math.max(0, Math.min(1, fraction)) * WIDTH);
        final String line = String.format(Locale.ROOT, "  [%s%s] %3.0f%%  market %s  trades %,d  leases %,d  notices %,d  no-notice ends %,d%s",
            "#".repeat(filled), ".".repeat(WIDTH - filled), fraction * 100, MARKET_TIME.format(Instant.ofEpochMilli(marketMs)),
            live.trades.sum(), live.leasesStarted.sum(), live.notices.sum(), live.endsWithoutNotice.sum(),
            note == null || note.isEmpty() ? "" : "  " + note);
        if (!terminal)
        {
            out.println(line);
            out.flush();
            return;
        }
        final StringBuilder sb = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < lastLength; i++)
        {
            sb.append(' ');
        }
        lastLength = line.length();
        out.print(sb);
        out.flush();
    }

    void done()
    {
        if (terminal)
        {
            out.println();
        }
        out.flush();
    }
}
