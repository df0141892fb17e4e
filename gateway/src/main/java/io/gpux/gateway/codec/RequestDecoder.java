package io.gpux.gateway.codec;

import com.google.protobuf.Descriptors;
import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.proto.v1.Envelope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;

/**
 * The gateway's inbound decoder, one per connection, after the frame decoder: each frame becomes the
 * connection's reused {@link HotRequest} when it is one of the requests a trading session sends all the
 * time, read field by field straight from the frame's bytes without allocating, or else an
 * {@link Envelope} from the generated parser (a Login, a query, an admin request, and any frame this
 * decoder does not read itself).
 *
 * <p>The rule that keeps it safe: a HotRequest comes out only when the generated parser would have
 * made an Envelope of that body with exactly those fields. Anything else it leaves to the generated
 * parser: a malformed frame (which is then refused with the parser's own error, as a
 * {@link DecoderException} caused by an {@link InvalidProtocolBufferException}, as Netty's
 * {@code ProtobufDecoder} did), a frame with more than one body field (protobuf-java's merging of oneof
 * members is its own), a machine heartbeat with telemetry (the gateway keeps the telemetry messages),
 * unknown groups nested deeper than {@link WireReader#MAX_GROUP_DEPTH}, a frame longer than
 * {@link #SCRATCH_BYTES}. Unknown fields are skipped as protobuf skips them.
 */
public final class RequestDecoder extends ChannelInboundHandlerAdapter
{
    /** Frames up to this size are copied into the connection's scratch array and read from there. */
    public static final int SCRATCH_BYTES = 1024;

    private static final int REQUEST_ID = 1 << 3 | WireReader.VARINT;
    /** Envelope's body fields (its oneof), by field number. */
    private static final boolean[] BODY_FIELDS = bodyFields();

