package io.gpux.bench.xc;

import exchange.core2.collections.objpool.ObjectsPool;
import exchange.core2.core.common.CoreSymbolSpecification;
import exchange.core2.core.common.MatcherEventType;
import exchange.core2.core.common.MatcherTradeEvent;
import exchange.core2.core.common.OrderAction;
import exchange.core2.core.common.OrderType;
import exchange.core2.core.common.SymbolType;
import exchange.core2.core.common.cmd.CommandResultCode;
import exchange.core2.core.common.cmd.OrderCommand;
import exchange.core2.core.common.cmd.OrderCommandType;
import exchange.core2.core.common.config.LoggingConfiguration;
import exchange.core2.core.orderbook.IOrderBook;
import exchange.core2.core.orderbook.OrderBookDirectImpl;
import exchange.core2.core.orderbook.OrderBookEventsHelper;
import exchange.core2.core.orderbook.OrderBookNaiveImpl;

import java.util.HashMap;

/**
 * Feeds an {@link OrderFlow} to one of exchange-core's order books, as its matching engine router does: each
 * flow command filled into one reused {@link OrderCommand} and handed to {@link IOrderBook#processCommand}; the
 * trade events it chains to the command are counted and dropped (exchange-core 0.5.3 ships with
 * {@code EVENTS_POOLING = false}: the book allocates one {@link MatcherTradeEvent} per trade, reduce or reject).
 * The flow ends with an empty book, so it repeats for ever. The run loop allocates nothing of its own.
 */
public final class BookReplayer
{
    public static final int SYMBOL = 1;
    public static final int BASE = 1;
    public static final int QUOTE = 2;

    final OrderFlow flow;
    final IOrderBook book;
    private final OrderCommand cmd = new OrderCommand();
    private int cursor;
    private long passes;
    private long applied;
    private long trades;
    private long volume;
    private long failed;
    private CommandResultCode firstFailure;

    public BookReplayer(final OrderFlow flow, final String impl)
    {
        this.flow = flow;
        final CoreSymbolSpecification spec = symbol();
        book = switch (impl)
        {
            case "direct" -> new OrderBookDirectImpl(spec, objectsPool(), OrderBookEventsHelper.NON_POOLED_EVENTS_HELPER,
                LoggingConfiguration.DEFAULT);
            case "naive" -> new OrderBookNaiveImpl(spec, LoggingConfiguration.DEFAULT);
            default -> throw new IllegalArgumentException("unknown exchange-core order book '" + impl + "' (direct, naive)");
        };
    }

    /** An exchange pair without fees: the plain book, as gpux's side runs it (one market, no fees). */
    public static CoreSymbolSpecification symbol()
    {
        return CoreSymbolSpecification.builder().symbolId(SYMBOL).type(SymbolType.CURRENCY_EXCHANGE_PAIR)
            .baseCurrency(BASE).quoteCurrency(QUOTE).baseScaleK(1).quoteScaleK(1).takerFee(0).makerFee(0).build();
    }

    /** The object pool sizes of exchange-core's MatchingEngineRouter. */
    static ObjectsPool objectsPool()
    {
        final HashMap<Integer, Integer> config = new HashMap<>();
        config.put(ObjectsPool.DIRECT_ORDER, 1024 * 1024);
        config.put(ObjectsPool.DIRECT_BUCKET, 1024 * 64);
        config.put(ObjectsPool.ART_NODE_4, 1024 * 32);
        config.put(ObjectsPool.ART_NODE_16, 1024 * 16);
        config.put(ObjectsPool.ART_NODE_48, 1024 * 8);
        config.put(ObjectsPool.ART_NODE_256, 1024 * 4);
        return new ObjectsPool(config);
    }

    /** Applies the next n flow commands of the endless stream; returns the trades so far (for the blackhole). */
    public long run(final int n)
    {
        final OrderFlow f = flow;
        final OrderCommand c = cmd;
        final IOrderBook b = book;
        int i = cursor;
        for (int k = 0; k < n; k++)
        {
            final byte type = f.type[i];
            c.orderId = f.orderId[i];
            c.uid = f.uid[i];
            c.symbol = SYMBOL;
            c.timestamp = f.timeMs[i];
            c.matcherEvent = null;
            if (OrderFlow.isPlace(type))
            {
                final boolean bid = OrderFlow.isBid(type);
                c.command = OrderCommandType.PLACE_ORDER;
                c.resultCode = CommandResultCode.VALID_FOR_MATCHING_ENGINE;
                c.action = bid ? OrderAction.BID : OrderAction.ASK;
                c.orderType = OrderFlow.isIoc(type) ? OrderType.IOC : OrderType.GTC;
                c.price = f.price[i];
                c.reserveBidPrice = bid ? f.maxPrice : 0;
                c.size = f.size[i];
            }
            else
            {
                c.command = type == OrderFlow.CANCEL ? OrderCommandType.CANCEL_ORDER
                    : type == OrderFlow.MOVE ? OrderCommandType.MOVE_ORDER : OrderCommandType.REDUCE_ORDER;
                c.resultCode = CommandResultCode.VALID_FOR_MATCHING_ENGINE;
                c.price = f.price[i];
                c.size = f.size[i];
            }
            final CommandResultCode result = IOrderBook.processCommand(b, c);
            if (result != CommandResultCode.SUCCESS)
            {
                failed(result);
            }
            for (MatcherTradeEvent e = c.matcherEvent; e != null; e = e.nextEvent)
            {
                if (e.eventType == MatcherEventType.TRADE)
                {
                    trades++;
                    volume += e.size;
                }
            }
            c.matcherEvent = null;
            if (++i == f.type.length)
            {
                i = 0;
                passes++;
            }
        }
        cursor = i;
        applied += n;
        return trades;
    }

    private void failed(final CommandResultCode result)
    {
        if (failed++ == 0)
        {
            firstFailure = result;
        }
    }

    /** Runs to the end of the current pass. */
    public void finishPass()
    {
        run(flow.size() - cursor);
    }

    /**
     * Checks that every command succeeded and that each pass traded what the flow's reference book did (so the
     * book did the same work as gpux's on the same flow).
     *
     * @throws IllegalStateException if not.
     */
    public void check()
    {
        if (failed != 0)
        {
            throw new IllegalStateException(flow.name + ": exchange-core failed " + failed + " commands, first " + firstFailure);
        }
        final long expected = passes * flow.trades;
        if (trades < expected || trades > expected + flow.trades)
        {
            throw new IllegalStateException(flow.name + ": exchange-core traded " + trades + " times in " + passes +
                " passes, the flow's reference book " + flow.trades + " a pass");
        }
    }

    /** Replays three passes on a fresh book and checks trades and quantity per pass against the flow's. */
    public static void verify(final OrderFlow flow, final String impl)
    {
        final BookReplayer r = new BookReplayer(flow, impl);
        for (int p = 0; p < 3; p++)
        {
            final long trades0 = r.trades;
            final long volume0 = r.volume;
            r.finishPass();
            r.check();
            if (r.trades - trades0 != flow.trades || r.volume - volume0 != flow.volume)
            {
                throw new IllegalStateException(String.format("%s: exchange-core %s pass %d traded %d times (%d units), " +
                    "the reference book %d (%d)", flow.name, impl, p, r.trades - trades0, r.volume - volume0, flow.trades,
                    flow.volume));
            }
        }
    }

    public long passes()
    {
        return passes;
    }

    public long applied()
    {
        return applied;
    }
}
