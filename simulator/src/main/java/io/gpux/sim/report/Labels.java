package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Plain-English labels for what people read (the summary, report.html): report.json's camelCase keys
 * become words ("allocativeEfficiency" reads "allocative efficiency"), reason codes become words
 * ("MACHINE_OFFLINE" reads "machine offline", "NOTICE_OWNER_RECLAIM" reads "owner reclaim") and counts by reason read "outbid 12, owner reclaim 3"
 * instead of Java's map text.
 */
public final class Labels
{
    /** Keys whose words alone would not say what they are. */
    private static final Map<String, String> KNOWN = Map.ofEntries(
        Map.entry("gpusNeverOversubscribed", "GPUs never oversubscribed (owners' records)"),
        Map.entry("portfolioGpusWithinMachines", "GPUs within machines (portfolio queries during the run)"),
        Map.entry("midRunPortfolioChecks", "portfolio queries during the run"),
        Map.entry("accountEventsGapFree", "every account's events gap-free"),
        Map.entry("lastSeqMatchesExchange", "every client's last event seq equals the exchange's"),
        Map.entry("everyInterruptionOfAWorkingMachineNoticedWithFullGrace", "every interruption of a working machine noticed a full grace ahead"),
        Map.entry("allLeasesEndedAfterWindDown", "every lease ended after the wind-down"),
        Map.entry("allClientsReconnectedAfterKill", "every client reconnected after the kill"),
        Map.entry("workloadCountsRight", "every workload job that succeeded counted to its end"),
        Map.entry("depositsMicros", "deposits ($)"),
        Map.entry("balancesMicros", "balances ($)"),
        Map.entry("feesMicros", "exchange fees ($)"),
        Map.entry("engineMoneyMicros", "money in the engine ($)"),
        Map.entry("gpus", "GPUs"),
        Map.entry("vwap", "VWAP ($/GPU-hour)"),
        Map.entry("exchangeKill", "exchange kill"),
        Map.entry("orderToFillLatency", "order-to-fill latency"),
        Map.entry("afterTheOpeningBurst", "after the opening burst"),
        Map.entry("p50", "p50"),
        Map.entry("p99", "p99"),
        Map.entry("killExchange", "exchange killed halfway"),
        Map.entry("clockScale", "clock scale (market time per wall time)"),
        Map.entry("jobsThatGotALease", "jobs that got a lease"),
        Map.entry("seqBreaks", "event seq gaps"));

    private Labels()
    {
    }

    /** A camelCase key or an UPPER_SNAKE code in words: "marketWallSeconds" reads "market wall seconds". */
    public static String label(final String key)
    {
        final String known = KNOWN.get(key);
        if (known != null)
        {
            return known;
        }
        if (key.indexOf('_') >= 0 || key.equals(key.toUpperCase(Locale.ROOT)))
        {
            final String code = key.startsWith("NOTICE_") ? key.substring("NOTICE_".length()) : key;
            return code.toLowerCase(Locale.ROOT).replace('_', ' ');
        }
        final StringBuilder s = new StringBuilder(key.length() + 8);
        for (int i = 0; i < key.length(); i++)
        {
            final char c = key.charAt(i);
            final boolean prevUpper = i > 0 && Character.isUpperCase(key.charAt(i - 1));
            final boolean nextUpper = i + 1 < key.length() && Character.isUpperCase(key.charAt(i + 1));
            final boolean nextLower = i + 1 < key.length() && Character.isLowerCase(key.charAt(i + 1));
            if (i > 0 && Character.isUpperCase(c) && (!prevUpper || nextLower))
            {
                s.append(' ');
            }
            s.append(Character.isUpperCase(c) && (prevUpper || nextUpper) ? c : Character.toLowerCase(c));
        }
        final StringBuilder words = new StringBuilder(s.length());
        for (final String w : s.toString().split(" "))
        {
            words.append(words.length() == 0 ? "" : " ").append(switch (w)
            {
                case "gpu" -> "GPU";
                case "gpus" -> "GPUs";
                case "vwap" -> "VWAP";
                default -> w;
            });
        }
        return words.toString();
    }

    /** Counts by reason in words, largest first as they came: "outbid 12, owner reclaim 3"; "none" when empty. */
    public static String counts(final Map<String, ? extends Number> counts)
    {
        if (counts.isEmpty())
        {
            return "none";
        }
        final List<String> parts = new ArrayList<>();
        counts.forEach((k, v) -> parts.add(label(k) + " " + String.format(Locale.ROOT, "%,d", v.longValue())));
        return String.join(", ", parts);
    }

    /**
     * Any report value as text for people: maps as "label value; label value", lists comma-separated,
     * booleans yes or no, numbers in plain notation.
     */
    public static String value(final Object v)
    {
        if (v instanceof Map<?, ?> m)
        {
            final List<String> parts = new ArrayList<>();
            m.forEach((k, x) -> parts.add(label(String.valueOf(k)) + " " + value(x)));
            return String.join("; ", parts);
        }
        if (v instanceof List<?> l)
        {
            final List<String> parts = new ArrayList<>();
            l.forEach(x -> parts.add(value(x)));
            return String.join(", ", parts);
        }
        if (v instanceof Boolean b)
        {
            return b ? "yes" : "no";
        }
        if (v instanceof Long || v instanceof Integer)
        {
            return String.format(Locale.ROOT, "%,d", ((Number)v).longValue());
        }
        if (v instanceof Double d && Double.isFinite(d))
        {
            // never 1.2E7: whole numbers with thousands separators, others as written
            return d == Math.rint(d) && Math.abs(d) >= 1_000 ? String.format(Locale.ROOT, "%,.0f", d)
                : new java.math.BigDecimal(Double.toString(d)).toPlainString();
        }
        return String.valueOf(v);
    }
}
