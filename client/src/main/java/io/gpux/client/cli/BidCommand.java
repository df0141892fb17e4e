package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpux bid}: places a bid, prints the events it caused (ACCEPTED, FILL, LEASE_STARTED...) and the result. */
@Command(name = "bid", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Places a bid and prints what it caused.",
        "Exit status: 0 accepted, 1 rejected (the reason is printed), 2 bad usage, 3 connection or login failure."})
public final class BidCommand extends ClientCommand
{
    @Mixin
    BidOptions bid;

    @Option(names = "--post-only", description = "reject the bid if it would match on entry")
    boolean postOnly;

    @Option(names = "--order-id", paramLabel = "N", description = "the order id (default: a fresh one)")
    long orderId;

    @Override
    int execute() throws Exception
    {
        bid.check();
        final EventCollector events = new EventCollector();
        try (GpuxClient client = connect(events))
        {
            final long id = orderId != 0 ? orderId : client.nextOrderId();
            return submit(client, events, Envelope.newBuilder().setPlaceBid(bid.toBid(id).setPostOnly(postOnly)),
                new Json().put("order_id", id));
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("bid", args);
    }
}
