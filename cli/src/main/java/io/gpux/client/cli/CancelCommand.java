package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MassCancel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpux cancel}: one order ({@code --order-id}), or every open order ({@code --all}, a MassCancel). */
@Command(name = "cancel", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Cancels an open order, or all of them.",
        "Exit status: 0 done, 1 rejected (e.g. UNKNOWN_ORDER), 2 bad usage, 3 connection or login failure."})
public final class CancelCommand extends ClientCommand
{
    @Option(names = "--order-id", paramLabel = "N", description = "the order to cancel")
    long orderId;

    @Option(names = "--reclaim", description = "owners: also end the ask's leases (OWNER_RECLAIM notices, then the grace period)")
    boolean reclaim;

    @Option(names = "--all", description = "cancel every open order of the account (never reclaims)")
    boolean all;

    @Option(names = "--market", paramLabel = "SYMBOL", description = "with --all: only this market's orders")
    String market;

    @Override
    int execute() throws Exception
    {
        if (all == (orderId != 0))
        {
            throw CliException.usage("give either --order-id N or --all");
        }
        if (all && reclaim)
        {
            throw CliException.usage("--reclaim goes with --order-id, not --all");
        }
        if (!all && market != null)
        {
            throw CliException.usage("--market goes with --all");
        }
        final EventCollector events = new EventCollector();
        try (GpuxClient client = connect(events))
        {
            if (all)
            {
                final String symbol = market == null ? "" : MarketDirectory.fetch(client, timeout()).resolve(market);
                final MassCancel.Builder mass = MassCancel.newBuilder().setMarket(symbol);
                return submit(client, events, Envelope.newBuilder().setMassCancel(mass),
                    market == null ? new Json() : new Json().put("market", market));
            }
            return submit(client, events, Envelope.newBuilder().setCancel(
                Cancel.newBuilder().setOrderId(orderId).setReclaim(reclaim)), new Json().put("order_id", orderId));
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("cancel", args);
    }
}
