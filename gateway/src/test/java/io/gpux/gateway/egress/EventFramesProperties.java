package io.gpux.gateway.egress;

import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.engine.StressTries;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.RejectReason;
import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Trade;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The egress's direct encoder against the generated classes it replaced: for random events of every
 * private type (values at the edges of their types, negative ones included; reasons absent and
 * present; markets known and unknown), the frame {@link EventFrames} writes is byte for byte the frame
 * {@link Frames#write} made of the Envelope the builder mapping builds ({@link ProtoMapping#accountEvent},
 * which the egress used before and the simulator still uses), and parses with the generated classes
 * into that Envelope. The same for trades and command Responses, and
 * for many frames written one after another into one buffer.
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class EventFramesProperties
{
    private static final long[] EDGE = {0, 1, -1, 127, 128, 300, 16_384, Integer.MAX_VALUE, Integer.MIN_VALUE, 0xFFFF_FFFFL,
        1L << 35, Long.MAX_VALUE, Long.MIN_VALUE, 1_764_480_000_000L};
    private static final EventType[] PRIVATE = {EventType.ACCEPTED, EventType.REJECTED, EventType.CANCELLED, EventType.FILL,
        EventType.LEASE_STARTED, EventType.PREEMPT_NOTICE, EventType.LEASE_ENDED, EventType.SETTLED, EventType.BALANCE,
        EventType.MACHINE_ONLINE, EventType.MACHINE_OFFLINE};

    private static Directory directory()
    {
        final Directory d = new Directory();
        d.newMarket("H100-SXM-80G");
        d.newMarket("A100-80G");
        d.newMarket("L40S-48G");
        return d;
    }

    private static long anyLong(final Random r)
    {
        return switch (r.nextInt(4))
        {
            case 0 -> EDGE[r.nextInt(EDGE.length)];
            case 1 -> r.nextInt(1000);
            case 2 -> r.nextLong();
            default -> 0;
        };
    }

    private static <T> T anyOf(final Random r, final T[] values, final boolean orNull)
    {
        return orNull && r.nextInt(5) == 0 ? null : values[r.nextInt(values.length)];
    }

    /** An event of the type with every field random (what the type does not use included: it must not leak out). */
    static Event event(final EventType type, final Random r)
    {
        final Event e = new Event();
        e.type = type;
        e.sequence = anyLong(r);
        e.timeMs = anyLong(r);
        e.commandSequence = anyLong(r);
        e.orderId = anyLong(r);
        e.accountId = anyLong(r);
        e.counterOrderId = anyLong(r);
        e.leaseId = anyLong(r);
        e.preemptsLeaseId = anyLong(r);
        e.marketId = new long[] {0, 1, 2, 3, 99, -5, 70_000}[r.nextInt(7)];
        e.machineId = anyLong(r);
        e.renterId = anyLong(r);
        e.ownerId = anyLong(r);
        e.gpus = (int)anyLong(r);
        e.price = anyLong(r);
        e.remaining = (int)anyLong(r);
        e.effectiveMs = anyLong(r);
        e.cost = anyLong(r);
        e.fee = anyLong(r);
        e.charge = anyLong(r);
        e.period = (int)anyLong(r);
        e.ms = anyLong(r);
        e.balance = anyLong(r);
        e.available = anyLong(r);
        e.rejectReason = anyOf(r, RejectReason.values(), true);
        e.cancelReason = anyOf(r, CancelReason.values(), false);
        e.endReason = anyOf(r, EndReason.values(), false);
        e.noticeReason = anyOf(r, NoticeReason.values(), false);
        e.command = anyOf(r, CommandType.values(), true);
        return e;
    }

    private static byte[] oldFrame(final Envelope envelope)
    {
        final ByteBuf buf = Unpooled.buffer();
        Frames.write(envelope, buf);
        return ByteBufUtil.getBytes(buf);
    }

    private static Envelope parse(final byte[] frame) throws InvalidProtocolBufferException
    {
        assertEquals(frame.length - 4, Unpooled.wrappedBuffer(frame).readInt(), "the length prefix");
        return Envelope.parseFrom(Arrays.copyOfRange(frame, 4, frame.length));
    }

    @Provide
    Arbitrary<EventType> privateTypes()
    {
        return Arbitraries.of(PRIVATE);
    }

    @Property(tries = 1250)
    void accountEventFramesAreTheBytesTheGeneratedClassesWrote(
        @ForAll("privateTypes") final EventType type, @ForAll final long seed) throws InvalidProtocolBufferException
    {
        final Random r = new Random(seed);
        final Directory directory = directory();
        final Event e = event(type, r);
        final long recipient = r.nextBoolean() ? e.renterId : anyLong(r);
        final long seq = anyLong(r);
        final Envelope old = Envelope.newBuilder().setEvent(ProtoMapping.accountEvent(e, recipient, seq, directory)).build();

        final ByteBuf out = Unpooled.buffer(r.nextInt(64));
        out.writeBytes(new byte[r.nextInt(10)]);
        final int start = out.writerIndex();
        new EventFrames(directory).accountEvent(out, e, recipient, seq);
        final byte[] frame = ByteBufUtil.getBytes(out, start, out.writerIndex() - start);
        assertArrayEquals(oldFrame(old), frame);
        assertEquals(old, parse(frame));
        Statistics.label("type").collect(type);
    }

    @Property(tries = 500)
    void tradeFramesAreTheBytesTheGeneratedClassesWrote(@ForAll final long seed) throws InvalidProtocolBufferException
    {
        final Random r = new Random(seed);
        final Directory directory = directory();
        final Event e = event(EventType.TRADE, r);
        // Egress.route's Trade before EventFrames
        final Envelope old = Envelope.newBuilder().setTrade(Trade.newBuilder()
            .setMarket(directory.marketSymbol(e.marketId)).setGpus(e.gpus).setPrice(e.price)
            .setTimeMs(e.timeMs).setEngineSeq(e.sequence)).build();
        final ByteBuf out = Unpooled.buffer(8);
        new EventFrames(directory).trade(out, e);
        final byte[] frame = ByteBufUtil.getBytes(out);
        assertArrayEquals(oldFrame(old), frame);
        assertEquals(old, parse(frame));
    }

    @Property(tries = 500)
    void responseFramesAreTheBytesTheGeneratedClassesWrote(@ForAll final long seed) throws InvalidProtocolBufferException
    {
        final Random r = new Random(seed);
        final long requestId = anyLong(r);
        final RejectReason reject = anyOf(r, RejectReason.values(), true);
        final long commandSeq = anyLong(r);
        // Egress.complete's Response before EventFrames (for a plain command the hook added nothing)
        final Envelope old = Envelope.newBuilder().setRequestId(requestId).setResponse(Response.newBuilder()
            .setReason(ProtoMapping.reason(reject)).setCommandSeq(commandSeq)).build();
        final ByteBuf out = Unpooled.buffer(0);
        EventFrames.response(out, requestId, reject, commandSeq);
        final byte[] frame = ByteBufUtil.getBytes(out);
        assertArrayEquals(oldFrame(old), frame);
        assertEquals(old, parse(frame));
    }

    @Property(tries = 200)
    void framesWrittenOneAfterAnotherReadBackInOrder(@ForAll final long seed) throws InvalidProtocolBufferException
    {
        final Random r = new Random(seed);
        final Directory directory = directory();
        final EventFrames frames = new EventFrames(directory);
        final ByteBuf out = Unpooled.buffer(16);
        final List<Envelope> expected = new ArrayList<>();
        final int n = 1 + r.nextInt(200);
        for (int i = 0; i < n; i++)
        {
            final Event e = event(PRIVATE[r.nextInt(PRIVATE.length)], r);
            final long recipient = r.nextBoolean() ? e.renterId : e.ownerId;
            frames.accountEvent(out, e, recipient, i + 1);
            expected.add(Envelope.newBuilder().setEvent(ProtoMapping.accountEvent(e, recipient, i + 1, directory)).build());
        }
        assertEquals(expected, TestFrames.envelopes(out));
    }

    @Example
    void publicEventsAreNotAccountEvents()
    {
        final Directory directory = directory();
        for (final EventType type : new EventType[] {EventType.TRADE, EventType.BOOK})
        {
            final Event e = event(type, new Random(1));
            assertThrows(IllegalArgumentException.class, () -> ProtoMapping.accountEvent(e, 1, 1, directory));
            assertThrows(IllegalArgumentException.class,
                () -> new EventFrames(directory).accountEvent(Unpooled.buffer(), e, 1, 1));
        }
    }

    @Example
    void encodingAllocatesNothing()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final Directory directory = directory();
        final EventFrames frames = new EventFrames(directory);
        final Random r = new Random(7);
        final Event[] events = new Event[PRIVATE.length];
        for (int i = 0; i < events.length; i++)
        {
            events[i] = event(PRIVATE[i], r);
            events[i].marketId = 1;
            events[i].rejectReason = RejectReason.UNKNOWN_ORDER;
        }
        final ByteBuf out = Unpooled.directBuffer(4096);
        try
        {
            for (int i = 0; i < 20_000; i++)
            {
                out.clear();
                frames.accountEvent(out, events[i % events.length], 5, i);
                frames.trade(out, events[4]);
                EventFrames.response(out, i, null, i);
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++)
            {
                out.clear();
                frames.accountEvent(out, events[i % events.length], 5, i);
                frames.trade(out, events[4]);
                EventFrames.response(out, i, RejectReason.UNKNOWN_ORDER, i);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            // one allocation a frame would be 4.8 MB at least; the JIT's own odd allocation on this thread is allowed for
            assertTrue(allocated < 100_000, allocated + " bytes allocated by 100,000 x 3 frames");
        }
        finally
        {
            out.release();
        }
    }
}
