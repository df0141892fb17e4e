package io.gpux.gateway;

import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiFunction;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fresh exchange on a temporary directory and an ephemeral 127.0.0.1 port, with its log kept in
 * memory (tests look for the lines the gateway writes when it cuts a connection, or fails on one);
 * closing it closes the exchange and deletes the directory.
 */
final class TestExchange implements AutoCloseable
{
    /** An API key as CreateKey answered it. */
    record Key(long id, String secret)
    {
    }

    final Path dir;
    final Exchange exchange;
    final Key admin;
    final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();

    private TestExchange(final Path dir, final UnaryOperator<ExchangeContext> settings) throws Exception
    {
        this.dir = dir;
        exchange = Exchange.start(settings.apply(new ExchangeContext().dataDir(dir).port(0).bind("127.0.0.1")
            .log(log::add)));
        assertNotNull(exchange.bootstrapKey(), "a fresh exchange makes an admin key");
        admin = new Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret());
    }

    static TestExchange start(final UnaryOperator<ExchangeContext> settings) throws Exception
    {
        final Path dir = Files.createTempDirectory("gpux-gateway-test");
        try
        {
            return new TestExchange(dir, settings);
        }
        catch (final Exception | Error ex)
        {
            deleteRecursively(dir);
            throw ex;
        }
    }

    int port()
    {
        return exchange.port();
    }

    RawConnection connect() throws IOException
    {
        return new RawConnection(exchange.port());
    }

    /** A logged-in connection (fails the test if the login is refused). */
    RawConnection login(final Key key) throws IOException
    {
        final RawConnection c = connect();
        final Envelope accepted = c.login(key.id(), key.secret());
        assertNotNull(accepted, "closed instead of answering the login");
        assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
        return c;
    }

    /** Creates an account with the roles, deposits {@code money} (if positive) and makes a key for it. */
    static Key account(final RawConnection adminConn, final String name, final long money, final Role... roles)
        throws IOException
    {
        final CreateAccount.Builder create = CreateAccount.newBuilder().setName(name);
        for (final Role role : roles)
        {
            create.addRoles(role);
        }
        ok(adminConn, Envelope.newBuilder().setCreateAccount(create));
        if (money > 0)
        {
            ok(adminConn, Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount(name).setAmount(money)));
        }
        final Response r = ok(adminConn, Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(name)));
        return new Key(r.getAssignedId(), r.getSecret());
    }

    /** Sends a command and reads its Response (skipping other frames); asserts REASON_OK. */
    static Response ok(final RawConnection c, final Envelope.Builder request) throws IOException
    {
        final Response r = response(c, request);
        assertEquals(Reason.REASON_OK, r.getReason(), r::toString);
        return r;
    }

    /** Sends a request and reads the Response to it (skipping other frames). */
    static Response response(final RawConnection c, final Envelope.Builder request) throws IOException
    {
        final Envelope e = c.responseTo(c.request(request));
        assertEquals(Envelope.BodyCase.RESPONSE, e.getBodyCase(), e::toString);
        return e.getResponse();
    }

    /** The lines logged so far that contain {@code text}. */
    List<String> logLines(final String text)
    {
        return log.stream().filter(line -> line.contains(text)).toList();
    }

    @Override
    public void close()
    {
        try
        {
            exchange.close();
        }
        finally
        {
            deleteRecursively(dir);
        }
    }

    /**
     * A start whose extra port ({@code withPort} sets it) is taken by another socket fails with a
     * BindException whose message starts with {@code reason} and whose one line for the user ends by
     * naming {@code option}; it leaves the data directory free for a start on a free port (0).
     */
    static void assertPortInUseFailsTheStart(final BiFunction<ExchangeContext, Integer, ExchangeContext> withPort,
        final String reason, final String option, final ToIntFunction<Exchange> portOf) throws Exception
    {
        final Path data = Files.createTempDirectory("gpux-port-test");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")))
        {
            final BindException ex = assertThrows(BindException.class, () -> Exchange.start(withPort.apply(new ExchangeContext()
                .dataDir(data).port(0).bind("127.0.0.1").log(s -> { }), taken.getLocalPort())));
            assertTrue(ex.getMessage().startsWith(reason + " on 127.0.0.1:" + taken.getLocalPort()), ex.getMessage());
            final String line = ServerMain.startFailure(ex, data);
            assertTrue(line.endsWith("choose another " + option), line);
            try (Exchange again = Exchange.start(withPort.apply(new ExchangeContext().dataDir(data).port(0).bind("127.0.0.1")
                .log(s -> { }), 0)))
            {
                assertTrue(portOf.applyAsInt(again) > 0, "the failed start left the directory free");
            }
        }
        finally
        {
            deleteRecursively(data);
        }
    }

    static void deleteRecursively(final Path dir)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p ->
            {
                try
                {
                    Files.deleteIfExists(p);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
