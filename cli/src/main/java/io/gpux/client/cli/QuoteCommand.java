package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.QuoteFill;
import io.gpux.proto.v1.QuotePreemption;
import io.gpux.proto.v1.QuoteResult;
import io.gpux.proto.v1.Reason;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpux quote}: what a bid would do now, without placing it. */
@Command(name = "quote", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Shows what a bid would do now: the asks it would fill, the leases it would preempt, "
        + "the money it would hold and when preempted GPUs would start; with --duration, what all its GPUs would cost for "
        + "that long; a warning when no machine of the market can ever fill it whole (a gang larger than every machine). "
        + "Places nothing. The market's symbol may be typed in any case; a refusal ends with the numbers and the fix, as "
        + "gpux bid's does.",
        "Exit status: 0 the bid would be accepted, 1 it would be rejected (the reason is printed), 2 bad usage, "
            + "3 connection or login failure."})
public final class QuoteCommand extends ClientCommand
{
    @Mixin
    BidOptions bid;

    @Option(names = "--duration", paramLabel = "DURATION", converter = Converters.DurationMs.class,
        description = "also show the total for this long: the fills at their asks' prices, the rest at your price "
            + "(2h, 90m, 30s or milliseconds)")
    long durationMs;

    @Override
    int execute() throws Exception
    {
        bid.check();
        try (GpuxClient client = connect(null))
        {
            bid.market = MarketDirectory.fetch(client, timeout()).resolve(bid.market);
            final QuoteResult q = client.quote(bid.toQuote().toBuilder().setDurationMs(durationMs).build(), timeout());
            final String hint = q.getReject() == Reason.REASON_OK ? null
                : new RejectHints(client, timeout()).bid(q.getReject(), bid.market, bid.gpus, bid.price, bid.maxDurationMs);
            if (json)
            {
                print(q, hint);
            }
            else
            {
                printText(q, hint);
            }
            return q.getReject() == Reason.REASON_OK ? 0 : CliException.REJECTED;
        }
    }

    private void print(final QuoteResult q, final String hint)
    {
        final List<Json> fills = new ArrayList<>();
        for (final QuoteFill f : q.getFillsList())
        {
            fills.add(new Json().put("machine_id", f.getMachineId()).put("gpus", f.getGpus())
                .put("price", Format.price(f.getPrice())));
        }
        final List<Json> preemptions = new ArrayList<>();
        for (final QuotePreemption p : q.getPreemptionsList())
        {
            preemptions.add(new Json().put("lease_id", p.getLeaseId()).put("machine_id", p.getMachineId())
                .put("gpus", p.getGpus()).put("lease_price", Format.price(p.getLeasePrice())));
        }
        final Json line = new Json().put("type", "quote").put("market", bid.market)
            .put("ok", q.getReject() == Reason.REASON_OK).put("reject", q.getReject().name())
            .put("filled_gpus", q.getFilledGpus()).put("preempted_gpus", q.getPreemptedGpus())
            .put("resting_gpus", q.getRestingGpus()).put("hold", Format.money(q.getHold()))
            .putTime("effective", q.getPreemptedGpus() > 0 ? q.getEffectiveMs() : 0).put("fills", fills).put("preemptions", preemptions)
            .put("largest_machine_gpus", q.getLargestMachineGpus()).put("market_gpus", q.getMarketGpus());
        if (durationMs > 0)
        {
            line.put("duration_ms", durationMs).put("total", Format.money(q.getTotal()));
        }
        if (!q.getWarning().isEmpty())
        {
            line.put("warning", q.getWarning());
        }
        out().println(hint == null ? line : line.put("hint", hint));
    }

    private void printText(final QuoteResult q, final String hint)
    {
        out().println("quote: " + bid.gpus + " GPUs of " + bid.market + " at up to " + Format.price(bid.price) + " (" + bid.tif
            + ")" + (q.getReject() == Reason.REASON_OK ? "" : ": would be REJECTED " + q.getReject().name())
            + (hint == null ? "" : ": " + hint));
        if (q.getFillsCount() > 0)
        {
            out().println();
            out().println("fills from open asks:");
            final Table fills = new Table("MACHINE", "GPUS", "PRICE");
            for (final QuoteFill f : q.getFillsList())
            {
                fills.row(f.getMachineId(), f.getGpus(), Format.price(f.getPrice()));
            }
            fills.print(out());
        }
        if (q.getPreemptionsCount() > 0)
        {
            out().println();
            out().println("preemptions (the bid pays its own price once they end):");
            final Table preemptions = new Table("LEASE", "MACHINE", "GPUS", "LEASE_PRICE");
            for (final QuotePreemption p : q.getPreemptionsList())
            {
                preemptions.row(p.getLeaseId(), p.getMachineId(), p.getGpus(), Format.price(p.getLeasePrice()));
            }
            preemptions.print(out());
        }
        out().println();
        final Table summary = new Table("FILLED", "PREEMPTED", "RESTING", "HOLD", "EFFECTIVE");
        summary.row(q.getFilledGpus(), q.getPreemptedGpus(), q.getRestingGpus(), Format.money(q.getHold()),
            q.getPreemptedGpus() > 0 ? Format.time(q.getEffectiveMs()) : "-");
        summary.print(out());
        if (durationMs > 0)
        {
            out().println();
            out().println("total for " + Format.span(durationMs) + ": " + Format.money(q.getTotal())
                + " (fills at their asks' prices, the rest at " + Format.price(bid.price) + ")");
        }
        if (!q.getWarning().isEmpty())
        {
            out().println();
            out().println("warning: " + q.getWarning());
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("quote", args);
    }
}
