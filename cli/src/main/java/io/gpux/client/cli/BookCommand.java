package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Level;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Trade;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpux book}: a market's order book as a price ladder; {@code --follow} goes on with updates and trades. */
@Command(name = "book", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Prints a market's book (best 20 levels a side, aggregated) as a ladder: asks above, bids below.",
        "With --follow, goes on printing level changes and trades until Ctrl-C.",
        "Needs no key: without --key-file or GPUX_KEY_ID it logs in as a market-data session."})
public final class BookCommand extends ClientCommand
{
    @Option(names = "--market", required = true, paramLabel = "SYMBOL", description = "the market (any case); an unknown one lists the markets")
    String market;

    @Option(names = "--depth", paramLabel = "N", defaultValue = "20", description = "levels per side (default ${DEFAULT-VALUE})")
    int depth;

    @Option(names = "--follow", description = "keep printing book updates and trades")
    boolean follow;

    @Option(names = "--max-events", paramLabel = "N", defaultValue = "0",
        description = "with --follow: stop after N updates and trades (default: never)")
    long maxEvents;

    @Override
    int execute() throws Exception
    {
        if (depth < 1)
        {
            throw CliException.usage("--depth must be at least 1, got " + depth);
        }
        final StreamListener stream = new StreamListener(false, market);
        try (GpuxClient client = connectForMarketData(stream))
        {
            final MarketDirectory markets = MarketDirectory.fetch(client, timeout());
            final long subscription = client.subscribe(markets.resolve(market));
            long printed = 0;
            boolean snapshotSeen = false;
            while (true)
            {
                final Object message = snapshotSeen ? stream.next() : stream.next(connection.timeoutMs);
                if (message == null)
                {
                    throw CliException.connection("no book snapshot within " + connection.timeoutMs + " ms");
                }
                if (message instanceof StreamListener.Answer answer && answer.requestId() == subscription && !snapshotSeen)
                {
                    final Reason reason = answer.response().getReason();
                    return printResult(answer.response(), new Json().put("market", market),
                        reason == Reason.UNKNOWN_MARKET ? markets.unknownMarket(market) : null);
                }
                else if (message instanceof BookSnapshot snapshot)
                {
                    printSnapshot(snapshot);
                    snapshotSeen = true;
                    if (!follow)
                    {
                        return 0;
                    }
                }
                else if (message instanceof BookUpdate update)
                {
                    printUpdate(update);
                    printed++;
                }
                else if (message instanceof Trade trade)
                {
                    printTrade(trade);
                    printed++;
                }
                else if (message instanceof StreamListener.Disconnected lost)
                {
                    err().println(name() + ": disconnected: " + lost.reason() + (lost.reconnecting() ? "; reconnecting" : ""));
                    err().flush();
                    if (!lost.reconnecting())
                    {
                        return CliException.CONNECTION;
                    }
                }
                out().flush();
                if (maxEvents > 0 && printed >= maxEvents)
                {
                    return 0;
                }
            }
        }
    }

    private void printSnapshot(final BookSnapshot s)
    {
        final int bids = Math.min(depth, s.getBidsCount());
        final int asks = Math.min(depth, s.getAsksCount());
        if (json)
        {
            out().println(new Json().put("type", "book").put("market", s.getMarket()).put("update_seq", s.getUpdateSeq())
                .put("bids", levels(s.getBidsList().subList(0, bids)))
                .put("asks", levels(s.getAsksList().subList(0, asks))));
            return;
        }
        out().println(s.getMarket() + "  (update " + s.getUpdateSeq() + ")");
        if (bids == 0 && asks == 0)
        {
            out().println("the book is empty");
            return;
        }
        final Table ladder = new Table("SIDE", "PRICE", "GPUS");
        for (int i = asks - 1; i >= 0; i--)
        {
            ladder.row("ask", Format.price(s.getAsks(i).getPrice()), s.getAsks(i).getGpus());
        }
        for (int i = 0; i < bids; i++)
        {
            ladder.row("bid", Format.price(s.getBids(i).getPrice()), s.getBids(i).getGpus());
        }
        ladder.print(out());
    }

    private void printUpdate(final BookUpdate u)
    {
        if (json)
        {
            out().println(new Json().put("type", "book_update").put("market", u.getMarket()).put("update_seq", u.getUpdateSeq())
                .put("bids", levels(u.getBidsList())).put("asks", levels(u.getAsksList())));
            return;
        }
        for (final Level level : u.getAsksList())
        {
            out().println(levelLine(u.getUpdateSeq(), "ask", level));
        }
        for (final Level level : u.getBidsList())
        {
            out().println(levelLine(u.getUpdateSeq(), "bid", level));
        }
    }

    private void printTrade(final Trade t)
    {
        if (json)
        {
            out().println(new Json().put("type", "trade").put("market", t.getMarket()).put("gpus", t.getGpus())
                .put("price", Format.price(t.getPrice())).putTime("time", t.getTimeMs()).put("engine_seq", t.getEngineSeq()));
            return;
        }
        out().println("trade   " + Format.time(t.getTimeMs()) + "  " + t.getGpus() + " GPUs at " + Format.price(t.getPrice()));
    }

    private static String levelLine(final long seq, final String side, final Level level)
    {
        return "update " + seq + "  " + side + " " + Format.price(level.getPrice()) + "  "
            + (level.getGpus() == 0 ? "gone" : level.getGpus() + " GPUs");
    }

    private static List<Json> levels(final List<Level> levels)
    {
        final List<Json> out = new ArrayList<>(levels.size());
        for (final Level level : levels)
        {
            out.add(new Json().put("price", Format.price(level.getPrice())).put("gpus", level.getGpus()));
        }
        return out;
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("book", args);
    }
}
