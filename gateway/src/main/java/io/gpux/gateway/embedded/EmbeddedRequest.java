package io.gpux.gateway.embedded;

import io.gpux.engine.command.Command;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Response;

/**
 * A request as the {@link EmbeddedGateway} took it in: either answered by the gateway itself (a
 * refusal, or a machine registered again), or a command waiting for the engine, or a market data
 * subscription. The caller holds it until it applies it ({@link EmbeddedGateway#apply}), as the
 * gateway's input ring holds a command; the gateway's checks and id assignment are already done.
 */
public final class EmbeddedRequest
{
    private static final byte KIND_SUBSCRIPTION = -1;

    final Command command;
    final byte kind;
    final long assignedId;
    final Response answer;

    private EmbeddedRequest(final Command command, final byte kind, final long assignedId, final Response answer)
    {
        this.command = command;
        this.kind = kind;
        this.assignedId = assignedId;
        this.answer = answer;
    }

    static EmbeddedRequest command(final Command staged, final byte kind, final long assignedId)
    {
        final Command command = new Command();
        command.copyFrom(staged);
        return new EmbeddedRequest(command, kind, assignedId, null);
    }

    static EmbeddedRequest answered(final Response answer)
    {
        return new EmbeddedRequest(null, Session.KIND_COMMAND, 0, answer);
    }

    static EmbeddedRequest subscription(final long marketId)
    {
        return new EmbeddedRequest(null, KIND_SUBSCRIPTION, marketId, null);
    }

    /** True if the gateway answered it itself: {@link #answer()} is its Response, nothing reaches the engine. */
    public boolean answered()
    {
        return answer != null;
    }

    /** The gateway's own answer, or null for a command or a subscription. */
    public Response answer()
    {
        return answer;
    }

    /** True for a market data subscription, answered by {@link EmbeddedGateway#snapshot}. */
    public boolean subscription()
    {
        return kind == KIND_SUBSCRIPTION;
    }

    /**
     * The id the gateway gave what the request registers (an account, a market, a machine; the market
     * of a subscription), or 0. A registration's id is the engine's once its command is applied without
     * a rejection.
     */
    public long assignedId()
    {
        return assignedId;
    }

    @Override
    public String toString()
    {
        return answered() ? "answered " + answer.getReason() : subscription() ? "subscription " + assignedId :
            command.type + " of account " + command.accountId;
    }
}