    private final byte[] scratch = new byte[SCRATCH_BYTES];
    private final WireReader in = new WireReader();
    private final HotRequest request = new HotRequest();

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (!(msg instanceof ByteBuf frame))
        {
            ctx.fireChannelRead(msg);
            return;
        }
        final Object decoded;
        try
        {
            decoded = decode(frame);
        }
        catch (final InvalidProtocolBufferException ex)
        {
            ctx.fireExceptionCaught(new DecoderException(ex));
            return;
        }
        finally
        {
            ReferenceCountUtil.release(frame);
        }
        ctx.fireChannelRead(decoded);
    }

    /**
     * One frame's payload (its readable bytes; the buffer is not released): this decoder's
     * {@link HotRequest}, valid until the next call, or an Envelope.
     *
     * @throws InvalidProtocolBufferException when the frame is not an Envelope.
     */
    public Object decode(final ByteBuf frame) throws InvalidProtocolBufferException
    {
        final int length = frame.readableBytes();
        if (length > SCRATCH_BYTES)
        {
            final byte[] copy = ByteBufUtil.getBytes(frame, frame.readerIndex(), length, false);
            return Envelope.parser().parseFrom(copy, 0, length);
        }
        frame.getBytes(frame.readerIndex(), scratch, 0, length);
        return decode(scratch, 0, length);
    }

    /** {@link #decode(ByteBuf)} of a payload in an array, which the returned HotRequest may point into. */
    public Object decode(final byte[] bytes, final int offset, final int length) throws InvalidProtocolBufferException
    {
        if (read(bytes, offset, length, request))
        {
            return request;
        }
        return Envelope.parser().parseFrom(bytes, offset, length);
    }

    /**
     * Reads an Envelope's payload into {@code out} if it is a hot request this decoder reads itself.
     *
     * @return false (with {@code out} in no particular state) when it is left to the generated parser.
     */
    boolean read(final byte[] bytes, final int offset, final int length, final HotRequest out)
    {
        try
        {
            in.wrap(bytes, offset, length);
            out.requestId = 0;
            int bodyField = 0;
            int tag;
            while ((tag = in.readTag()) != 0)
            {
                final int field = tag >>> 3;
                if (tag == REQUEST_ID)
                {
                    out.requestId = in.readVarint();
                }
                else if ((tag & 7) == WireReader.LENGTH_DELIMITED && field < BODY_FIELDS.length && BODY_FIELDS[field])
                {
                    final Envelope.BodyCase kind = Envelope.BodyCase.forNumber(field);
                    if (bodyField != 0 && bodyField != field || !HotRequest.handles(kind))
                    {
                        return false;
                    }
                    if (bodyField == 0)
                    {
                        out.start(kind, bytes);
                        bodyField = field;
                    }
                    final int limit = in.pushLimit(in.readLength());
                    body(kind, out);
                    in.popLimit(limit);
                }
                else
                {
                    in.skipField(tag, 0);
                }
            }
            return bodyField != 0;
        }
        catch (final WireReader.GiveUp giveUp)
        {
            return false;
        }
    }

    /** Reads (merges, like protobuf, when the body field comes again) one body message to its end. */
    private void body(final Envelope.BodyCase kind, final HotRequest out)
    {
        int tag;
        while ((tag = in.readTag()) != 0)
        {
            switch (kind)
            {
                case PLACE_BID -> placeBid(tag, out);
                case PLACE_ASK -> placeAsk(tag, out);
                case CANCEL -> cancel(tag, out);
                case REPLACE -> replace(tag, out);
                case MASS_CANCEL -> massCancel(tag, out);
                case RELEASE -> release(tag, out);
                case MACHINE_HEARTBEAT -> machineHeartbeat(tag, out);
                default -> heartbeat(tag);
            }
        }
    }

    private static int tag(final int field, final int wireType)
    {
        return field << 3 | wireType;
    }

    private void placeBid(final int tag, final HotRequest out)
    {
        switch (tag)
        {
            case 1 << 3 -> out.orderId = in.readVarint();
            case 2 << 3 | WireReader.LENGTH_DELIMITED ->
            {
                final int length = utf8Length();
                out.market(in.position(), length);
                in.skip(length);
            }
            case 3 << 3 -> out.gpus = (int)in.readVarint();
            case 4 << 3 -> out.price = in.readVarint();
            case 5 << 3 -> out.tif = (int)in.readVarint();
            case 6 << 3 -> out.postOnly = in.readVarint() != 0;
            case 7 << 3 -> out.gang = in.readVarint() != 0;
            case 8 << 3 -> out.minReliabilityPpm = in.readVarint();
            case 9 << 3 | WireReader.LENGTH_DELIMITED ->
            {
                final int length = utf8Length();
                out.region(in.position(), length);
                in.skip(length);
            }
            case 10 << 3 -> out.maxDurationMs = in.readVarint();
            case 11 << 3 -> out.noPreempt = in.readVarint() != 0;
            default -> in.skipField(tag, 0);
        }
    }

    private void placeAsk(final int tag, final HotRequest out)
    {
        switch (tag)
        {
            case 1 << 3 -> out.orderId = in.readVarint();
            case 2 << 3 -> out.machineId = in.readVarint();
            case 3 << 3 -> out.gpus = (int)in.readVarint();
            case 4 << 3 -> out.price = in.readVarint();
            case 5 << 3 -> out.tif = (int)in.readVarint();
            case 6 << 3 -> out.postOnly = in.readVarint() != 0;
            default -> in.skipField(tag, 0);
        }
    }

    private void cancel(final int tag, final HotRequest out)
    {
        switch (tag)
        {
            case 1 << 3 -> out.orderId = in.readVarint();
            case 2 << 3 -> out.reclaim = in.readVarint() != 0;
            default -> in.skipField(tag, 0);
        }
    }

    private void replace(final int tag, final HotRequest out)
    {
        switch (tag)
        {
            case 1 << 3 -> out.orderId = in.readVarint();
            case 2 << 3 ->
            {
                out.price = in.readVarint();
                out.hasPrice = true;
            }
            case 3 << 3 ->
            {
                out.gpus = (int)in.readVarint();
                out.hasGpus = true;
            }
            default -> in.skipField(tag, 0);
        }
    }

    private void massCancel(final int tag, final HotRequest out)
    {
        if (tag == tag(1, WireReader.LENGTH_DELIMITED))
        {
            final int length = utf8Length();
            out.market(in.position(), length);
            in.skip(length);
        }
        else
        {
            in.skipField(tag, 0);
        }
    }

    private void release(final int tag, final HotRequest out)
    {
        if (tag == 1 << 3)
        {
            out.leaseId = in.readVarint();
        }
        else
        {
            in.skipField(tag, 0);
        }
    }

    private void machineHeartbeat(final int tag, final HotRequest out)
    {
        if (tag == 1 << 3)
        {
            out.machineId = in.readVarint();
        }
        else if (tag == tag(2, WireReader.LENGTH_DELIMITED))
        {
            throw WireReader.GIVE_UP; // telemetry: the gateway keeps it as the generated messages
        }
        else
        {
            in.skipField(tag, 0);
        }
    }

    private void heartbeat(final int tag)
    {
        if (tag == 1 << 3)
        {
            in.readVarint(); // time_ms: read for its validity, not used
        }
        else
        {
            in.skipField(tag, 0);
        }
    }

    /** A string field's length, its bytes (from the position) checked to be UTF-8 as protobuf checks a proto3 string. */
    private int utf8Length()
    {
        final int length = in.readLength();
        if (!WireReader.isValidUtf8(in.bytes(), in.position(), length))
        {
            throw WireReader.GIVE_UP;
        }
        return length;
    }

    private static boolean[] bodyFields()
    {
        int max = 0;
        final java.util.List<Descriptors.FieldDescriptor> fields = Envelope.getDescriptor().getOneofs().get(0).getFields();
        for (final Descriptors.FieldDescriptor f : fields)
        {
            max = Math.max(max, f.getNumber());
        }
        final boolean[] body = new boolean[max + 1];
        for (final Descriptors.FieldDescriptor f : fields)
        {
            body[f.getNumber()] = true;
        }
        return body;
    }
}
