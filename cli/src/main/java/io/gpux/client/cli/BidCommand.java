package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.TimeInForce;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpux bid}: places a bid, prints the events it caused (ACCEPTED, FILL, LEASE_STARTED...) and the result. */
@Command(name = "bid", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Places a bid and prints what it caused. The market's symbol may be typed in any case.",
        "A refusal's line ends with the numbers and the fix, e.g. for INSUFFICIENT_FUNDS the hold the bid needs "
            + "(the client's estimate: GPUs x price x (prepay + grace)) and the funds available.",
        "Exit status: 0 accepted, 1 rejected (the reason is printed), 2 bad usage, 3 connection or login failure, "
            + "4 an IOC or FOK bid that filled nothing (it is cancelled; one line on stderr says so)."})
public final class BidCommand extends ClientCommand
{
    @Mixin
    BidOptions bid;

    @Option(names = "--post-only", description = "reject the bid if it would match on entry")
    boolean postOnly;

    @Option(names = "--no-preempt", description = "fill from open asks and wait in the book, but never preempt a lease")
    boolean noPreempt;

    @Option(names = "--order-id", paramLabel = "N", description = "the order id (default: a fresh one)")
    long orderId;

    @Override
    int execute() throws Exception
    {
        bid.check();
        final EventCollector events = new EventCollector();
        try (GpuxClient client = connect(events))
        {
            final String market = MarketDirectory.fetch(client, timeout()).resolve(bid.market);
            final long id = orderId != 0 ? orderId : client.nextOrderId();
            final RejectHints hints = new RejectHints(client, timeout());
            final int status = submit(client, events,
                Envelope.newBuilder().setPlaceBid(bid.toBid(id).setMarket(market).setPostOnly(postOnly).setNoPreempt(noPreempt)),
                new Json().put("order_id", id),
                reason -> hints.bid(reason, market, bid.gpus, bid.price, bid.maxDurationMs));
            if (status == 0 && bid.tif != TimeInForce.GTC && events.cancelledByTimeInForce(id) == bid.gpus)
            {
                err().println(name() + ": nothing filled: the " + bid.tif + " bid " + id + " for " + bid.gpus + " GPUs at "
                    + Format.price(bid.price) + " found no " + (bid.tif == TimeInForce.FOK ? "asks for all its GPUs" : "asks")
                    + " at or below its price and is cancelled; see the offers with: gpux book --market " + market);
                return CliException.NOTHING_FILLED;
            }
            return status;
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("bid", args);
    }
}
