package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.client.SpotRequest;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.MARKET;
import static io.gpux.client.e2e.E2e.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A renter's {@link SpotRequest} with {@code moveWhenCheaper}, over loopback against a real exchange: its
 * lease runs on the only machine offered; when another machine is offered 50 % cheaper, the request's
 * next look takes it with an IOC, no-preempt gang bid, the job hears the move, and the old lease is
 * released, its GPUs back on their ask. The move's bids never rest in the book.
 */
class SpotMoveEndToEndTest
{
    private static final long DEAR = Money.parsePrice("2.0000");
    private static final long CHEAP = Money.parsePrice("1.0000");

    @TempDir
    Path dir;

    private Exchange exchange;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        E2e.closeAllQuietly(opened, exchange);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aRunningLeaseMovesOntoCheaperGpusAndTheOldOneIsReleased() throws Exception
    {
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).log(line -> { }));
        final GpuxClient admin = E2e.connect(exchange.port(), new E2e.Key(exchange.bootstrapKey().keyId(),
            exchange.bootstrapKey().secret()), new Recorder("admin"));
        opened.add(admin);
        E2e.ok(admin, Envelope.newBuilder().setConfigure(Configure.newBuilder().setHeartbeatTimeoutMs(0)));
        final GpuxClient owner = E2e.connect(exchange.port(), E2e.account(admin, "owner", Role.OWNER, 0), new Recorder("owner"));
        opened.add(owner);
        final Recorder renterEvents = new Recorder("renter");
        final GpuxClient renter = E2e.connect(exchange.port(), E2e.account(admin, "renter", Role.RENTER, 10_000_000_000L),
            renterEvents);
        opened.add(renter);
        final long dear = machine(owner, "dear");
        final long cheap = machine(owner, "cheap");
        for (final long m : new long[] {dear, cheap})
        {
            E2e.ok(owner, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(m)));
        }
        E2e.ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(1).setMachineId(dear).setGpus(2)
            .setPrice(DEAR)));

        final List<String> heard = new CopyOnWriteArrayList<>();
        final SpotRequest request = new SpotRequest(renter, MARKET, 2, Money.parsePrice("3.0000"),
            new SpotRequest.Constraints(true, "", 0, 0), new SpotRequest.Listener()
            {
                @Override
                public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
                {
                    heard.add("started " + leaseId + " on " + machineId + " at " + price);
                }

                @Override
                public void onLeaseMoved(final long fromLeaseId, final long toLeaseId)
                {
                    heard.add("moved " + fromLeaseId + " to " + toLeaseId);
                }

                @Override
                public void onLeaseEnded(final long leaseId, final EndReason reason)
                {
                    heard.add("ended " + leaseId + " " + reason);
                }
            }).moveWhenCheaper(100, 2000);
        renter.addListener(request);
        request.start();
        E2e.await("the lease on the dear machine", TIMEOUT, () -> heard.stream().anyMatch(h -> h.endsWith(" on " + dear
            + " at " + DEAR)), heard::toString);
        final long first = Long.parseLong(heard.get(0).split(" ")[1]);

        // a look finds nothing cheaper on offer (its IOC bid is cancelled): the lease stays, no bid of the move rests
        E2e.await("a move's bid cancelled: nothing cheaper", TIMEOUT,
            () -> !renterEvents.events(AccountEvent.KindCase.CANCELLED).isEmpty(), () -> E2e.describe(renterEvents.events()));
        Portfolio folio = renter.portfolio(TIMEOUT);
        assertEquals(0, folio.getOrdersCount(), folio::toString);
        assertEquals(1, folio.getLeasesCount(), folio::toString);

        E2e.ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(2).setMachineId(cheap).setGpus(2)
            .setPrice(CHEAP)));
        E2e.await("the move and the old lease's end", TIMEOUT, () -> heard.contains("ended " + first + " RELEASED"),
            heard::toString);
        final String moved = heard.stream().filter(h -> h.startsWith("moved ")).findFirst().orElseThrow();
        final long second = Long.parseLong(moved.split(" ")[3]);
        assertEquals("moved " + first + " to " + second, moved);
        assertTrue(heard.contains("started " + second + " on " + cheap + " at " + CHEAP), heard::toString);
        assertTrue(heard.indexOf("started " + second + " on " + cheap + " at " + CHEAP) < heard.indexOf(moved),
            "the new lease starts before the job is told to move: " + heard);

        folio = renter.portfolio(TIMEOUT);
        assertEquals(0, folio.getOrdersCount(), folio::toString);
        assertEquals(1, folio.getLeasesCount(), folio::toString);
        final LeaseInfo lease = folio.getLeases(0);
        assertEquals(second, lease.getLeaseId());
        assertEquals(cheap, lease.getMachineId());
        assertEquals(CHEAP, lease.getPrice());
        final Portfolio owners = owner.portfolio(TIMEOUT);
        assertTrue(owners.getOrdersList().stream().anyMatch(o -> o.getOrderId() == 1 && o.getOpenGpus() == 2),
            () -> "the dear machine's GPUs are back on its ask: " + owners);
        assertEquals(1, heard.stream().filter(h -> h.startsWith("moved ")).count(), heard::toString);
    }

    private static long machine(final GpuxClient owner, final String name) throws Exception
    {
        return E2e.ok(owner, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName(name)
            .setMarket(MARKET).setGpus(2))).getAssignedId();
    }
}
