package io.gpux.client.e2e;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.TimeInForce;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.gpux.client.e2e.E2e.MARKET;
import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Order entry that survives 100 forced disconnects: a renter's client, behind a proxy that resets
 * its connection at random moments (seeded), places 2000 orders while the connection keeps dying.
 * Afterwards every order executed exactly once, no answer is missing or doubled, and the client's
 * account events are exactly the server's: numbered without a gap or a repeat, identical to what a
 * session that was never cut received.
 */
class ForcedDisconnectsEndToEndTest
{
    private static final long SEED = 20_250_701L;
    private static final int ORDERS = 2000;
    private static final int CUTS = 100;
    private static final int MACHINES = 4;
    private static final int MACHINE_GPUS = 1024;
    private static final long ASK_PRICE = Money.parsePrice("2.0000");
    private static final long IOC_PRICE = Money.parsePrice("2.5000");
    private static final long RESTING_PRICE = Money.parsePrice("1.0000");

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
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            E2e.closeQuietly(closeables.get(i));
        }
        E2e.closeQuietly(proxy, exchange);
    }

    private GpuxClient connect(final int port, final E2e.Key key, final Recorder recorder,
        final java.util.function.Consumer<ClientContext> settings) throws Exception
    {
        final GpuxClient client = E2e.connect(port, key, recorder, settings);
        closeables.add(client);
        return client;
    }

    private record Order(long orderId, long requestId, int gpus, boolean ioc)
    {
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void everyOrderExecutesOnceAndNoEventIsLostOrDoubledAcrossAHundredCuts() throws Exception
    {
        final ConcurrentLinkedQueue<String> exchangeLog = new ConcurrentLinkedQueue<>();
        dump.register("exchange log", () -> String.join("\n", exchangeLog));
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).configFile(E2e.resource("quiet.scn", dir))
            .port(0).heartbeatIntervalMs(3000).log(exchangeLog::add));
        final E2e.Key adminKey = new E2e.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret());
        final int port = exchange.port();

        final GpuxClient admin = connect(port, adminKey, new Recorder("admin"), null);
        final E2e.Key ownerKey = E2e.account(admin, "owner", Role.OWNER, 0);
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, 1_000_000L * 1_000_000L);

        // an owner with enough GPUs on offer for every IOC bid
        final GpuxClient owner = connect(port, ownerKey, new Recorder("owner"), null);
        for (int m = 0; m < MACHINES; m++)
        {
            final long machine = ok(owner, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                .setName("node-" + m).setMarket(MARKET).setGpus(MACHINE_GPUS))).getAssignedId();
            ok(owner, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
            ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                .setOrderId(owner.nextOrderId()).setMachineId(machine).setGpus(MACHINE_GPUS).setPrice(ASK_PRICE)));
        }

        // a session of the renter's account that is never cut: the reference stream
        final Recorder observed = new Recorder("observer");
        final GpuxClient observer = connect(port, renterKey, observed, null);

        // the renter's trading client, behind the proxy that keeps cutting it off
        proxy = new TcpProxy(port);
        final Recorder traded = new Recorder("trader");
        final GpuxClient trader = connect(proxy.port(), renterKey, traded, ctx -> ctx
            .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
            .firstOrderId(1_000_000));
        dump.register("trader events", () -> E2e.describe(traded.events()));
        final long seqAtStart = trader.lastSeq();
        assertEquals(observer.loginAccepted().getLastSeq(), seqAtStart, "nothing happened between the two logins");

        // one thread places the orders over time, non-blocking; this one cuts the connection
        final Random placing = new Random(SEED);
        final List<Order> orders = new ArrayList<>(ORDERS);
        final AtomicReference<Throwable> placerFailure = new AtomicReference<>();
        final Thread placer = new Thread(() ->
        {
            try
            {
                for (int i = 0; i < ORDERS; i++)
                {
                    final boolean ioc = placing.nextInt(10) != 0;
                    final int gpus = ioc ? 1 + placing.nextInt(2) : 1;
                    final long orderId = trader.nextOrderId();
                    final long requestId = trader.placeBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(MARKET)
                        .setGpus(gpus).setPrice(ioc ? IOC_PRICE : RESTING_PRICE)
                        .setTif(ioc ? TimeInForce.IOC : TimeInForce.GTC).build());
                    synchronized (orders)
                    {
                        orders.add(new Order(orderId, requestId, gpus, ioc));
                    }
                    if (placing.nextInt(4) == 0)
                    {
                        Thread.sleep(placing.nextInt(6));
                    }
                }
            }
            catch (final Throwable t)
            {
                placerFailure.set(t);
            }
        }, "e2e-order-placer");
        placer.setDaemon(true);
        placer.start();

        final Random cutting = new Random(SEED + 1);
        int cuts = 0;
        while (cuts < CUTS)
        {
            E2e.await("the trader logged in again after cut " + cuts, TIMEOUT, trader::isConnected,
                () -> "proxy accepted " + proxy.accepted() + " connections");
            Thread.sleep(cutting.nextInt(25));
            if (proxy.cutAll() > 0)
            {
                cuts++;
            }
        }
        placer.join(TIMEOUT.toMillis());
        assertNull(placerFailure.get(), () -> "placing failed: " + placerFailure.get());
        assertEquals(ORDERS, orders.size());

        // every order answered
        E2e.await("every order answered", Duration.ofSeconds(60), () -> trader.unansweredCommands() == 0,
            () -> trader.unansweredCommands() + " unanswered, connected=" + trader.isConnected());
        E2e.await("the client noticing every cut", TIMEOUT, () -> traded.reconnectingDisconnects() >= CUTS,
            () -> traded.reconnectingDisconnects() + " disconnects");
        E2e.await("the trader logged in after the last cut", TIMEOUT, trader::isConnected, null);
        assertTrue(proxy.accepted() > CUTS, "a connection after every cut: " + proxy.accepted());

        // the server's view: the account's last event, seen by a fresh login; the observer caught up to it
        final Recorder fresh = new Recorder("fresh");
        // (a Portfolio of ~2700 leases is larger than the 64 KiB frames the gateway announces: see the report)
        final GpuxClient freshClient = connect(port, renterKey, fresh, ctx -> ctx.maxFrameBytes(16 << 20));
        final long serverLastSeq = freshClient.loginAccepted().getLastSeq();
        E2e.await("the trader at the server's last event", TIMEOUT, () -> traded.lastEventSeq() == serverLastSeq,
            () -> "trader " + trader.lastSeq() + " (recorded " + traded.lastEventSeq() + "), server " + serverLastSeq);
        E2e.await("the observer at the server's last event", TIMEOUT, () -> observed.lastEventSeq() == serverLastSeq,
            () -> "observer " + observer.lastSeq() + " (recorded " + observed.lastEventSeq() + "), server " + serverLastSeq);

        // no account event lost or seen twice, and each one as the never-cut session saw it
        final List<AccountEvent> events = traded.events();
        assertEquals(serverLastSeq - seqAtStart, events.size(), "events delivered to the trader");
        for (int i = 0; i < events.size(); i++)
        {
            assertEquals(seqAtStart + 1 + i, events.get(i).getSeq(), "seq at position " + i);
        }
        assertEquals(observed.events(), events, "the trader's events are the never-cut session's events");

        // every order answered exactly once, never with DUPLICATE_ORDER_ID, accepted exactly once
        final Map<Long, Integer> accepted = new HashMap<>();
        final Map<Long, Integer> filled = new HashMap<>();
        final Map<Long, Integer> cancelled = new HashMap<>();
        for (final AccountEvent e : events)
        {
            switch (e.getKindCase())
            {
                case ACCEPTED -> accepted.merge(e.getAccepted().getOrderId(), 1, Integer::sum);
                case FILL -> filled.merge(e.getFill().getOrderId(), e.getFill().getGpus(), Integer::sum);
                case CANCELLED -> cancelled.merge(e.getCancelled().getOrderId(), 1, Integer::sum);
                case REJECTED -> fail("no order is rejected: " + e);
                default ->
                {
                }
            }
        }
        int expectedGpus = 0;
        int resting = 0;
        int settledByEvent = 0;
        int settledOnResend = 0;
        for (final Order order : orders)
        {
            final List<Response> answers = traded.responses(order.requestId());
            assertEquals(1, answers.size(), () -> order + " answered " + answers);
            final Response answer = answers.get(0);
            assertNotEquals(Reason.DUPLICATE_ORDER_ID, answer.getReason(), order::toString);
            assertEquals(Reason.REASON_OK, answer.getReason(), () -> order + " answered " + answer);
            settledByEvent += answer.getMessage().startsWith("settled by account event") ? 1 : 0;
            settledOnResend += answer.getMessage().startsWith("settled: the command went through") ? 1 : 0;
            assertEquals(1, accepted.getOrDefault(order.orderId(), 0), () -> order + " accepted once");
            if (order.ioc())
            {
                assertEquals(order.gpus(), filled.getOrDefault(order.orderId(), 0), () -> order + " filled exactly");
                assertEquals(0, cancelled.getOrDefault(order.orderId(), 0), () -> order + " filled in full, nothing cancelled");
                expectedGpus += order.gpus();
            }
            else
            {
                assertEquals(0, filled.getOrDefault(order.orderId(), 0), () -> order + " rests below the asks");
                resting++;
            }
        }
        assertEquals(ORDERS, accepted.size(), "no order id the test did not place");

        // the server agrees: the leases and the resting orders of the account
        final Portfolio portfolio = freshClient.portfolio(TIMEOUT);
        assertEquals(expectedGpus, portfolio.getLeasesList().stream().mapToInt(l -> l.getGpus()).sum(), "GPUs leased");
        assertEquals(expectedGpus, filled.values().stream().mapToInt(Integer::intValue).sum());
        assertEquals(resting, portfolio.getOrdersCount());
        for (final OpenOrder o : portfolio.getOrdersList())
        {
            assertEquals(RESTING_PRICE, o.getPrice());
            assertEquals(1, o.getOpenGpus());
        }
        System.out.printf("e2e forced disconnects: %d cuts, %d client disconnects, %d connections, %d orders (%d GPUs leased, %d resting),"
                + " %d events; %d answers settled from events, %d re-sends settled as already done%n",
            cuts, traded.reconnectingDisconnects(), proxy.accepted(), ORDERS, expectedGpus, resting, events.size(),
            settledByEvent, settledOnResend);
    }
}
