package io.gpux.client;

import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.CommandKind;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Rejected;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.protobuf.ProtobufDecoder;
import io.netty.handler.codec.protobuf.ProtobufEncoder;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A tiny gateway for the client's socket tests (127.0.0.1, ephemeral port) that speaks just enough of the protocol:
 * it checks the Login signature, answers LoginAccepted, resends journaled events after {@code last_seq} then
 * ResendComplete, accepts PlaceBid (an Accepted event, then the Response; DUPLICATE_ORDER_ID for an open id), answers
 * PortfolioRequest and Subscribe, and can be told to drop the connection when a given order arrives, before or after
 * "applying" it. Its state is touched on its single event loop thread, read by the test.
 */
final class FakeGateway
{
    static final String SECRET_HEX = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    static final long KEY_ID = 42;

    enum Drop
    {
        /** Close when the order arrives: the engine never sees it. */
        BEFORE_APPLY,
        /** Journal the order's event, close before sending anything. */
        AFTER_APPLY,
        /** Send the order's event, close before its Response. */
        AFTER_EVENTS
    }

    /** One account of the fake gateway, named by the Login's client_name. */
    static final class Account
    {
        final List<AccountEvent> journal = new CopyOnWriteArrayList<>();
        final Set<Long> openOrders = new HashSet<>();
        final Set<Long> leases = new HashSet<>();
        long commandSeq;

        AccountEvent.Builder next(final long commandSeq)
        {
            return AccountEvent.newBuilder().setSeq(journal.size() + 1).setCommandSeq(commandSeq).setTimeMs(1000 + commandSeq);
        }
    }

    final Map<String, Account> accounts = new ConcurrentHashMap<>();
    final List<Login> logins = new CopyOnWriteArrayList<>();
    final List<Envelope> received = new CopyOnWriteArrayList<>();
    final Map<Long, Drop> drops = new ConcurrentHashMap<>();
    volatile int heartbeatIntervalMs = 10_000;
    volatile boolean silentAfterLogin;
    volatile boolean fillBids;
    volatile int connections;
    long nextLeaseId = 1;

    Account account(final String name)
    {
        return accounts.computeIfAbsent(name, n -> new Account());
    }

    long placeBidsReceived(final long orderId)
    {
        return received.stream()
            .filter(e -> e.hasPlaceBid() && e.getPlaceBid().getOrderId() == orderId)
            .count();
    }

    long received(final Envelope.BodyCase body)
    {
        return received.stream().filter(e -> e.getBodyCase() == body).count();
    }

    private EventLoopGroup serverGroup;
    private Channel serverChannel;

