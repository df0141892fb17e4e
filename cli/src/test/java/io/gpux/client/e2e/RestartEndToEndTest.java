package io.gpux.client.e2e;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.gpux.client.e2e.E2e.MARKET;
import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A crash of the exchange process (SIGKILL) and a restart on the same data directory, with a real server
 * process (docs/market-rules.md section 14): a market-maker's bid from a cancel-on-disconnect session is
 * cancelled at the restart ({@code EXCHANGE_RESTART}), before any client can see it, and an owner's machine
 * whose heartbeat timeout fell due during the outage keeps its lease, because its agent heartbeats again
 * within the fresh window the restart gives it.
 */
class RestartEndToEndTest
{
    /** The config's heartbeat timeout; the outage is longer. */
    private static final long HEARTBEAT_TIMEOUT_MS = 3_000;
    private static final long OUTAGE_MS = HEARTBEAT_TIMEOUT_MS + 1_000;
    private static final long DEPOSIT = 10_000_000_000L;

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private ScheduledExecutorService heartbeats;
    private final List<GpuxClient> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown()
    {
        if (heartbeats != null)
        {
            heartbeats.shutdownNow();
        }
        clients.forEach(E2e::closeQuietly);
        if (server != null)
        {
            server.close();
        }
    }

    private GpuxClient connect(final E2e.Key key, final Recorder recorder, final java.util.function.Consumer<ClientContext> settings)
        throws Exception
    {
        final GpuxClient client = E2e.connect(server.port(), key, recorder, settings);
        clients.add(client);
        return client;
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aCrashCancelsTheQuotesOfCancelOnDisconnectSessionsAndSparesMachinesThatHeartbeatAgain() throws Exception
    {
        server = new ServerProcess(dir, E2e.resource("restart.scn", dir), 1000);
        dump.register("server process output", server::log);
        server.start();
        final GpuxClient admin = connect(server.adminKey(), new Recorder("admin"), null);
        final E2e.Key ownerKey = E2e.account(admin, "owner", Role.OWNER, 0);
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, DEPOSIT);
        final E2e.Key mmKey = E2e.account(admin, "mm", Role.MARKET_MAKER, DEPOSIT);

        // the owner's machine, heartbeating every 250 ms through whichever client is current
        final Recorder ownerEvents = new Recorder("owner");
        final AtomicReference<GpuxClient> ownerClient = new AtomicReference<>(connect(ownerKey, ownerEvents, null));
        final long machine = ok(ownerClient.get(), Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName("node-1").setMarket(MARKET).setGpus(2).setRegion("eu"))).getAssignedId();
        heartbeats = Executors.newSingleThreadScheduledExecutor();
        heartbeats.scheduleAtFixedRate(() -> E2e.machineHeartbeat(ownerClient.get(), machine), 0, 250, TimeUnit.MILLISECONDS);
        ownerEvents.await("machine online", TIMEOUT, e -> e.hasMachineOnline() && e.getMachineOnline().getMachineId() == machine);

        // a lease on it
        ok(ownerClient.get(), Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
            .setOrderId(ownerClient.get().nextOrderId()).setMachineId(machine).setGpus(1).setPrice(Money.parsePrice("2.0000"))));
        final Recorder renterEvents = new Recorder("renter");
        final GpuxClient renter = connect(renterKey, renterEvents, null);
        ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(renter.nextOrderId()).setMarket(MARKET).setGpus(1).setPrice(Money.parsePrice("2.0000"))));
        final long lease = renterEvents.await("the lease", TIMEOUT, AccountEvent::hasLeaseStarted).getLeaseStarted().getLeaseId();

        // the market-maker quotes a bid below the ask from a cancel-on-disconnect session
        final Recorder mmEvents = new Recorder("mm");
        final GpuxClient mm = connect(mmKey, mmEvents, ctx -> ctx.cancelOnDisconnect(true).reconnect(false));
        final long quote = mm.nextOrderId();
        ok(mm, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(quote).setMarket(MARKET).setGpus(1).setPrice(Money.parsePrice("1.0000"))));
        assertEquals(1, mm.portfolio(TIMEOUT).getOrdersCount());
        final long mmSeen = lastSeq(mmEvents);
        final long ownerSeen = lastSeq(ownerEvents);
        final long renterSeen = lastSeq(renterEvents);

        // ---- crash, an outage longer than the heartbeat timeout, restart on the same data
        server.kill();
        Thread.sleep(OUTAGE_MS);
        server.start();
        final long restartedNanos = System.nanoTime();

        final Recorder ownerAfter = new Recorder("owner after restart");
        ownerClient.set(connect(ownerKey, ownerAfter, ctx -> ctx.lastSeq(ownerSeen)));
        final Recorder mmAfter = new Recorder("mm after restart");
        final GpuxClient mmAgain = connect(mmKey, mmAfter, ctx -> ctx.lastSeq(mmSeen));
        dump.register("mm events after restart", () -> E2e.describe(mmAfter.events()));
        dump.register("owner events after restart", () -> E2e.describe(ownerAfter.events()));

        // the quote was cancelled at the restart, before the gateway opened: a fresh session finds it gone
        final Portfolio mmFolio = mmAgain.portfolio(TIMEOUT);
        assertEquals(0, mmFolio.getOrdersCount(), mmFolio::toString);
        final AccountEvent cancelled = mmAfter.await("the quote's cancel", TIMEOUT,
            e -> e.hasCancelled() && e.getCancelled().getOrderId() == quote);
        assertEquals(CancelReason.EXCHANGE_RESTART, cancelled.getCancelled().getReason());
        assertEquals(1, cancelled.getCancelled().getRemaining());

        // past the fresh window (timeout after the restart), with the agent heartbeating again: a probe order's
        // acceptance marks a time after any offline the restart could have caused
        Thread.sleep(Math.max(0, HEARTBEAT_TIMEOUT_MS + 1_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedNanos)));
        final Recorder renterAfter = new Recorder("renter after restart");
        final GpuxClient renterAgain = connect(renterKey, renterAfter, ctx -> ctx.lastSeq(renterSeen));
        dump.register("renter events after restart", () -> E2e.describe(renterAfter.events()));
        final long probe = renterAgain.nextOrderId();
        ok(renterAgain, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(probe).setMarket(MARKET).setGpus(1).setPrice(Money.parsePrice("0.5000"))));
        final AccountEvent accepted = renterAfter.await("the probe's acceptance", TIMEOUT,
            e -> e.hasAccepted() && e.getAccepted().getOrderId() == probe);
        assertTrue(renterAfter.events(AccountEvent.KindCase.LEASE_ENDED).isEmpty(), () -> E2e.describe(renterAfter.events()));
        assertTrue(ownerAfter.events(AccountEvent.KindCase.MACHINE_OFFLINE).isEmpty(), () -> E2e.describe(ownerAfter.events()));
        final Portfolio renterFolio = renterAgain.portfolio(TIMEOUT);
        assertEquals(1, renterFolio.getLeasesCount(), renterFolio::toString);
        assertEquals(lease, renterFolio.getLeases(0).getLeaseId());
        final Portfolio ownerFolio = ownerClient.get().portfolio(TIMEOUT);
        assertTrue(ownerFolio.getMachines(0).getOnline(), ownerFolio::toString);
        System.out.printf("e2e restart: quote cancelled at the restart, lease %d still running at exchange time %d%n",
            lease, accepted.getTimeMs());
    }

    private static long lastSeq(final Recorder recorder)
    {
        final List<AccountEvent> events = recorder.events();
        return events.isEmpty() ? 0 : events.get(events.size() - 1).getSeq();
    }
}
