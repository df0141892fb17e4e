package io.gpux.bench;

import io.gpux.bench.flow.OrderFlow;
import io.gpux.engine.command.Command;

import java.util.List;

/**
 * An order flow as an endless stream of gpux commands, for a producer that publishes them into the pipeline:
 * the setup (accounts, machines, deposits) once, then the pass of {@link OrderFlowWorkload} again and again, each
 * command decoded into one reused {@link Command} (a RELEASE's lease id moved on by the leases of the passes
 * before; the sequencer stamps the time). {@link #flowCommand()} tells the flow's own commands from those that
 * only gpux needs after them.
 */
public final class OrderFlowFeed
{
    private final OrderFlowWorkload gpux;
    private final Command command = new Command();
    private final CommandCodec.Decoder decoder = new CommandCodec.Decoder(command);
    private final long[] pass;
    private final boolean[] flowCommandAt;
    private int cursor;
    private int index;
    private long leaseOffset;
    private long timeOffset;
    private boolean flowCommand;

    private OrderFlowFeed(final OrderFlowWorkload gpux)
    {
        this.gpux = gpux;
        this.pass = gpux.workload.packedPass;
        this.flowCommandAt = new boolean[gpux.workload.pass.length];
        for (int i = 0; i < gpux.messageEnd.length; i++)
        {
            flowCommandAt[i == 0 ? 0 : gpux.messageEnd[i - 1]] = true;
        }
    }

    /** The feed of a flow read from {@code flowDir/NAME.flow} (see {@link OrderFlows#get}). */
    public static OrderFlowFeed of(final String name, final String flowDir)
    {
        return new OrderFlowFeed(OrderFlowWorkload.of(OrderFlows.get(name, flowDir)));
    }

    public OrderFlow flow()
    {
        return gpux.flow;
    }

    /** What the gpux pass is made of (the commands beyond the flow's own). */
    public String notes()
    {
        return gpux.workload.notes;
    }

    /** gpux commands per flow command (1 plus what only gpux needs). */
    public double commandsPerFlowCommand()
    {
        return (double)flowCommandAt.length / gpux.messageEnd.length;
    }

    /** gpux commands in one pass of the flow. */
    public int commandsPerPass()
    {
        return flowCommandAt.length;
    }

    public List<Command> setup()
    {
        return List.of(gpux.workload.setup);
    }

    /** The next command of the endless stream, in a flyweight that the following call overwrites. */
    public Command next()
    {
        flowCommand = flowCommandAt[index];
        cursor = decoder.decode(pass, cursor, timeOffset, leaseOffset);
        index++;
        if (cursor == pass.length)
        {
            cursor = 0;
            index = 0;
            leaseOffset += gpux.workload.leasesPerPass;
            timeOffset += gpux.workload.timeShiftMs;
        }
        return command;
    }

    /** Whether the command last returned by {@link #next()} is one of the flow's own (not one only gpux needs). */
    public boolean flowCommand()
    {
        return flowCommand;
    }

    /** Whether the command that {@link #next()} returns next is one of the flow's own. */
    public boolean nextIsFlowCommand()
    {
        return flowCommandAt[index];
    }
}
