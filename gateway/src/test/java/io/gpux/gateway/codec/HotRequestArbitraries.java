package io.gpux.gateway.codec;

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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Hot requests of every kind as the generated classes build them (edge values, names and markets included), and bytes
 * for the decoder to meet: hot requests laid out with noise and mutated, random bytes, UTF-8's edge cases.
 */
final class HotRequestArbitraries
{
    static final long[] EDGE = {0, 1, -1, 2, 127, 128, 16_383, 16_384, 1_000_000, 1_000_001, Integer.MAX_VALUE,
        Integer.MIN_VALUE, 0xFFFF_FFFFL, 1L << 32, Long.MAX_VALUE, Long.MIN_VALUE};
    static final List<String> NAMES = List.of("H100-SXM-80G", "A100-80G", "L40S-48G", "", "eu", "us-east-1",
        "\u00e9t\u00e9", "\u5e02\u573a", "\uD83D\uDE80x", "\u0000", "h100-sxm-80g", "a".repeat(200));

    private HotRequestArbitraries()
    {
    }

    static Arbitrary<Long> anyLong()
    {
        return Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.of(java.util.Arrays.stream(EDGE).boxed().toList())),
            Tuple.of(2, Arbitraries.longs().between(0, 100_000)),
            Tuple.of(2, Arbitraries.longs()));
    }

    static Arbitrary<Integer> anyInt()
    {
        return anyLong().map(Long::intValue);
    }

    static Arbitrary<String> anyName()
    {
        return Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.of(NAMES)),
            Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
    }

    static Arbitrary<Boolean> anyBool()
    {
        return Arbitraries.of(true, false);
    }

    static Arbitrary<Envelope> placeBids()
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

    static Arbitrary<Envelope> placeAsks()
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

    static Arbitrary<Envelope> cancels()
    {
        return Combinators.combine(anyLong(), anyBool())
            .as((id, reclaim) -> Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(id).setReclaim(reclaim)).build());
    }

    static Arbitrary<Envelope> replaces()
    {
        return Builders.withBuilder(Replace::newBuilder)
            .use(anyLong()).withProbability(0.9).in(Replace.Builder::setOrderId)
            .use(anyLong()).withProbability(0.6).in(Replace.Builder::setPrice)
            .use(anyInt()).withProbability(0.6).in(Replace.Builder::setGpus)
            .build(b -> Envelope.newBuilder().setReplace(b).build());
    }

    static Arbitrary<Envelope> others()
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

    static Arbitrary<Envelope> hotEnvelopes()
    {
        return Combinators.combine(Arbitraries.oneOf(placeBids(), placeAsks(), cancels(), replaces(), others()), anyLong(),
            anyBool()).as((env, rid, withId) -> withId ? env.toBuilder().setRequestId(rid).build() : env);
    }

    static Arbitrary<Envelope> orderEnvelopes()
    {
        return Combinators.combine(Arbitraries.oneOf(placeBids(), placeAsks(), cancels(), replaces()), anyLong())
            .as((env, rid) -> env.toBuilder().setRequestId(rid).build());
    }

    /** Random bytes, or hot requests laid out with noise and then mutated. */
    static Arbitrary<byte[]> anyBytes()
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
    static Arbitrary<byte[]> utf8ish()
    {
        final Arbitrary<Byte> tricky = Arbitraries.of(0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1,
            0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe, 0xff).map(i -> (byte)(int)i);
        final Arbitrary<byte[]> valid = Arbitraries.strings().ofMaxLength(10).map(s -> s.getBytes(StandardCharsets.UTF_8));
        final Arbitrary<byte[]> edgy = tricky.array(byte[].class).ofMaxSize(8);
        return Arbitraries.oneOf(valid, edgy, Combinators.combine(valid, edgy).as(WireInput::concat));
    }
}
