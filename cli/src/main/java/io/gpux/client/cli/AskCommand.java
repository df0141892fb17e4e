package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.TimeInForce;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpux ask}: offers GPUs of one of the account's machines. */
@Command(name = "ask", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Places an ask on one of your machines and prints what it caused.",
        "Exit status: 0 accepted, 1 rejected (the reason is printed), 2 bad usage, 3 connection or login failure."})
public final class AskCommand extends ClientCommand
{
    @Option(names = "--machine", required = true, paramLabel = "ID|NAME", description = "the machine, by id or by name")
    String machine;

    @Option(names = "--gpus", required = true, paramLabel = "N", description = "how many GPUs to offer")
    int gpus;

    @Option(names = "--price", required = true, paramLabel = "PRICE", converter = Converters.Price.class,
        description = "the least to take per GPU-hour, e.g. 2.5")
    long price;

    @Option(names = "--tif", paramLabel = "GTC|IOC|FOK", defaultValue = "GTC", converter = Converters.Tif.class,
        description = "time in force (default ${DEFAULT-VALUE})")
    TimeInForce tif;

    @Option(names = "--post-only", description = "reject the ask if it would match on entry")
    boolean postOnly;

    @Option(names = "--order-id", paramLabel = "N", description = "the order id (default: a fresh one)")
    long orderId;

    @Override
    int execute() throws Exception
    {
        if (gpus < 1)
        {
            throw CliException.usage("--gpus must be at least 1, got " + gpus);
        }
        final EventCollector events = new EventCollector();
        try (GpuxClient client = connect(events))
        {
            final long machineId = machineId(client);
            final long id = orderId != 0 ? orderId : client.nextOrderId();
            return submit(client, events, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(id)
                .setMachineId(machineId).setGpus(gpus).setPrice(price).setTif(tif).setPostOnly(postOnly)),
                new Json().put("order_id", id).put("machine_id", machineId));
        }
    }

    /** A number is the machine id; a name is looked up among the account's machines. */
    private long machineId(final GpuxClient client) throws Exception
    {
        if (!machine.isEmpty() && machine.chars().allMatch(Character::isDigit))
        {
            try
            {
                return Long.parseLong(machine);
            }
            catch (final NumberFormatException ex)
            {
                throw CliException.usage("--machine: not a machine id: " + machine);
            }
        }
        final Portfolio portfolio = client.portfolio(timeout());
        for (final MachineInfo m : portfolio.getMachinesList())
        {
            if (m.getName().equals(machine))
            {
                return m.getMachineId();
            }
        }
        throw new CliException(CliException.REJECTED, "no machine of yours is named '" + machine + "'");
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("ask", args);
    }
}
