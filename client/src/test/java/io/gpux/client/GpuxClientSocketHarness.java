package io.gpux.client;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionError;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the client's socket tests share: the client over real sockets against a {@link FakeGateway}, started before
 * each test on an ephemeral port of 127.0.0.1, and a shared client event loop group.
 */
abstract class GpuxClientSocketHarness
{
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    static final String SECRET_HEX = FakeGateway.SECRET_HEX;

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

    final FakeGateway gateway = new FakeGateway();
    EventLoopGroup clientGroup;
    private int port;

    @BeforeEach
    void startGateway() throws InterruptedException
    {
        clientGroup = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        port = gateway.start();
    }

    @AfterEach
    void stopGateway()
    {
        gateway.stop();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    ClientContext context(final Recorder recorder)
    {
        return new ClientContext()
            .host("127.0.0.1").port(port).keyId(FakeGateway.KEY_ID).secretHex(SECRET_HEX)
            .listener(recorder)
            .eventLoopGroup(clientGroup)
            .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100))
            // no test here waits for the login deadline: it only has to outlast a cold first Login on a loaded machine
            .loginTimeout(Duration.ofSeconds(10))
            .errorHandler(ex -> ex.printStackTrace());
    }

    static void await(final String what, final BooleanSupplier condition) throws InterruptedException
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
}
