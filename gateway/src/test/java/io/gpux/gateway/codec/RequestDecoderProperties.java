package io.gpux.gateway.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.engine.StressTries;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.MassCancel;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Replace;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's allocation-free request decoder against the generated parser it replaces on the hot
 * path. Random requests of every hot kind, encoded by the generated classes, laid out as any client
 * may (fields in any order, a body given in two parts, unknown fields of every wire type, groups
 * included), decode to exactly the fields the generated parser reads from the same bytes, and stage
 * exactly the engine command the old handler staged from the generated messages (kept below as the
 * oracle). Any bytes at all (random, or valid requests mutated) are either decoded to what the
 * generated parser reads, or left to it; a frame is refused exactly when the generated parser
 * refuses it, with its message.
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class RequestDecoderProperties
{
    static final long[] EDGE = {0, 1, -1, 2, 127, 128, 16_383, 16_384, 1_000_000, 1_000_001, Integer.MAX_VALUE,
        Integer.MIN_VALUE, 0xFFFF_FFFFL, 1L << 32, Long.MAX_VALUE, Long.MIN_VALUE};
    static final List<String> NAMES = List.of("H100-SXM-80G", "A100-80G", "L40S-48G", "", "eu", "us-east-1",
        "\u00e9t\u00e9", "\u5e02\u573a", "\uD83D\uDE80x", "\u0000", "h100-sxm-80g", "a".repeat(200));
    static final List<String> MARKETS = List.of("H100-SXM-80G", "A100-80G", "L40S-48G");
    private static final long ACCOUNT = 42;

    /** What a hot request says: from the generated messages, or from the decoder's HotRequest. */
    record Fields(Envelope.BodyCase kind, long requestId, long orderId, long machineId, long leaseId, int gpus,
        long price, int tif, boolean postOnly, boolean gang, boolean reclaim, long minReliabilityPpm, long maxDurationMs,
        boolean hasPrice, boolean hasGpus, String market, String region, int telemetry)
    {
    }

    static Fields expected(final Envelope env)
    {
        final long rid = env.getRequestId();
        final Envelope.BodyCase k = env.getBodyCase();
        return switch (k)
        {
            case PLACE_BID ->
            {
                final PlaceBid b = env.getPlaceBid();
                yield new Fields(k, rid, b.getOrderId(), 0, 0, b.getGpus(), b.getPrice(), b.getTifValue(), b.getPostOnly(),
                    b.getGang(), false, b.getMinReliabilityPpm(), b.getMaxDurationMs(), false, false, b.getMarket(),
                    b.getRegion(), 0);
            }
            case PLACE_ASK ->
            {
                final PlaceAsk a = env.getPlaceAsk();
                yield new Fields(k, rid, a.getOrderId(), a.getMachineId(), 0, a.getGpus(), a.getPrice(), a.getTifValue(),
                    a.getPostOnly(), false, false, 0, 0, false, false, "", "", 0);
            }
            case CANCEL -> new Fields(k, rid, env.getCancel().getOrderId(), 0, 0, 0, 0, 0, false, false,
                env.getCancel().getReclaim(), 0, 0, false, false, "", "", 0);
            case REPLACE ->
            {
                final Replace r = env.getReplace();
                yield new Fields(k, rid, r.getOrderId(), 0, 0, r.getGpus(), r.getPrice(), 0, false, false, false, 0, 0,
                    r.hasPrice(), r.hasGpus(), "", "", 0);
            }
            case MASS_CANCEL -> new Fields(k, rid, 0, 0, 0, 0, 0, 0, false, false, false, 0, 0, false, false,
                env.getMassCancel().getMarket(), "", 0);
            case RELEASE -> new Fields(k, rid, 0, 0, env.getRelease().getLeaseId(), 0, 0, 0, false, false, false, 0, 0,
                false, false, "", "", 0);
            case MACHINE_HEARTBEAT -> new Fields(k, rid, 0, env.getMachineHeartbeat().getMachineId(), 0, 0, 0, 0, false,
                false, false, 0, 0, false, false, "", "", env.getMachineHeartbeat().getGpusCount());
            case HEARTBEAT -> new Fields(k, rid, 0, 0, 0, 0, 0, 0, false, false, false, 0, 0, false, false, "", "", 0);
            default -> throw new AssertionError("not a hot request: " + k);
        };
    }

    static Fields actual(final HotRequest r)
    {
        return new Fields(r.kind, r.requestId, r.orderId, r.machineId, r.leaseId, r.gpus, r.price, r.tif, r.postOnly,
            r.gang, r.reclaim, r.minReliabilityPpm, r.maxDurationMs, r.hasPrice, r.hasGpus, r.marketString(),
            new String(r.bytes(), r.regionOffset(), r.regionLength(), StandardCharsets.UTF_8),
            r.telemetry == null ? 0 : r.telemetry.size());
    }

    // ------------------------------------------------------------------------------------------- generators

    @Provide
    Arbitrary<Long> anyLong()
    {
        return Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.of(java.util.Arrays.stream(EDGE).boxed().toList())),
            Tuple.of(2, Arbitraries.longs().between(0, 100_000)),
            Tuple.of(2, Arbitraries.longs()));
    }

    Arbitrary<Integer> anyInt()
    {
        return anyLong().map(Long::intValue);
    }

    Arbitrary<String> anyName()
    {
        return Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.of(NAMES)),
            Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
    }

    Arbitrary<Boolean> anyBool()
    {
        return Arbitraries.of(true, false);
    }

    Arbitrary<Envelope> placeBids()
    {
        return Builders.withBuilder(PlaceBid::newBuilder)
            .use(anyLong()).withProbability(0.8).in(PlaceBid.Builder::setOrderId)
            .use(anyName()).withProbability(0.9).in(PlaceBid.Builder::setMarket)
            .use(anyInt()).withProbability(0.8).in(PlaceBid.Builder::setGpus)
            .use(anyLong()).withProbability(0.8).in(PlaceBid.Builder::setPrice)
            .use(Arbitraries.integers().between(-1, 4)).withProbability(0.5).in(PlaceBid.Builder::setTifValue)
            .use(anyBool()).withProbability(0.5).in(PlaceBid.Builder::setPostOnly)
            .use(anyBool()).withProbability(0.5).in(PlaceBid.Builder::setGang)
            .use(anyLong()).withProbability(0.4).in(PlaceBid.Builder::setMinReliabilityPpm)
            .use(anyName()).withProbability(0.4).in(PlaceBid.Builder::setRegion)
            .use(anyLong()).withProbability(0.4).in(PlaceBid.Builder::setMaxDurationMs)
            .build(b -> Envelope.newBuilder().setPlaceBid(b).build());
    }

    Arbitrary<Envelope> placeAsks()
    {
        return Builders.withBuilder(PlaceAsk::newBuilder)
            .use(anyLong()).withProbability(0.8).in(PlaceAsk.Builder::setOrderId)
            .use(anyLong()).withProbability(0.8).in(PlaceAsk.Builder::setMachineId)
            .use(anyInt()).withProbability(0.8).in(PlaceAsk.Builder::setGpus)
            .use(anyLong()).withProbability(0.8).in(PlaceAsk.Builder::setPrice)
            .use(Arbitraries.integers().between(-1, 4)).withProbability(0.5).in(PlaceAsk.Builder::setTifValue)
            .use(anyBool()).withProbability(0.5).in(PlaceAsk.Builder::setPostOnly)
            .build(b -> Envelope.newBuilder().setPlaceAsk(b).build());
    }

    Arbitrary<Envelope> cancels()
    {
        return Combinators.combine(anyLong(), anyBool())
            .as((id, reclaim) -> Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(id).setReclaim(reclaim)).build());
    }

    Arbitrary<Envelope> replaces()
    {
        return Builders.withBuilder(Replace::newBuilder)
            .use(anyLong()).withProbability(0.9).in(Replace.Builder::setOrderId)
            .use(anyLong()).withProbability(0.6).in(Replace.Builder::setPrice)
            .use(anyInt()).withProbability(0.6).in(Replace.Builder::setGpus)
            .build(b -> Envelope.newBuilder().setReplace(b).build());
    }

    Arbitrary<Envelope> others()
    {
        return Arbitraries.oneOf(
            anyName().map(m -> Envelope.newBuilder().setMassCancel(MassCancel.newBuilder().setMarket(m)).build()),
            anyLong().map(l -> Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(l)).build()),
            Combinators.combine(anyLong(), Arbitraries.integers().between(0, 2)).as((id, n) ->
            {
                final MachineHeartbeat.Builder h = MachineHeartbeat.newBuilder().setMachineId(id);
                for (int i = 0; i < n; i++)
                {
                    h.addGpus(GpuTelemetry.newBuilder().setUuid("GPU-" + i).setUtilizationPct(50 + i).setPowerDrawMw(300_000));
                }
                return Envelope.newBuilder().setMachineHeartbeat(h).build();
            }),
            anyLong().map(t -> Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setTimeMs(t)).build()));
    }

    @Provide
    Arbitrary<Envelope> hotEnvelopes()
    {
        return Combinators.combine(Arbitraries.oneOf(placeBids(), placeAsks(), cancels(), replaces(), others()), anyLong(),
            anyBool()).as((env, rid, withId) -> withId ? env.toBuilder().setRequestId(rid).build() : env);
    }

    @Provide
    Arbitrary<Envelope> orderEnvelopes()
    {
        return Combinators.combine(Arbitraries.oneOf(placeBids(), placeAsks(), cancels(), replaces()), anyLong())
            .as((env, rid) -> env.toBuilder().setRequestId(rid).build());
    }

    /** Random bytes, or hot requests laid out with noise and then mutated. */
    @Provide
    Arbitrary<byte[]> anyBytes()
    {
        final Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(48);
        final Arbitrary<byte[]> mutated = Combinators.combine(hotEnvelopes(), Arbitraries.longs())
            .as((env, seed) ->
            {
                final Random r = new Random(seed);
                return WireInput.mutate(WireInput.layout(env, r, r.nextBoolean()), r);
            });
        return Arbitraries.frequencyOf(Tuple.of(1, random), Tuple.of(4, mutated));
    }

    /** Bytes that are mostly UTF-8's edge cases: lead bytes, continuation bytes, overlong and surrogate starts. */
    @Provide
    Arbitrary<byte[]> utf8ish()
    {
        final Arbitrary<Byte> tricky = Arbitraries.of(0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1,
            0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe, 0xff).map(i -> (byte)(int)i);
        final Arbitrary<byte[]> valid = Arbitraries.strings().ofMaxLength(10).map(s -> s.getBytes(StandardCharsets.UTF_8));
        final Arbitrary<byte[]> edgy = tricky.array(byte[].class).ofMaxSize(8);
        return Arbitraries.oneOf(valid, edgy, Combinators.combine(valid, edgy).as(WireInput::concat));
    }

    // ------------------------------------------------------------------------------------------- properties

    @Property(tries = 750)
    void hotRequestsDecodeToWhatTheGeneratedParserReads(
        @ForAll("hotEnvelopes") final Envelope env, @ForAll final long layoutSeed) throws InvalidProtocolBufferException
    {
        final Random r = new Random(layoutSeed);
        final boolean noise = r.nextBoolean();
        final byte[] bytes = noise ? WireInput.layout(env, r, true) : env.toByteArray();
        final Envelope parsed = Envelope.parseFrom(bytes);
        assertEquals(env.getBodyCase(), parsed.getBodyCase());
        final boolean telemetry = parsed.getBodyCase() == Envelope.BodyCase.MACHINE_HEARTBEAT
            && parsed.getMachineHeartbeat().getGpusCount() > 0;
        Statistics.label("kind").collect(env.getBodyCase());
        Statistics.label("layout").collect(noise ? "noise" : "as serialized");

        // read where it lies in a larger array, between bytes that are not its own
        final byte[] padded = WireInput.concat(new byte[] {0x0b, (byte)0xff}, bytes, new byte[] {(byte)0x80, 0x0c});
        final HotRequest request = new HotRequest();
        final boolean read = new RequestDecoder().read(padded, 2, bytes.length, request);
        assertEquals(!telemetry, read, "only a machine heartbeat with telemetry is left to the generated parser");
        if (read)
        {
            assertEquals(expected(parsed), actual(request));
        }
        // what the gateway gets through either path
        final Object decoded = decode(new RequestDecoder(), bytes);
        final HotRequest hot = decoded instanceof HotRequest h ? h : new HotRequest().readFrom((Envelope)decoded);
        assertEquals(expected(parsed), actual(hot));
        assertEquals(expected(parsed), actual(new HotRequest().readFrom(parsed)));
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
            final HotRequest request = (HotRequest)decode(decoder, bytes);
            assertEquals(old, stage(request, directory, symbols), "pass " + i);
        }
        Statistics.label("outcome").collect(old.startsWith("type=") ? env.getBodyCase().toString() : old.split(" ")[0]);
    }

    @Property(tries = 1250)
    void anyBytesAreDecodedAsTheGeneratedParserDecodesThemOrLeftToIt(@ForAll("anyBytes") final byte[] bytes)
    {
        Envelope parsed = null;
        String refused = null;
        try
        {
            parsed = Envelope.parseFrom(bytes);
        }
        catch (final InvalidProtocolBufferException ex)
        {
            refused = ex.getMessage();
        }
        final HotRequest request = new HotRequest();
        if (new RequestDecoder().read(bytes, 0, bytes.length, request))
        {
            assertNotNull(parsed, "decoded what the generated parser refuses: " + refused);
            assertEquals(expected(parsed), actual(request));
            Statistics.label("outcome").collect("read here");
        }
        else
        {
            Statistics.label("outcome").collect(parsed == null ? "refused" : "left to the generated parser");
        }
        try
        {
            final Object decoded = decode(new RequestDecoder(), bytes);
            assertNotNull(parsed, "decoded what the generated parser refuses: " + refused);
            if (decoded instanceof HotRequest h)
            {
                assertEquals(expected(parsed), actual(h));
            }
            else
            {
                assertEquals(parsed, decoded);
            }
        }
        catch (final InvalidProtocolBufferException ex)
        {
            assertEquals(refused, ex.getMessage(), "refused, with the generated parser's message");
        }
    }

    @Property(tries = 1250)
    void utf8IsCheckedAsProtobufChecksIt(@ForAll("utf8ish") final byte[] bytes)
    {
        final byte[] padded = WireInput.concat(new byte[] {(byte)0xe0}, bytes, new byte[] {(byte)0x80});
        assertEquals(ByteString.copyFrom(bytes).isValidUtf8(), WireReader.isValidUtf8(padded, 1, bytes.length));
    }

    @Property(tries = 500)
    void regionIdsFromBytesAreTheDirectorysNameIds(@ForAll final String name)
    {
        final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        // on the wire a region is valid UTF-8: the String protobuf decodes from it has the same bytes again
        assertEquals(Directory.nameId(new String(utf8, StandardCharsets.UTF_8)), HotRequest.nameId(utf8, 0, utf8.length));
    }

    @Property(tries = 100)
    void theSymbolCacheNeverAnswersAnotherName(
        @ForAll("symbolOps") final List<Tuple.Tuple2<Boolean, Integer>> ops)
    {
        final SymbolCache cache = new SymbolCache();
        final Map<String, String> model = new HashMap<>();
        final List<String> universe = new ArrayList<>();
        for (int i = 0; i < 600; i++)
        {
            universe.add(i % 3 == 0 ? "M-" + i : "\u00e9" + i);
        }
        for (final Tuple.Tuple2<Boolean, Integer> op : ops)
        {
            final String name = universe.get(op.get2());
            final byte[] framed = WireInput.concat(new byte[] {1, 2, 3}, name.getBytes(StandardCharsets.UTF_8), new byte[] {4});
            final int length = framed.length - 4;
            if (op.get1())
            {
                cache.put(framed, 3, length, name);
                model.put(name, name);
                assertEquals(name, cache.get(framed, 3, length), "just put");
            }
            else
            {
                final String got = cache.get(framed, 3, length);
                if (got != null)
                {
                    assertEquals(name, got);
                    assertTrue(model.containsKey(name));
                }
            }
        }
        assertEquals("", cache.get(new byte[0], 0, 0));
    }

    @Provide
    Arbitrary<List<Tuple.Tuple2<Boolean, Integer>>> symbolOps()
    {
        return Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, 599)).as(Tuple::of)
            .list().ofMaxSize(2000);
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

    /** Decodes the bytes from a direct buffer, as the gateway gets them from the epoll transport; the buffer is released. */
    static Object decode(final RequestDecoder decoder, final byte[] bytes) throws InvalidProtocolBufferException
    {
        final ByteBuf frame = Unpooled.directBuffer(bytes.length + 3).writeBytes(new byte[] {7, 7, 7}).writeBytes(bytes);
        try
        {
            frame.skipBytes(3);
            return decoder.decode(frame);
        }
        finally
        {
            frame.release();
        }
    }
}
