package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RevokeKey;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An admin revokes the key of a connected client that reconnects by itself: the client is told
 * (KEY_REVOKED), is disconnected, and gives up instead of trying the dead key again and again; an
 * admin client whose own key is revoked can create nothing more.
 */
class RevokeKeyEndToEndTest
{
    @TempDir
    Path dir;

    private Exchange exchange;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            E2e.closeQuietly(closeables.get(i));
        }
        E2e.closeQuietly(exchange);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aRevokedClientIsToldDisconnectedAndDoesNotComeBack() throws Exception
    {
        final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).log(log::add));
        final int port = exchange.port();
        final GpuxClient admin = connect(port, new E2e.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret()),
            new Recorder("admin"));
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, 0);
        final E2e.Key deputyKey = E2e.account(admin, "deputy", Role.ADMIN, 0);
        final Recorder renterSeen = new Recorder("renter");
        final GpuxClient renter = connect(port, renterKey, renterSeen);
        final GpuxClient deputy = connect(port, deputyKey, new Recorder("deputy"));

        ok(admin, Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(renterKey.id())));
        E2e.await("the renter told", () -> !renterSeen.sessionErrors().isEmpty());
        final SessionError error = renterSeen.sessionErrors().get(0);
        assertEquals(SessionErrorCode.KEY_REVOKED, error.getCode(), error::toString);
        E2e.await("the renter disconnected", () -> !renter.isConnected());
        // past the first reconnect delay, a reconnect planned at the disconnect would have begun
        E2e.awaitClientLoopPast(renter, renter.context().reconnectBackoffInitial().multipliedBy(2));
        assertEquals(0, renterSeen.reconnectingDisconnects(), "no reconnect planned with a revoked key");
        assertFalse(renter.isConnected(), "no reconnect with a revoked key");
        assertEquals(0, exchange.failedLogins(), "not one login tried with the dead key");

        ok(deputy, Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(deputyKey.id())));
        E2e.await("the deputy disconnected", () -> !deputy.isConnected());
        assertThrows(Exception.class, () -> deputy.call(Envelope.newBuilder().setCreateAccount(
            io.gpux.proto.v1.CreateAccount.newBuilder().setName("made-by-deputy").addRoles(Role.ADMIN)), java.time.Duration.ofSeconds(3)));
        assertEquals(Reason.REASON_OK, admin.call(Envelope.newBuilder().setCreateAccount(
            io.gpux.proto.v1.CreateAccount.newBuilder().setName("made-by-deputy").addRoles(Role.RENTER)), E2e.TIMEOUT).getReason(),
            "the revoked deputy created no account");
    }

    private GpuxClient connect(final int port, final E2e.Key key, final Recorder recorder) throws Exception
    {
        final GpuxClient client = E2e.connect(port, key, recorder);
        closeables.add(client);
        return client;
    }
}
