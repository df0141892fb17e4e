package io.gpux.gateway.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.engine.StressTries;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Replace;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Hot orders (bids, asks, cancels, replaces), laid out as any client may, stage exactly the engine command that the
 * old handler staged from the generated messages (kept here as the oracle), the market symbol resolved once and then
 * through the cache.
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class OrderStagingProperties
{
    private static final long ACCOUNT = 42;
    private static final List<String> MARKETS = List.of("H100-SXM-80G", "A100-80G", "L40S-48G");

    @Provide
    Arbitrary<Envelope> orderEnvelopes()
    {
        return HotRequestArbitraries.orderEnvelopes();
    }

    @Property(tries = 500)
    void ordersStageTheCommandTheOldHandlerStaged(@ForAll("orderEnvelopes") final Envelope env, @ForAll final long layoutSeed)
        throws InvalidProtocolBufferException
    {
        final Directory directory = new Directory();
        for (final String m : MARKETS)
        {
            directory.newMarket(m);
        }
        final Random r = new Random(layoutSeed);
        final byte[] bytes = WireInput.layout(env, r, r.nextBoolean());
        final String old = OldHandler.stage(Envelope.parseFrom(bytes), directory);
        final RequestDecoder decoder = new RequestDecoder();
        final SymbolCache symbols = new SymbolCache();
        // twice: the market symbol resolved once, then through the cache
        for (int i = 0; i < 2; i++)
        {
            final HotRequest request = (HotRequest)RequestDecoderProperties.decode(decoder, bytes);
            assertEquals(old, stage(request, directory, symbols), "pass " + i);
        }
        Statistics.label("outcome").collect(old.startsWith("type=") ? env.getBodyCase().toString() : old.split(" ")[0]);
    }

    // ------------------------------------------------------------------------------------------- the handler's staging

    /** What the gateway handler now does with a hot order (OrderEntry.bid/ask/replace, cancel). */
    static String stage(final HotRequest r, final Directory directory, final SymbolCache symbols)
    {
        final Command staged = new Command();
        switch (r.kind)
        {
            case PLACE_BID ->
            {
                String symbol = symbols.get(r.bytes(), r.marketOffset(), r.marketLength());
                final Directory.MarketEntry m;
                if (symbol == null)
                {
                    symbol = new String(r.bytes(), r.marketOffset(), r.marketLength(), StandardCharsets.UTF_8);
                    m = directory.market(symbol);
                    if (m != null)
                    {
                        symbols.put(r.bytes(), r.marketOffset(), r.marketLength(), m.symbol());
                    }
                }
                else
                {
                    m = directory.market(symbol);
                }
                if (m == null)
                {
                    return "UNKNOWN_MARKET " + r.marketString();
                }
                if (r.minReliabilityPpm > 1_000_000 || r.maxDurationMs < 0 || r.gpus < 0 || !HotRequest.isTimeInForce(r.tif))
                {
                    return "INVALID_REQUEST";
                }
                staged.reset(CommandType.BID, 0);
                staged.accountId = ACCOUNT;
                staged.marketId = m.id();
                r.toBid(staged);
            }
            case PLACE_ASK ->
            {
                if (r.gpus < 0 || !HotRequest.isTimeInForce(r.tif))
                {
                    return "INVALID_REQUEST";
                }
                staged.reset(CommandType.ASK, 0);
                staged.accountId = ACCOUNT;
                r.toAsk(staged);
            }
            case CANCEL ->
            {
                staged.reset(CommandType.CANCEL, 0);
                staged.accountId = ACCOUNT;
                r.toCancel(staged);
            }
            case REPLACE ->
            {
                if (!r.hasPrice && !r.hasGpus || r.hasGpus && r.gpus < 0)
                {
                    return "INVALID_REQUEST";
                }
                staged.reset(CommandType.REPLACE, 0);
                staged.accountId = ACCOUNT;
                r.toReplace(staged);
            }
            default -> throw new AssertionError(r.kind);
        }
        return describe(staged) + " request=" + r.requestId;
    }

    /** Staging from the generated messages (no hot path), the oracle. */
    static final class OldHandler
    {
        static String stage(final Envelope env, final Directory directory)
        {
            final Command staged = new Command();
            switch (env.getBodyCase())
            {
                case PLACE_BID ->
                {
                    final PlaceBid b = env.getPlaceBid();
                    final Directory.MarketEntry m = directory.market(b.getMarket());
                    if (m == null)
                    {
                        return "UNKNOWN_MARKET " + b.getMarket();
                    }
                    if (b.getMinReliabilityPpm() > 1_000_000 || b.getMaxDurationMs() < 0 || b.getGpus() < 0
                        || b.getTifValue() < 0 || b.getTifValue() > 2)
                    {
                        return "INVALID_REQUEST";
                    }
                    stage(staged, CommandType.BID);
                    staged.orderId = b.getOrderId();
                    staged.marketId = m.id();
                    staged.gpus = b.getGpus();
                    staged.price = b.getPrice();
                    staged.tif = tif(b.getTifValue());
                    staged.postOnly = b.getPostOnly();
                    staged.gang = b.getGang();
                    staged.noPreempt = b.getNoPreempt();
                    staged.minReliabilityPpb = b.getMinReliabilityPpm() == 0 ? Command.ABSENT : b.getMinReliabilityPpm() * 1000;
                    staged.regionId = Directory.nameId(b.getRegion());
                    staged.maxDurationMs = b.getMaxDurationMs() == 0 ? Command.ABSENT : b.getMaxDurationMs();
                }
                case PLACE_ASK ->
                {
                    final PlaceAsk a = env.getPlaceAsk();
                    if (a.getGpus() < 0 || a.getTifValue() < 0 || a.getTifValue() > 2)
                    {
                        return "INVALID_REQUEST";
                    }
                    stage(staged, CommandType.ASK);
                    staged.orderId = a.getOrderId();
                    staged.machineId = a.getMachineId();
                    staged.gpus = a.getGpus();
                    staged.price = a.getPrice();
                    staged.tif = tif(a.getTifValue());
                    staged.postOnly = a.getPostOnly();
                }
                case CANCEL ->
                {
                    stage(staged, CommandType.CANCEL);
                    staged.orderId = env.getCancel().getOrderId();
                    staged.reclaim = env.getCancel().getReclaim();
                }
                case REPLACE ->
                {
                    final Replace r = env.getReplace();
                    if (!r.hasPrice() && !r.hasGpus() || r.hasGpus() && r.getGpus() < 0)
                    {
                        return "INVALID_REQUEST";
                    }
                    stage(staged, CommandType.REPLACE);
                    staged.orderId = r.getOrderId();
                    if (r.hasPrice())
                    {
                        staged.price = r.getPrice();
                    }
                    if (r.hasGpus())
                    {
                        staged.gpus = r.getGpus();
                    }
                }
                default -> throw new AssertionError(env.getBodyCase());
            }
            return describe(staged) + " request=" + env.getRequestId();
        }

        private static void stage(final Command staged, final CommandType type)
        {
            staged.reset(type, 0);
            staged.accountId = ACCOUNT;
        }

        private static TimeInForce tif(final int value)
        {
            return switch (value)
            {
                case 1 -> TimeInForce.IOC;
                case 2 -> TimeInForce.FOK;
                default -> TimeInForce.GTC;
            };
        }
    }

    /** Every public field of a command. */
    static String describe(final Command c)
    {
        final StringBuilder b = new StringBuilder();
        for (final Field f : Command.class.getFields())
        {
            if (java.lang.reflect.Modifier.isStatic(f.getModifiers()))
            {
                continue;
            }
            try
            {
                b.append(f.getName()).append('=').append(f.get(c)).append(' ');
            }
            catch (final IllegalAccessException ex)
            {
                throw new AssertionError(ex);
            }
        }
        return b.toString().trim();
    }
}
