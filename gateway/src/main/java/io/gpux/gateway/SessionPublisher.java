package io.gpux.gateway;

import com.lmax.disruptor.EventTranslatorOneArg;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.pipeline.CommandSlot;
import io.gpux.core.pipeline.Query;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.netty.channel.ChannelHandlerContext;

/**
 * One session's way into the core: a command is staged in place, then published to the input ring
 * with {@code tryPublish} and tracked until the egress answers it; a full ring or too many requests in
 * flight is answered BUSY here, a failed core UNAVAILABLE. Also answers the requests the gateway
 * refuses itself. Event loop only; allocates nothing on the way to the ring.
 */
final class SessionPublisher
{
    /** One command in this many (a power of two) of each session is timed to its answer: a clock read is not free. */
    static final int TIMED_COMMAND_EVERY = 16;
    private static final EventTranslatorOneArg<CommandSlot, SessionPublisher> PUBLISH = (slot, seq, p) ->
    {
        slot.command().copyFrom(p.staged);
        slot.correlation = p.stagedCorrelation;
    };

    private final Exchange exchange;
    private final Session session;
    private final Command staged = new Command();
    private long stagedCorrelation;
    private long commandsTracked;

    SessionPublisher(final Exchange exchange, final Session session)
    {
        this.exchange = exchange;
        this.session = session;
    }

    /** Starts a command of this session's account; the caller fills in the rest. */
    Command stage(final CommandType type)
    {
        staged.reset(type, 0);
        staged.accountId = session.accountId;
        return staged;
    }

    /** Publishes the staged command; answers BUSY (or UNAVAILABLE) itself when it cannot. */
    boolean publish(final ChannelHandlerContext ctx, final long rid, final byte kind, final long assignedId)
    {
        stagedCorrelation = session.track(rid, kind, assignedId);
        if (stagedCorrelation == 0 && exchange.makeRoom())
        {
            stagedCorrelation = session.track(rid, kind, assignedId);
        }
        if (stagedCorrelation == 0)
        {
            reply(ctx, rid, Reason.BUSY, "too many requests in flight");
            return false;
        }
        if ((++commandsTracked & (TIMED_COMMAND_EVERY - 1)) == 0)
        {
            session.timeLastTracked(System.nanoTime());
        }
        if (!exchange.pipeline.tryPublish(PUBLISH, this) && !(exchange.makeRoom() && exchange.pipeline.tryPublish(PUBLISH, this)))
        {
            session.untrack();
            final String refusal = exchange.pipeline.refusal();
            reply(ctx, rid, refusal != null ? Reason.UNAVAILABLE : Reason.BUSY,
                refusal != null ? refusal : "the exchange is busy: retry");
            return false;
        }
        return true;
    }

    /** Publishes a query to the core (its answer goes out through the egress); answers BUSY or UNAVAILABLE when it cannot. */
    void query(final ChannelHandlerContext ctx, final long rid, final Query query)
    {
        if (!exchange.pipeline.tryPublishQuery(query) && !(exchange.makeRoom() && exchange.pipeline.tryPublishQuery(query)))
        {
            final boolean failed = exchange.pipeline.failed();
            reply(ctx, rid, failed ? Reason.UNAVAILABLE : Reason.BUSY,
                failed ? exchange.pipeline.refusal() : "the exchange is busy: retry");
        }
    }

    /** An answer from the gateway itself (a refusal is counted by its reason). */
    void reply(final ChannelHandlerContext ctx, final long rid, final Reason reason, final String message)
    {
        exchange.counters.answered(reason);
        ctx.write(Envelope.newBuilder().setRequestId(rid).setResponse(
            Response.newBuilder().setReason(reason).setMessage(message)).build(), ctx.voidPromise());
    }
}
