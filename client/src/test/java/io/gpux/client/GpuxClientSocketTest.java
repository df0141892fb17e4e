package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.CommandKind;
import io.gpux.proto.v1.Envelope;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client over real sockets against a tiny in-test gateway (127.0.0.1, ephemeral port) that
 * speaks just enough of the protocol: it checks the Login signature, answers LoginAccepted, resends
 * journaled events after {@code last_seq} then ResendComplete, accepts PlaceBid (an Accepted event,
 * then the Response; DUPLICATE_ORDER_ID for an open id), answers PortfolioRequest and Subscribe, and
 * can be told to drop the connection when a given order arrives, before or after "applying" it.
 */
class GpuxClientSocketTest
{
    private static final String SECRET_HEX = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    private static final long KEY_ID = 42;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

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

    /** The fake gateway; its state is touched on its single event loop thread, read by the test. */
    static final class FakeGateway
    {
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
    }

    private final class GatewayHandler extends SimpleChannelInboundHandler<Envelope>
    {
        private Account account;

        @Override
        public void channelActive(final ChannelHandlerContext ctx)
        {
            gateway.connections++;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final Envelope envelope)
        {
            gateway.received.add(envelope);
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
            gateway.logins.add(login);
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
            account = gateway.account(login.getClientName());
            final int last = account.journal.size();
            ctx.write(Envelope.newBuilder().setRequestId(0).setLoginAccepted(LoginAccepted.newBuilder()
                .setAccount("alice").setAccountId(7).setLastSeq(last)
                .setHeartbeatIntervalMs(gateway.heartbeatIntervalMs).setSessionId(gateway.connections)).build());
            if (gateway.silentAfterLogin)
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
            final Drop drop = gateway.drops.remove(bid.getOrderId());
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
                if (gateway.fillBids)
                {
                    final long leaseId = gateway.nextLeaseId++;
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

    /** What the client tells its listener, kept for the test thread. */
    static class Recorder implements ClientListener
    {
        final List<Long> eventSeqs = new CopyOnWriteArrayList<>();
        final Map<Long, Response> responses = new ConcurrentHashMap<>();
        final List<String> disconnects = new CopyOnWriteArrayList<>();
        final List<BookSnapshot> snapshots = new CopyOnWriteArrayList<>();
        final List<ResendComplete> resends = new CopyOnWriteArrayList<>();
        final List<SessionError> sessionErrors = new CopyOnWriteArrayList<>();
        volatile int logins;
        volatile Thread callbackThread;

        @Override
        public void onLoginAccepted(final LoginAccepted accepted)
        {
            logins++;
            callbackThread = Thread.currentThread();
        }

        @Override
        public void onEvent(final AccountEvent event)
        {
            eventSeqs.add(event.getSeq());
        }

        @Override
        public void onResponse(final long requestId, final Response response)
        {
            responses.put(requestId, response);
        }

        @Override
        public void onDisconnected(final String reason, final boolean reconnecting)
        {
            disconnects.add(reason + (reconnecting ? " (reconnecting)" : " (final)"));
        }

        @Override
        public void onBookSnapshot(final BookSnapshot snapshot)
        {
            snapshots.add(snapshot);
        }

        @Override
        public void onResendComplete(final ResendComplete complete)
        {
            resends.add(complete);
        }

        @Override
        public void onSessionError(final SessionError error)
        {
            sessionErrors.add(error);
        }
    }

    private final FakeGateway gateway = new FakeGateway();
    private EventLoopGroup serverGroup;
    private EventLoopGroup clientGroup;
    private Channel serverChannel;
    private int port;

    @BeforeEach
    void startGateway() throws InterruptedException
    {
        serverGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        clientGroup = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
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
                        new GatewayHandler());
                }
            })
            .bind("127.0.0.1", 0).sync().channel();
        port = ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    @AfterEach
    void stopGateway()
    {
        serverChannel.close().syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private ClientContext context(final Recorder recorder)
    {
        return new ClientContext()
            .host("127.0.0.1").port(port).keyId(KEY_ID).secretHex(SECRET_HEX)
            .listener(recorder)
            .eventLoopGroup(clientGroup)
            .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100))
            // no test here waits for the login deadline: it only has to outlast a cold first Login on a loaded machine
            .loginTimeout(Duration.ofSeconds(10))
            .errorHandler(ex -> ex.printStackTrace());
    }

    private static void await(final String what, final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void connectRequestReconnectResumeAndResend() throws Exception
    {
        final Recorder recorder = new Recorder();
        try (GpuxClient client = new GpuxClient(context(recorder).firstOrderId(1)))
        {
            client.connect();
            assertTrue(client.isConnected());
            assertEquals(1, gateway.logins.size());
            assertFalse(gateway.logins.get(0).hasLastSeq(), "a fresh client starts live");
            assertEquals(0, client.lastSeq(), "the account's last seq from LoginAccepted");
            assertTrue(recorder.callbackThread.getName().length() > 0);
            assertTrue(client.eventLoop().inEventLoop(recorder.callbackThread), "callbacks run on the client's loop");

            // request / response, blocking convenience
            assertEquals(1, client.nextOrderId());
            final Response first = client.call(Envelope.newBuilder().setPlaceBid(
                PlaceBid.newBuilder().setOrderId(1).setMarket("M").setGpus(8).setPrice(25_000)), TIMEOUT);
            assertEquals(Reason.REASON_OK, first.getReason());
            assertEquals(List.of(1L), recorder.eventSeqs, "the Accepted event came before the Response");
            final Portfolio portfolio = client.portfolio(TIMEOUT);
            assertEquals(1_000_000_000, portfolio.getBalance());

            client.subscribe("M");
            await("the first snapshot", () -> recorder.snapshots.size() == 1);

            // 1. the gateway drops the connection when order 2 arrives, before the engine sees it
            gateway.drops.put(2L, Drop.BEFORE_APPLY);
            final long request2 = client.placeBid(2, "M", 4, 26_000);
            await("order 2 answered", () -> recorder.responses.containsKey(request2));
            assertEquals(Reason.REASON_OK, recorder.responses.get(request2).getReason());
            assertEquals(2, gateway.logins.size());
            assertTrue(gateway.logins.get(1).hasLastSeq());
            assertEquals(1, gateway.logins.get(1).getLastSeq(), "resume after the last event delivered");
            assertEquals(2, gateway.placeBidsReceived(2), "re-sent after the reconnect");
            final List<Envelope> bids = gateway.received.stream().filter(Envelope::hasPlaceBid)
                .filter(e -> e.getPlaceBid().getOrderId() == 2).toList();
            assertEquals(request2, bids.get(0).getRequestId());
            assertEquals(request2, bids.get(1).getRequestId(), "same request id on the new connection");
            assertEquals(List.of(1L, 2L), recorder.eventSeqs);
            await("the renewed subscription's snapshot", () -> recorder.snapshots.size() == 2);
            assertEquals(1, recorder.disconnects.size());
            assertTrue(recorder.disconnects.get(0).endsWith("(reconnecting)"), recorder.disconnects.toString());

            // 2. order 3 reaches the engine, then the connection drops before its event and answer
            gateway.drops.put(3L, Drop.AFTER_APPLY);
            final long request3 = client.placeBid(3, "M", 1, 27_000);
            await("order 3 settled", () -> recorder.responses.containsKey(request3));
            final Response settled = recorder.responses.get(request3);
            assertEquals(Reason.REASON_OK, settled.getReason());
            assertEquals(3, settled.getCommandSeq(), "the replayed event's command");
            assertEquals(3, gateway.logins.size());
            assertEquals(2, gateway.logins.get(2).getLastSeq());
            assertEquals(List.of(1L, 2L, 3L), recorder.eventSeqs, "every event once, in order");
            assertEquals(1, gateway.placeBidsReceived(3), "the replayed Accepted settled it: not placed twice");
            assertEquals(0, client.unansweredCommands());
            await("the second ResendComplete", () -> recorder.resends.size() == 2);
            assertEquals(1, recorder.resends.get(1).getEventsResent());

            // 3. order 4's event arrives, then the connection drops before its Response
            gateway.drops.put(4L, Drop.AFTER_EVENTS);
            final long request4 = client.placeBid(4, "M", 1, 27_000);
            await("order 4 settled", () -> recorder.responses.containsKey(request4));
            assertEquals(Reason.REASON_OK, recorder.responses.get(request4).getReason());
            await("the fourth login", () -> gateway.logins.size() == 4);
            assertEquals(4, gateway.logins.get(3).getLastSeq());
            assertEquals(1, gateway.placeBidsReceived(4), "its Accepted settled it: not placed twice");
            assertEquals(List.of(1L, 2L, 3L, 4L), recorder.eventSeqs);

            // a genuine duplicate on a first send is still an error
            final Response duplicate = client.call(Envelope.newBuilder().setPlaceBid(
                PlaceBid.newBuilder().setOrderId(1).setMarket("M").setGpus(1).setPrice(1)), TIMEOUT);
            assertEquals(Reason.DUPLICATE_ORDER_ID, duplicate.getReason());
            assertEquals(5, client.lastSeq());
        }
        await("the Logout", () -> gateway.received(Envelope.BodyCase.LOGOUT) == 1);
        assertTrue(recorder.disconnects.get(recorder.disconnects.size() - 1).endsWith("(final)"));
        assertFalse(clientGroup.isShuttingDown(), "a shared group is not the client's to stop");
    }

    @Test
    void spotRequestRunsOnTheClientsEvents() throws Exception
    {
        gateway.fillBids = true;
        final List<String> heard = new CopyOnWriteArrayList<>();
        try (GpuxClient client = new GpuxClient(context(new Recorder())))
        {
            client.connect();
            final SpotRequest spot = SpotRequest.start(client, "M", 4, 30_000, SpotRequest.Constraints.NONE,
                new SpotRequest.Listener()
                {
                    @Override
                    public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
                    {
                        heard.add("started L" + leaseId + " x" + gpus);
                    }

                    @Override
                    public void onLeaseEnded(final long leaseId, final EndReason reason)
                    {
                        heard.add("ended L" + leaseId + " " + reason);
                    }
                });
            assertEquals(2, client.listenerCount());
            await("the lease", () -> heard.contains("started L1 x4"));
            spot.close(true);
            await("the release", () -> heard.contains("ended L1 RELEASED"));
            await("the request to stop listening", () -> client.listenerCount() == 1);
            // every command sent is answered, so a re-bid sent at the release would have reached the gateway by now
            await("the release answered", () -> client.unansweredCommands() == 0);
            assertEquals(1, gateway.received(Envelope.BodyCase.PLACE_BID), "nothing re-bid after close");
        }
    }

    @Test
    void aBotOnASpinningLoopSendsFromItsDutyAndHearsItsFillsOnTheSameThread() throws Exception
    {
        gateway.fillBids = true;
        final AtomicReference<GpuxClient> bot = new AtomicReference<>();
        final AtomicLong turns = new AtomicLong();
        final AtomicReference<Thread> dutyThread = new AtomicReference<>();
        final List<Long> sent = new CopyOnWriteArrayList<>();
        final IntSupplier duty = () ->
        {
            turns.incrementAndGet();
            dutyThread.compareAndSet(null, Thread.currentThread());
            final GpuxClient c = bot.get();
            if (c == null || !c.isConnected() || sent.size() == 3)
            {
                return 0;
            }
            // the bot's own logic, on the loop: the bid goes straight to the socket
            sent.add(c.placeBid(c.nextOrderId(), "M", 1, 20_000));
            return 1;
        };
        final EventLoopGroup spinning = new MultiThreadIoEventLoopGroup(1,
            new SpinningLoop(NioIoHandler.newFactory(), duty));
        final List<Thread> fillThreads = new CopyOnWriteArrayList<>();
        final Recorder recorder = new Recorder()
        {
            @Override
            public void onFill(final AccountEvent event, final Fill fill)
            {
                fillThreads.add(Thread.currentThread());
            }
        };
        try (GpuxClient client = new GpuxClient(context(recorder).eventLoopGroup(spinning)))
        {
            client.connect();
            bot.set(client);
            await("three fills", () -> fillThreads.size() == 3);
            await("three answers", () -> sent.stream().allMatch(recorder.responses::containsKey));
            assertEquals(3, gateway.received(Envelope.BodyCase.PLACE_BID));
            assertTrue(fillThreads.stream().allMatch(t -> t == dutyThread.get()), "fills heard on the duty's thread");
            // nothing more to read or send: the loop keeps turning (and calling the duty) all the same
            final long before = turns.get();
            await("the loop turning without I/O", () -> turns.get() - before > 1000);
        }
        finally
        {
            spinning.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void orderEntryWaitsWhileDisconnectedAndQueriesAreRefused() throws Exception
    {
        final Recorder recorder = new Recorder();
        try (GpuxClient client = new GpuxClient(context(recorder)))
        {
            assertThrows(IllegalStateException.class, client::portfolio);
            final long request = client.placeBid(client.nextOrderId(), "M", 2, 10_000);
            assertEquals(1, client.unansweredCommands());
            client.connect();
            await("the queued bid answered", () -> recorder.responses.containsKey(request));
            assertEquals(Reason.REASON_OK, recorder.responses.get(request).getReason());
            assertEquals(0, client.unansweredCommands());
        }
        final GpuxClient closed = new GpuxClient(context(new Recorder()));
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.placeBid(1, "M", 1, 1));
    }

    @Test
    void aRefusedLoginFailsConnectAndIsNotRetried() throws Exception
    {
        final Recorder recorder = new Recorder();
        final ClientContext ctx = context(recorder).secretHex(SECRET_HEX.replace('0', '1'));
        try (GpuxClient client = new GpuxClient(ctx))
        {
            final GpuxSessionException refused = assertThrows(GpuxSessionException.class, client::connect);
            assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, refused.code());
            assertEquals(1, recorder.sessionErrors.size());
            await("the disconnect reported", () -> !recorder.disconnects.isEmpty());
            assertTrue(recorder.disconnects.get(0).endsWith("(final)"), "no reconnect planned: " + recorder.disconnects);
            // a task on the client's own event loop, due after the longest reconnect delay: a reconnect timer set at the
            // refusal would have fired before it
            final CountDownLatch pastBackoff = new CountDownLatch(1);
            client.schedule(2 * ctx.reconnectBackoffMax().toMillis(), pastBackoff::countDown);
            assertTrue(pastBackoff.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the client's event loop runs");
            assertEquals(1, gateway.connections, "no reconnect after a refused first Login");
            assertEquals(1, recorder.disconnects.size(), recorder.disconnects.toString());
            assertFalse(client.isConnected());
        }
    }

    @Test
    void aSilentGatewayIsTreatedAsDeadAndTheClientHeartbeats() throws Exception
    {
        gateway.heartbeatIntervalMs = 100;
        gateway.silentAfterLogin = true;
        final Recorder recorder = new Recorder();
        try (GpuxClient client = new GpuxClient(context(recorder)))
        {
            client.connect();
            await("a heartbeat from the client", () -> gateway.received(Envelope.BodyCase.HEARTBEAT) >= 1);
            await("a reconnect after two silent intervals", () -> gateway.logins.size() >= 2);
            assertTrue(recorder.disconnects.get(0).contains("silent"), recorder.disconnects.toString());
            assertNotNull(client.loginAccepted());
        }
    }

    @Test
    void aConnectionRefusedFailsConnect()
    {
        final ClientContext ctx = context(new Recorder()).port(1).connectTimeout(Duration.ofSeconds(1));
        try (GpuxClient client = new GpuxClient(ctx))
        {
            assertThrows(java.io.IOException.class, client::connect);
        }
    }

    @Test
    void sharedLoopCarriesManyClients() throws Exception
    {
        final List<GpuxClient> clients = new ArrayList<>();
        final List<Recorder> recorders = new ArrayList<>();
        try
        {
            for (int i = 0; i < 20; i++)
            {
                final Recorder recorder = new Recorder();
                recorders.add(recorder);
                clients.add(new GpuxClient(context(recorder).clientName("client-" + i)));
            }
            for (final GpuxClient client : clients)
            {
                client.connect();
            }
            final long[] requests = new long[clients.size()];
            for (int i = 0; i < clients.size(); i++)
            {
                requests[i] = clients.get(i).placeBid(clients.get(i).nextOrderId(), "M", 1, 10_000);
            }
            for (int i = 0; i < clients.size(); i++)
            {
                final Recorder recorder = recorders.get(i);
                final long request = requests[i];
                await("client " + i, () -> recorder.responses.containsKey(request));
            }
        }
        finally
        {
            clients.forEach(GpuxClient::close);
        }
    }
}
