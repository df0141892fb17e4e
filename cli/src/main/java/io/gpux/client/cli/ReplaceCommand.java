package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Replace;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpux replace ORDER [--price P] [--gpus N]}: changes an open order's price and/or size in place. */
@Command(name = "replace", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Changes an open order's price and/or its open GPUs. The order keeps its id; a bid's hold "
        + "follows its new size and price, and a new price may match at once (the fills are printed).",
        "A refusal's line ends with the numbers and the fix (for INSUFFICIENT_FUNDS the client's estimate of the extra hold).",
        "Exit status: 0 done, 1 rejected (e.g. UNKNOWN_ORDER), 2 bad usage, 3 connection or login failure."})
public final class ReplaceCommand extends ClientCommand
{
    @Parameters(index = "0", paramLabel = "ORDER", description = "the order's id (see gpux leases)")
    long orderId;

    @Option(names = "--price", paramLabel = "PRICE", converter = Converters.Price.class,
        description = "the new price per GPU-hour (default: unchanged)")
    Long price;

    @Option(names = "--gpus", paramLabel = "N", description = "the new number of open GPUs (default: unchanged)")
    int gpus;

    @Override
    int execute() throws Exception
    {
        if (price == null && gpus == 0)
        {
            throw CliException.usage("give --price and/or --gpus");
        }
        if (gpus < 0)
        {
            throw CliException.usage("--gpus must be at least 1, got " + gpus);
        }
        final EventCollector events = new EventCollector();
        try (GpuxClient client = connect(events))
        {
            final Replace.Builder replace = Replace.newBuilder().setOrderId(orderId);
            final Json fields = new Json().put("order_id", orderId);
            if (price != null)
            {
                replace.setPrice(price);
                fields.put("price", Format.price(price));
            }
            if (gpus > 0)
            {
                replace.setGpus(gpus);
                fields.put("gpus", gpus);
            }
            final OpenOrder before = openOrder(client);
            return submit(client, events, Envelope.newBuilder().setReplace(replace), fields,
                reason -> new RejectHints(client, timeout()).replace(reason, orderId, before, gpus, price == null ? -1 : price));
        }
    }

    /** The order as it stands before the replace, for a refusal's numbers; null if the account has no such open order. */
    private OpenOrder openOrder(final GpuxClient client) throws Exception
    {
        for (final OpenOrder o : client.portfolio(timeout()).getOrdersList())
        {
            if (o.getOrderId() == orderId)
            {
                return o;
            }
        }
        return null;
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("replace", args);
    }
}
