package io.gpux.client.e2e;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.Side;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.MARKET;
import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cancel-on-disconnect when a client goes silent without closing: two renters rest bids through a
 * proxy, one session with {@code cancel_on_disconnect}, one without; then the proxy freezes both
 * connections (nothing forwarded either way, no close). The gateway declares both dead after two
 * heartbeat intervals of silence; only the flagged account's orders are cancelled ({@code MASS_CANCEL}),
 * seen live by another session of that account and by a market-data subscriber; the other account's
 * orders stay on the book.
 */
class CancelOnDisconnectEndToEndTest
{
    private static final int HEARTBEAT_MS = 1000;
    /** Allowance for a loaded CI machine on top of what the protocol promises. */
    private static final long SLACK_MS = 5_000;
    private static final long[] FLAGGED_PRICES = {Money.parsePrice("1.0000"), Money.parsePrice("1.1000"), Money.parsePrice("1.2000")};
    private static final long[] PLAIN_PRICES = {Money.parsePrice("1.3000"), Money.parsePrice("1.4000"), Money.parsePrice("1.5000")};
    private static final long MARKER_PRICE = Money.parsePrice("0.5000");

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private Exchange exchange;
    private TcpProxy proxy;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        E2e.closeQuietly(proxy);
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            E2e.closeQuietly(closeables.get(i));
        }
        E2e.closeQuietly(exchange);
    }

    private GpuxClient connect(final int port, final E2e.Key key, final Recorder recorder,
        final java.util.function.Consumer<ClientContext> settings) throws Exception
    {
        final GpuxClient client = E2e.connect(port, key, recorder, settings);
        closeables.add(client);
        return client;
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aSilentSessionWithTheFlagHasItsOrdersCancelledAndOneWithoutDoesNot() throws Exception
    {
        final ConcurrentLinkedQueue<String> exchangeLog = new ConcurrentLinkedQueue<>();
        dump.register("exchange log", () -> String.join("\n", exchangeLog));
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).configFile(E2e.resource("quiet.scn", dir))
            .port(0).heartbeatIntervalMs(HEARTBEAT_MS).log(exchangeLog::add));
        final int port = exchange.port();
        final GpuxClient admin = connect(port, new E2e.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret()),
            new Recorder("admin"), null);
        final E2e.Key flaggedKey = E2e.account(admin, "flagged", Role.RENTER, 1_000_000_000L);
        final E2e.Key plainKey = E2e.account(admin, "plain", Role.RENTER, 1_000_000_000L);
        final E2e.Key watcherKey = E2e.account(admin, "watcher", Role.RENTER, 0);
        final E2e.Key markerKey = E2e.account(admin, "marker", Role.RENTER, 1_000_000_000L);

        // observers, connected directly: the book, and a second session of the flagged account
        final Recorder book = new Recorder("book watcher", MARKET);
        final GpuxClient watcher = connect(port, watcherKey, book, null);
        watcher.subscribe(MARKET);
        E2e.await("the book snapshot", () -> book.bookGpusAt(Side.BID, FLAGGED_PRICES[0]) >= 0);
        final Recorder flaggedSeen = new Recorder("flagged observer");
        connect(port, flaggedKey, flaggedSeen, null);

        // the two renters, through the proxy, never reconnecting by themselves
        proxy = new TcpProxy(port);
        final GpuxClient flagged = connect(proxy.port(), flaggedKey, new Recorder("flagged"),
            ctx -> ctx.cancelOnDisconnect(true).reconnect(false));
        assertEquals(1, proxy.accepted(), "the flagged session is the proxy's first connection");
        final GpuxClient plain = connect(proxy.port(), plainKey, new Recorder("plain"), ctx -> ctx.reconnect(false));
        rest(flagged, FLAGGED_PRICES);
        rest(plain, PLAIN_PRICES);
        for (final long price : concat(FLAGGED_PRICES, PLAIN_PRICES))
        {
            E2e.await("the bid at " + Money.formatPrice(price) + " on the book", TIMEOUT,
                () -> book.bookGpusAt(Side.BID, price) == 2, book::book);
        }

        // both go silent: not a byte either way, no close
        final List<TcpProxy.Link> frozen = proxy.suspendAll();
        final long silentAt = System.nanoTime();
        assertEquals(2, frozen.size());

        final List<AccountEvent> cancels = new ArrayList<>();
        E2e.await("the flagged account's orders cancelled", Duration.ofSeconds(30), () ->
        {
            cancels.clear();
            cancels.addAll(flaggedSeen.events(AccountEvent.KindCase.CANCELLED));
            return cancels.size() == FLAGGED_PRICES.length;
        }, () -> E2e.describe(flaggedSeen.events()));
        final long cancelledAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentAt);
        for (final AccountEvent e : cancels)
        {
            assertEquals(CancelReason.MASS_CANCEL, e.getCancelled().getReason(), e::toString);
            assertEquals(2, e.getCancelled().getRemaining());
        }
        assertTrue(cancelledAfterMs <= 2 * HEARTBEAT_MS + SLACK_MS,
            "cancelled " + cancelledAfterMs + " ms after going silent: more than two heartbeat intervals (+ slack)");
        // the gateway itself ended the flagged session (heartbeat timeout: it closed the connection), and
        // cancelled within two intervals of that
        final TcpProxy.Link flaggedLink = proxy.allLinks().get(0);
        E2e.await("the gateway closing the flagged connection", TIMEOUT, () -> flaggedLink.upstreamEndNanos() != 0, null);
        final long sinceDetectionMs = cancelledAfterMs - TimeUnit.NANOSECONDS.toMillis(flaggedLink.upstreamEndNanos() - silentAt);
        assertTrue(sinceDetectionMs <= 2 * HEARTBEAT_MS + SLACK_MS, "cancelled " + sinceDetectionMs + " ms after the detection");
        for (final long price : FLAGGED_PRICES)
        {
            E2e.await("the flagged bid at " + Money.formatPrice(price) + " gone from the book", TIMEOUT,
                () -> book.bookGpusAt(Side.BID, price) == 0, book::book);
        }

        // the gateway gave up on the plain session too (it closed it), yet its orders stay
        E2e.await("the gateway closing both silent connections", TIMEOUT,
            () -> frozen.stream().allMatch(l -> l.upstreamEndNanos() != 0), null);
        // a cancel for a closed session is published as it closes: a bid placed after both closes, once on the book,
        // comes after any such cancel in the book's updates
        rest(connect(port, markerKey, new Recorder("marker"), null), new long[] {MARKER_PRICE});
        E2e.await("the later bid on the book", TIMEOUT, () -> book.bookGpusAt(Side.BID, MARKER_PRICE) == 2, book::book);
        for (final long price : PLAIN_PRICES)
        {
            assertEquals(2, book.bookGpusAt(Side.BID, price), () -> "the plain bid at " + Money.formatPrice(price) + ": " + book.book());
        }
        final Recorder plainAfter = new Recorder("plain after");
        final GpuxClient plainAgain = connect(port, plainKey, plainAfter, ctx -> ctx.lastSeq(0));
        E2e.await("the plain account's history", () -> !plainAfter.resends().isEmpty());
        assertTrue(plainAfter.events(AccountEvent.KindCase.CANCELLED).isEmpty(), () -> E2e.describe(plainAfter.events()));
        final Portfolio plainFolio = plainAgain.portfolio(TIMEOUT);
        assertEquals(PLAIN_PRICES.length, plainFolio.getOrdersCount(), plainFolio::toString);
        final Portfolio flaggedFolio = connect(port, flaggedKey, new Recorder("flagged after"), null).portfolio(TIMEOUT);
        assertEquals(0, flaggedFolio.getOrdersCount(), flaggedFolio::toString);
        System.out.printf("e2e cancel-on-disconnect: orders cancelled %d ms after the client went silent (heartbeat %d ms)%n",
            cancelledAfterMs, HEARTBEAT_MS);
    }

    private static void rest(final GpuxClient client, final long[] prices) throws Exception
    {
        for (final long price : prices)
        {
            ok(client, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(client.nextOrderId()).setMarket(MARKET).setGpus(2).setPrice(price)));
        }
    }

    private static long[] concat(final long[] a, final long[] b)
    {
        final long[] all = new long[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
