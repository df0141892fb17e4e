package io.gpux.client.e2e;

import com.google.protobuf.ByteString;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.MARKET;
import static io.gpux.client.e2e.E2e.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java client meets the gateway's per-account resend limit: while another connection of the
 * account holds the one resend allowed (it asked for the whole history and does not read it), the
 * client's reconnect, which needs a resend, is refused with TOO_MANY_RESENDS; the client keeps
 * retrying (the refusal is not fatal), and once the place is free it resumes: every event it missed,
 * once, in order, then live.
 */
class ResendLimitEndToEndTest
{
    private static final int HEARTBEAT_MS = 1000;
    /**
     * Bids and cancels of a history whose resend cannot finish without the client reading: its frames
     * (over 5 MiB) are more than the socket buffers of a loopback connection (up to 4 MiB) and the
     * high-water mark hold.
     */
    private static final int HISTORY_PAIRS = 60_000;

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    /** What the test opened, closed after it, the last opened first. */
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll()
    {
        final List<AutoCloseable> lastFirst = new ArrayList<>(opened);
        Collections.reverse(lastFirst);
        E2e.closeQuietly(lastFirst.toArray(AutoCloseable[]::new));
    }

    private <T extends AutoCloseable> T opened(final T closeable)
    {
        opened.add(closeable);
        return closeable;
    }

    /** Resting bids, each cancelled: the account's history, in pipelined batches. */
    private static void history(final GpuxClient client, final int pairs) throws Exception
    {
        final int batch = 500;
        for (int from = 1; from <= pairs; from += batch)
        {
            final int to = Math.min(pairs, from + batch - 1);
            for (int id = from; id <= to; id++)
            {
                client.placeBid(id, MARKET, 1, Money.parsePrice("0.0100") + id % 50);
            }
            for (int id = from; id < to; id++)
            {
                client.cancel(id);
            }
            E2e.ok(client, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(to)));
        }
    }

    /**
     * A connection that logs in asking for the whole history, reads the LoginAccepted, and then reads
     * nothing; it sends a Heartbeat every half interval as a live client would, so that the gateway keeps
     * it (and the resend it holds) until the test closes it, however late the other client's reconnect.
     */
    private static AutoCloseable stalledResend(final int port, final E2e.Key key) throws Exception
    {
        final Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(10_000);
        final byte[] nonce = new byte[16];
        new SecureRandom().nextBytes(nonce);
        final long now = System.currentTimeMillis();
        final byte[] signature = Authenticator.sign(HexFormat.of().parseHex(key.secret()), key.id(), now, nonce);
        final byte[] login = Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(key.id()).setTimestampMs(now)
            .setNonce(ByteString.copyFrom(nonce)).setSignature(ByteString.copyFrom(signature)).setLastSeq(0)).build().toByteArray();
        final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(login.length);
        out.write(login);
        out.flush();
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        final Envelope accepted = Envelope.parseFrom(frame);
        assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
        final ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "stalled-resend-heartbeats");
            t.setDaemon(true);
            return t;
        });
        beats.scheduleAtFixedRate(() ->
        {
            final byte[] beat = Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder()
                .setTimeMs(System.currentTimeMillis())).build().toByteArray();
            try
            {
                out.writeInt(beat.length);
                out.write(beat);
                out.flush();
            }
            catch (final IOException closed)
            {
                beats.shutdown();
            }
        }, 0, HEARTBEAT_MS / 2, TimeUnit.MILLISECONDS);
        return () ->
        {
            beats.shutdownNow();
            beats.awaitTermination(5, TimeUnit.SECONDS);
            socket.close();
        };
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aReconnectRefusedForTooManyResendsRetriesAndResumesOnceThePlaceIsFree() throws Exception
    {
        final ConcurrentLinkedQueue<String> exchangeLog = new ConcurrentLinkedQueue<>();
        dump.register("exchange log", () -> String.join("\n", exchangeLog));
        final Exchange exchange = opened(Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).configFile(E2e.resource("quiet.scn", dir))
            .port(0).heartbeatIntervalMs(HEARTBEAT_MS).maxResendsPerAccount(1).outboundHighWaterBytes(64 * 1024)
            .log(exchangeLog::add)));
        final int port = exchange.port();
        final GpuxClient admin = opened(E2e.connect(port,
            new E2e.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret()), new Recorder("admin")));
        final E2e.Key key = E2e.account(admin, "renter", Role.RENTER, 1_000_000_000_000_000L);
        final GpuxClient worker = opened(E2e.connect(port, key, new Recorder("worker")));
        history(worker, HISTORY_PAIRS);

        final TcpProxy proxy = opened(new TcpProxy(port));
        final Recorder seen = new Recorder("resuming");
        final GpuxClient resuming = opened(E2e.connect(proxy.port(), key, seen,
            ctx -> ctx.reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200))));
        final AutoCloseable stalled = opened(stalledResend(port, key));

        // the resuming client goes deaf and misses events; when it notices and reconnects it needs a resend
        proxy.suspendAll();
        for (int id = 1; id <= 5; id++)
        {
            final long orderId = 1_000_000 + id;
            worker.placeBid(orderId, MARKET, 1, Money.parsePrice("0.0200"));
            E2e.ok(worker, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(orderId)));
        }
        final long accountLast = worker.lastSeq();
        E2e.await("the reconnect refused for too many resends", TIMEOUT, () -> seen.sessionErrors().stream()
            .map(SessionError::getCode).anyMatch(code -> code == SessionErrorCode.TOO_MANY_RESENDS),
            () -> "session errors " + seen.sessionErrors() + ", connections through the proxy " + proxy.accepted() +
                ", connected " + resuming.isConnected() + ", logins " + seen.logins().size() + ", resends " + seen.resends());
        final SessionError refusal = seen.sessionErrors().stream()
            .filter(e -> e.getCode() == SessionErrorCode.TOO_MANY_RESENDS).findFirst().orElseThrow();
        assertTrue(refusal.getMessage().contains("resends in progress"), refusal::toString);

        // the stalled resend goes away: the client's next try gets in and resumes
        stalled.close();
        // the resend's ResendComplete follows its last event: wait for both
        E2e.await("the resumed client at the account's last event, its resend complete", TIMEOUT,
            () -> resuming.lastSeq() == accountLast && !seen.resends().isEmpty(),
            () -> "client at " + resuming.lastSeq() + ", account at " + accountLast + ", resends " + seen.resends());
        final List<AccountEvent> events = seen.events();
        for (int i = 1; i < events.size(); i++)
        {
            assertEquals(events.get(i - 1).getSeq() + 1, events.get(i).getSeq(), "every event once, in order");
        }
        assertEquals(accountLast, events.get(events.size() - 1).getSeq());
        assertTrue(seen.resends().stream().anyMatch(r -> r.getEventsResent() == 10), seen.resends()::toString);

        // and live from there
        final long orderId = resuming.nextOrderId();
        E2e.ok(resuming, Envelope.newBuilder().setPlaceBid(io.gpux.proto.v1.PlaceBid.newBuilder()
            .setOrderId(orderId).setMarket(MARKET).setGpus(1).setPrice(Money.parsePrice("0.0300"))));
        assertEquals(accountLast + 1, resuming.lastSeq());
    }
}
