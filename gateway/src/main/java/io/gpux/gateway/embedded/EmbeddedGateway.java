package io.gpux.gateway.embedded;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.RejectReason;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.Registrations;
import io.gpux.gateway.egress.EventRouter;
import io.gpux.gateway.egress.ProtoMapping;
import io.gpux.gateway.marketdata.MarketData;
import io.gpux.gateway.orders.OrderRequests;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Trade;

import java.util.List;

/**
 * The gateway's protocol logic around a matching engine, without sockets, sessions or a journal: for
 * a program that drives the engine itself in one thread, such as a simulation with its own clock.
 * It delegates to the same classes the Netty gateway runs, so it guarantees what the gateway does:
 * <ul>
 *   <li><b>Requests</b> are checked, refused with the gateway's reasons and messages, resolved to the
 *   engine's ids and staged by the gateway's {@link OrderRequests}; ids of accounts, markets and
 *   machines are assigned by the gateway's {@link Directory}, in the same order.</li>
 *   <li><b>Account events</b>: each private engine event goes to its accounts ({@link EventRouter}),
 *   numbered as the engine numbered it for each account ({@link Event#accountSeq}), in the wire form
 *   of {@link ProtoMapping#accountEvent}: what the egress routes to the account's sessions.</li>
 *   <li><b>Responses</b>: a command's Response carries the engine's reject reason for that command
 *   (none: REASON_OK) and its command sequence; a registration's id is answered if it went through and
 *   forgotten if the engine rejected it ({@link Registrations}).</li>
 *   <li><b>Market data</b>: trades as the egress sends them to subscribers; book snapshots and
 *   updates from the gateway's {@link MarketData}, compared after every command (each command is a
 *   batch of one).</li>
 * </ul>
 * The caller owns the clock and the order: it takes a request in ({@link #submit}, {@link #subscribe},
 * {@link #createAccount}, ...), which does the gateway's checks at once, and applies it later
 * ({@link #apply}, {@link #snapshot}) at a time it chooses, as the gateway's input ring would. What the
 * gateway does per connection (login, rate limits, cancel on disconnect, resends) and machine
 * telemetry are not here. Not thread safe: one thread at a time.
 */
public final class EmbeddedGateway
{
    /** Where what the exchange sends goes, while a request is applied, in the engine's order. */
    public interface Output
    {
        /** A private event for one of its accounts, with that account's event number. */
        void onAccountEvent(long accountId, AccountEvent event);

        /** A trade, for the market's subscribers. */
        void onTrade(long marketId, Trade trade);

        /** A market's book changed, for its subscribers (only markets subscribed to at least once). */
        void onBookUpdate(long marketId, BookUpdate update);
    }

    private final Output output;
    private final MatchingEngine engine;
    private final Directory directory = new Directory();
    private final MarketData marketData;
    private final OrderRequests<Void> orders;
    private final long[] recipients = new long[2];
    private final Command staged = new Command();
    private long stagingAccount;
    private EmbeddedRequest taken;
    private long commandSeq;
    private long rejectedCommandSeq;
    private RejectReason reject;
    private final HotRequest hot = new HotRequest();

    public EmbeddedGateway(final Output output)
    {
        this.output = output;
        this.engine = new MatchingEngine(this::onEngineEvent);
        this.marketData = new MarketData((marketId, update) -> output.onBookUpdate(marketId, update.getBookUpdate()));
        this.orders = new OrderRequests<>(directory, new Staging());
    }

    /** The engine: read its state between requests; apply commands only through {@link #apply}. */
    public MatchingEngine engine()
    {
        return engine;
    }

    /** A market's id, or 0 if there is no market of that symbol. */
    public long marketId(final String symbol)
    {
        final Directory.MarketEntry m = directory.market(symbol);
        return m == null ? 0 : m.id();
    }

    /** A market's symbol ("" if none). */
    public String marketSymbol(final long marketId)
    {
        return directory.marketSymbol(marketId);
    }

    // ---- taking requests in

    /**
     * A new market of {@code symbol} with the MARKET command's settings in {@code market} (its id and
     * name are filled in here).
     *
     * @throws IllegalArgumentException if the symbol is taken.
     */
    public EmbeddedRequest createMarket(final String symbol, final Command market)
    {
        final Directory.MarketEntry m = directory.newMarket(symbol);
        if (m == null)
        {
            throw new IllegalArgumentException("market " + symbol + " exists");
        }
        market.type = CommandType.MARKET;
        market.marketId = m.id();
        market.name = symbol;
        return EmbeddedRequest.command(market, Session.KIND_NEW_MARKET, m.id());
    }

    /**
     * A new account with its roles ({@code io.gpux.engine.command.Roles}).
     *
     * @throws IllegalArgumentException if the name is taken.
     */
    public EmbeddedRequest createAccount(final String name, final int roles)
    {
        final Directory.AccountEntry a = directory.newAccount(name, roles);
        if (a == null)
        {
            throw new IllegalArgumentException("account " + name + " exists");
        }
        staged.reset(CommandType.ACCOUNT, 0);
        staged.accountId = a.id();
        staged.name = name;
        staged.roles = roles;
        return EmbeddedRequest.command(staged, Session.KIND_NEW_ACCOUNT, a.id());
    }

