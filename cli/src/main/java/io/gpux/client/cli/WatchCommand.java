package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.ResendComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpux watch}: the account's events, live, until Ctrl-C; {@code --from-seq} replays from an earlier one. */
@Command(name = "watch", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Prints your account's events as they happen, until Ctrl-C.",
        "Every event has a number (#N, \"seq\"), counting from 1 without gaps: --from-seq N starts with event N "
            + "(the gateway resends the ones already past, then goes live), so a script that saw up to N-1 misses nothing."})
public final class WatchCommand extends ClientCommand
{
    @Option(names = "--from-seq", paramLabel = "N", description = "start with event N (default: live events only)")
    Long fromSeq;

    @Option(names = "--max-events", paramLabel = "N", defaultValue = "0",
        description = "stop after N events (default: never)")
    long maxEvents;

    @Override
    int execute() throws Exception
    {
        if (fromSeq != null && fromSeq < 1)
        {
            throw CliException.usage("--from-seq counts from 1, got " + fromSeq);
        }
        final StreamListener stream = new StreamListener(true, null);
        try (GpuxClient client = connect(stream, ctx ->
        {
            if (fromSeq != null)
            {
                ctx.lastSeq(fromSeq - 1);
            }
        }))
        {
            if (!json)
            {
                err().println("watching account " + client.loginAccepted().getAccount() + " (last event #"
                    + client.loginAccepted().getLastSeq() + "); Ctrl-C to stop");
                err().flush();
            }
            long printed = 0;
            while (maxEvents == 0 || printed < maxEvents)
            {
                final Object message = stream.next();
                if (message instanceof AccountEvent event)
                {
                    out().println(json ? EventFormat.json(event).toString() : EventFormat.human(event));
                    printed++;
                }
                else if (message instanceof ResendComplete complete)
                {
                    if (json)
                    {
                        out().println(new Json().put("type", "resend_complete").put("last_seq", complete.getLastSeq())
                            .put("events_resent", complete.getEventsResent()));
                    }
                    else
                    {
                        err().println("-- " + complete.getEventsResent() + " past events resent; live from here --");
                    }
                }
                else if (message instanceof StreamListener.Disconnected lost)
                {
                    err().println(name() + ": disconnected: " + lost.reason() + (lost.reconnecting() ? "; reconnecting" : ""));
                    if (!lost.reconnecting())
                    {
                        return CliException.CONNECTION;
                    }
                }
                else if (message instanceof StreamListener.Reconnected)
                {
                    err().println(name() + ": reconnected; resuming after event #" + client.lastSeq());
                }
                out().flush();
                err().flush();
            }
            return 0;
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("watch", args);
    }
}
