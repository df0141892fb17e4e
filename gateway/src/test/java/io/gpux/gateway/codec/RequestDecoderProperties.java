package io.gpux.gateway.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.engine.StressTries;
import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Replace;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

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
 * included), decode to exactly the fields the generated parser reads from the same bytes
 * ({@link OrderStagingProperties}: and stage the command the old handler staged). Any bytes at all
 * (random, or valid requests mutated) are either decoded to what the generated parser reads, or left
 * to it; a frame is refused exactly when the generated parser refuses it, with its message.
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class RequestDecoderProperties
{
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
    Arbitrary<Envelope> hotEnvelopes()
    {
        return HotRequestArbitraries.hotEnvelopes();
    }

    @Provide
    Arbitrary<byte[]> anyBytes()
    {
        return HotRequestArbitraries.anyBytes();
    }

    @Provide
    Arbitrary<byte[]> utf8ish()
    {
        return HotRequestArbitraries.utf8ish();
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