    /** Listens on 127.0.0.1, an ephemeral port; returns the port. */
    int start() throws InterruptedException
    {
        serverGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        serverChannel = new ServerBootstrap()
            .group(serverGroup)
            .channel(NioServerSocketChannel.class)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel ch)
                {
                    ch.pipeline().addLast(
                        new LengthFieldBasedFrameDecoder(64 * 1024 + 4, 0, 4, 0, 4),
                        new ProtobufDecoder(Envelope.getDefaultInstance()),
                        new LengthFieldPrepender(4),
                        new ProtobufEncoder(),
                        new Handler());
                }
            })
            .bind("127.0.0.1", 0).sync().channel();
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    void stop()
    {
        serverChannel.close().syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<Envelope>
    {
        private Account account;

        @Override
        public void channelActive(final ChannelHandlerContext ctx)
        {
            connections++;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final Envelope envelope)
        {
            received.add(envelope);
            switch (envelope.getBodyCase())
            {
                case LOGIN -> login(ctx, envelope.getLogin());
                case PLACE_BID -> placeBid(ctx, envelope.getRequestId(), envelope.getPlaceBid());
                case CANCEL -> cancel(ctx, envelope.getRequestId(), envelope.getCancel().getOrderId());
                case RELEASE -> release(ctx, envelope.getRequestId(), envelope.getRelease().getLeaseId());
                case PORTFOLIO_REQUEST -> ctx.writeAndFlush(Envelope.newBuilder().setRequestId(envelope.getRequestId())
                    .setPortfolio(Portfolio.newBuilder().setBalance(1_000_000_000).setAvailable(900_000_000)
                        .setLastSeq(account.journal.size())).build());
                case SUBSCRIBE ->
                {
                    ctx.write(Envelope.newBuilder().setRequestId(envelope.getRequestId())
                        .setResponse(Response.newBuilder().setReason(Reason.REASON_OK)).build());
                    ctx.writeAndFlush(Envelope.newBuilder().setBookSnapshot(BookSnapshot.newBuilder()
                        .setMarket(envelope.getSubscribe().getMarket()).setUpdateSeq(1)).build());
                }
                default ->
                {
                    // heartbeats, logout: recorded only
                }
            }
        }

        private void login(final ChannelHandlerContext ctx, final Login login)
        {
            logins.add(login);
            final byte[] expected = LoginSigner.sign(LoginSigner.parseSecret(SECRET_HEX), login.getKeyId(),
                login.getTimestampMs(), login.getNonce().toByteArray());
            if (login.getKeyId() != KEY_ID || !Arrays.equals(expected, login.getSignature().toByteArray())
                || login.getNonce().size() != 16)
            {
                ctx.writeAndFlush(Envelope.newBuilder().setSessionError(SessionError.newBuilder()
                    .setCode(SessionErrorCode.AUTHENTICATION_FAILED).setMessage("bad signature")).build())
                    .addListener(done -> ctx.close());
                return;
            }
            account = account(login.getClientName());
            final int last = account.journal.size();
            ctx.write(Envelope.newBuilder().setRequestId(0).setLoginAccepted(LoginAccepted.newBuilder()
                .setAccount("alice").setAccountId(7).setLastSeq(last)
                .setHeartbeatIntervalMs(heartbeatIntervalMs).setSessionId(connections)).build());
            if (silentAfterLogin)
            {
                ctx.flush();
                return;
            }
            if (login.hasLastSeq())
            {
                int resent = 0;
                for (int i = (int)login.getLastSeq(); i < last; i++)
                {
                    ctx.write(Envelope.newBuilder().setEvent(account.journal.get(i)).build());
                    resent++;
                }
                ctx.write(Envelope.newBuilder().setResendComplete(ResendComplete.newBuilder()
                    .setLastSeq(last).setEventsResent(resent)).build());
            }
            ctx.flush();
        }

        private void placeBid(final ChannelHandlerContext ctx, final long requestId, final PlaceBid bid)
        {
            final Drop drop = drops.remove(bid.getOrderId());
            if (drop == Drop.BEFORE_APPLY)
            {
                ctx.close();
                return;
            }
            final long commandSeq = ++account.commandSeq;
            final boolean duplicate = !account.openOrders.add(bid.getOrderId());
            final List<AccountEvent> events = new ArrayList<>();
            if (duplicate)
            {
                events.add(journal(account.next(commandSeq).setRejected(Rejected.newBuilder().setOrderId(bid.getOrderId())
                    .setReason(Reason.DUPLICATE_ORDER_ID).setCommand(CommandKind.CMD_BID))));
            }
            else
            {
                events.add(journal(account.next(commandSeq).setAccepted(Accepted.newBuilder().setOrderId(bid.getOrderId()))));
                if (fillBids)
                {
                    final long leaseId = nextLeaseId++;
                    account.openOrders.remove(bid.getOrderId());
                    account.leases.add(leaseId);
                    events.add(journal(account.next(commandSeq).setFill(Fill.newBuilder().setOrderId(bid.getOrderId())
                        .setCounterOrderId(99).setLeaseId(leaseId).setGpus(bid.getGpus()).setPrice(20_000))));
                    events.add(journal(account.next(commandSeq).setLeaseStarted(LeaseStarted.newBuilder()
                        .setLeaseId(leaseId).setMarket(bid.getMarket()).setMachineId(5).setGpus(bid.getGpus())
                        .setPrice(20_000).setRenter(true))));
                }
            }
            if (drop == Drop.AFTER_APPLY)
            {
                ctx.close();
                return;
            }
            events.forEach(e -> ctx.write(Envelope.newBuilder().setEvent(e).build()));
            if (drop == Drop.AFTER_EVENTS)
            {
                ctx.flush().close();
                return;
            }
            respond(ctx, requestId, duplicate ? Reason.DUPLICATE_ORDER_ID : Reason.REASON_OK, commandSeq);
        }

        private void cancel(final ChannelHandlerContext ctx, final long requestId, final long orderId)
        {
            final long commandSeq = ++account.commandSeq;
            if (account.openOrders.remove(orderId))
            {
                ctx.write(Envelope.newBuilder().setEvent(journal(account.next(commandSeq).setCancelled(
                    Cancelled.newBuilder().setOrderId(orderId).setReason(CancelReason.USER)))).build());
                respond(ctx, requestId, Reason.REASON_OK, commandSeq);
            }
            else
            {
                respond(ctx, requestId, Reason.UNKNOWN_ORDER, commandSeq);
            }
        }

        private void release(final ChannelHandlerContext ctx, final long requestId, final long leaseId)
        {
            final long commandSeq = ++account.commandSeq;
            if (account.leases.remove(leaseId))
            {
                ctx.write(Envelope.newBuilder().setEvent(journal(account.next(commandSeq).setLeaseEnded(
                    LeaseEnded.newBuilder().setLeaseId(leaseId).setReason(EndReason.RELEASED)))).build());
                respond(ctx, requestId, Reason.REASON_OK, commandSeq);
            }
            else
            {
                respond(ctx, requestId, Reason.UNKNOWN_LEASE, commandSeq);
            }
        }

        private AccountEvent journal(final AccountEvent.Builder event)
        {
            final AccountEvent built = event.build();
            account.journal.add(built);
            return built;
        }

        private void respond(final ChannelHandlerContext ctx, final long requestId, final Reason reason, final long commandSeq)
        {
            ctx.writeAndFlush(Envelope.newBuilder().setRequestId(requestId)
                .setResponse(Response.newBuilder().setReason(reason).setCommandSeq(commandSeq)).build());
        }
    }
}