    /** A command the gateway passes to the engine as it is: an administrator's (DEPOSIT, CONFIG, ...) or the ticker's TICK. */
    public EmbeddedRequest command(final Command command)
    {
        return EmbeddedRequest.command(command, Session.KIND_COMMAND, 0);
    }

    /**
     * An order entry request of an account: PlaceBid, PlaceAsk, Cancel, Replace, MassCancel, Release,
     * MachineHeartbeat or RegisterMachine, in an Envelope as a client sends it.
     *
     * @throws IllegalArgumentException for another request, or an account this gateway did not create.
     */
    public EmbeddedRequest submit(final long accountId, final Envelope request)
    {
        final Directory.AccountEntry account = directory.account(accountId);
        if (account == null)
        {
            throw new IllegalArgumentException("no account " + accountId);
        }
        stagingAccount = accountId;
        taken = null;
        final Envelope.BodyCase body = request.getBodyCase();
        if (body == Envelope.BodyCase.REGISTER_MACHINE)
        {
            orders.registerMachine(null, request.getRequestId(), accountId, account.name(), account.roles(),
                request.getRegisterMachine());
        }
        else if (HotRequest.handles(body) && body != Envelope.BodyCase.HEARTBEAT)
        {
            orders.onHot(null, request.getRequestId(), accountId, hot.readFrom(request));
        }
        else
        {
            throw new IllegalArgumentException("not an order entry request: " + body);
        }
        return taken;
    }

    /** A subscription to a market's data; refused (UNKNOWN_MARKET) if there is no such market. */
    public EmbeddedRequest subscribe(final String market)
    {
        final long marketId = marketId(market);
        return marketId == 0 ? EmbeddedRequest.answered(refusal(Reason.UNKNOWN_MARKET, market)) :
            EmbeddedRequest.subscription(marketId);
    }

    // ---- applying them

    /**
     * Applies a command at {@code timeMs}: its events go to the {@link Output} as the engine emits them,
     * then the book updates it caused; returns its Response. A request the gateway answered itself
     * returns that answer and reaches no engine.
     *
     * @throws IllegalArgumentException for a subscription (see {@link #snapshot}).
     */
    public Response apply(final EmbeddedRequest request, final long timeMs)
    {
        if (request.answered())
        {
            return request.answer;
        }
        if (request.subscription())
        {
            throw new IllegalArgumentException("a subscription is answered by its snapshot");
        }
        final Command c = request.command;
        c.timeMs = timeMs;
        c.sequence = ++commandSeq;
        engine.apply(c);
        marketData.onBatchApplied(engine);
        final Response.Builder response = Response.newBuilder()
            .setReason(ProtoMapping.reason(rejectedCommandSeq == c.sequence ? reject : null))
            .setCommandSeq(c.sequence);
        if (request.kind != Session.KIND_COMMAND)
        {
            Registrations.answered(directory, request.kind, request.assignedId, response);
        }
        return response.build();
    }

    /**
     * A subscription's book snapshot, exact at this point of the command stream: the book updates of
     * every later command follow it.
     */
    public BookSnapshot snapshot(final EmbeddedRequest subscription)
    {
        if (!subscription.subscription())
        {
            throw new IllegalArgumentException("not a subscription: " + subscription);
        }
        return marketData.snapshot(engine, subscription.assignedId).getBookSnapshot();
    }

    private void onEngineEvent(final Event e)
    {
        if (e.type == EventType.TRADE)
        {
            output.onTrade(e.marketId, ProtoMapping.trade(e, directory));
            return;
        }
        if (e.type == EventType.BOOK)
        {
            return;
        }
        if (e.type == EventType.REJECTED)
        {
            rejectedCommandSeq = e.commandSequence;
            reject = e.rejectReason;
        }
        final int n = EventRouter.recipients(e, recipients);
        for (int i = 0; i < n; i++)
        {
            final long seq = e.accountSeq(i);
            if (seq != 0)
            {
                output.onAccountEvent(recipients[i], ProtoMapping.accountEvent(e, recipients[i], seq, directory));
            }
        }
    }

    private static Response refusal(final Reason reason, final String message)
    {
        return Response.newBuilder().setReason(reason).setMessage(message).build();
    }

    /** Order entry's outlet: what it stages or answers becomes the request taken in. */
    private final class Staging implements OrderRequests.Outlet<Void>
    {
        @Override
        public Command stage(final CommandType type)
        {
            staged.reset(type, 0);
            staged.accountId = stagingAccount;
            return staged;
        }

        @Override
        public boolean publish(final Void context, final long requestId, final byte kind, final long assignedId)
        {
            taken = EmbeddedRequest.command(staged, kind, assignedId);
            return true;
        }

        @Override
        public void refuse(final Void context, final long requestId, final Reason reason, final String message)
        {
            taken = EmbeddedRequest.answered(refusal(reason, message));
        }

        @Override
        public void answer(final Void context, final long requestId, final Response response)
        {
            taken = EmbeddedRequest.answered(response);
        }

        @Override
        public void onTelemetry(final long machineId, final List<GpuTelemetry> telemetry)
        {
            // machine telemetry is for the gateway's dashboard and queries, which an embedded gateway has none of
        }
    }
}
