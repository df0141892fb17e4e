package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.gateway.embedded.EmbeddedGateway;
import io.gpux.gateway.embedded.EmbeddedRequest;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.MassCancel;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.Subscribe;
import io.gpux.proto.v1.Trade;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded gateway against the real one: the same requests, sent by an owner and a renter over
 * loopback to an exchange whose clock stands still, and taken in and applied by an
 * {@link EmbeddedGateway} at that same time, give the same Responses (reasons, messages, assigned
 * ids), the same account events with the same per-account numbering, and the same market data
 * (snapshot, book updates, trades). Engine and command sequences and times are left out: the real
 * exchange applies its own bootstrap and ticks.
 */
class EmbeddedGatewayTest
{
    private static final long TIME_MS = 1_767_225_600_000L;
    private static final String MARKET = "EMBED-1";
    private static final long RENTER_MONEY = 1_000_000_000L;

    /** What one account received, kind by kind, normalized. */
    private static final class Received
    {
        final List<Response> responses = new ArrayList<>();
        final List<AccountEvent> events = new ArrayList<>();
        final List<BookUpdate> updates = new ArrayList<>();
        final List<Trade> trades = new ArrayList<>();
        BookSnapshot snapshot;

        void event(final AccountEvent e)
        {
            events.add(e.toBuilder().clearTimeMs().clearEngineSeq().clearCommandSeq().build());
        }

        void response(final Response r)
        {
            responses.add(r.toBuilder().clearCommandSeq().build());
        }

        void trade(final Trade t)
        {
            trades.add(t.toBuilder().clearEngineSeq().build());
        }

        long leaseStarted()
        {
            return events.stream().filter(AccountEvent::hasLeaseStarted).findFirst().orElseThrow()
                .getLeaseStarted().getLeaseId();
        }
    }

    private record Step(boolean byOwner, Envelope.Builder request)
    {
    }

    /** The scenario; a step may depend on what the renter received before it (its lease). */
    private static List<LongFunction<Step>> scenario()
    {
        final List<LongFunction<Step>> steps = new ArrayList<>();
        final RegisterMachine machine = RegisterMachine.newBuilder().setName("m1").setMarket(MARKET).setGpus(8)
            .setRegion("eu-west").setVramGb(80).setInterconnect("nvlink").build();
        steps.add(lease -> new Step(true, Envelope.newBuilder().setRegisterMachine(machine)));
        steps.add(lease -> new Step(true, Envelope.newBuilder().setRegisterMachine(machine)));
        steps.add(lease -> new Step(true, Envelope.newBuilder().setRegisterMachine(machine.toBuilder().setMarket("NONE-1"))));
        steps.add(lease -> new Step(true, Envelope.newBuilder().setRegisterMachine(machine.toBuilder().setName("bad name"))));
        steps.add(lease -> new Step(true, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(1))));
        steps.add(lease -> new Step(true, Envelope.newBuilder().setPlaceAsk(
            PlaceAsk.newBuilder().setOrderId(1).setMachineId(1).setGpus(8).setPrice(2_000))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(1))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(99))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setRegisterMachine(machine.toBuilder().setName("m2"))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setPlaceBid(
            PlaceBid.newBuilder().setOrderId(1).setMarket("NONE-1").setGpus(1).setPrice(2_500))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setPlaceBid(
            PlaceBid.newBuilder().setOrderId(2).setMarket(MARKET).setGpus(1).setPrice(2_500).setTifValue(7))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setPlaceBid(
            PlaceBid.newBuilder().setOrderId(3).setMarket(MARKET).setGpus(4).setPrice(2_500).setRegion("eu-west"))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setReplace(Replace.newBuilder().setOrderId(3))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(42))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setPlaceBid(
            PlaceBid.newBuilder().setOrderId(4).setMarket(MARKET).setGpus(1).setPrice(1_000))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(lease))));
        steps.add(lease -> new Step(false, Envelope.newBuilder().setMassCancel(MassCancel.newBuilder().setMarket(MARKET))));
        return steps;
    }

    @Test
    void theSameRequestsGiveTheSameAnswersEventsAndMarketDataAsTheRealGateway() throws Exception
    {
        final Received[] embedded = embedded();
        final Received[] wire = overTheWire(embedded);
        final String[] who = {"owner", "renter"};
        for (int i = 0; i < 2; i++)
        {
            assertEquals(wire[i].responses, embedded[i].responses, who[i] + "'s responses");
            assertEquals(wire[i].events, embedded[i].events, who[i] + "'s account events");
            assertEquals(wire[i].updates, embedded[i].updates, who[i] + "'s book updates");
            assertEquals(wire[i].trades, embedded[i].trades, who[i] + "'s trades");
        }
        assertEquals(wire[1].snapshot, embedded[1].snapshot, "the renter's book snapshot");
        // the scenario exercises what it is meant to: refusals, an engine rejection, a registration, a lease, market data
        final List<Reason> reasons = embedded[1].responses.stream().map(Response::getReason).toList();
        assertTrue(reasons.containsAll(List.of(Reason.NOT_OWNER, Reason.UNKNOWN_MACHINE, Reason.UNKNOWN_MARKET,
            Reason.INVALID_REQUEST, Reason.NOT_AUTHORIZED, Reason.UNKNOWN_ORDER)), reasons::toString);
        assertEquals(1, embedded[0].responses.get(0).getAssignedId(), "the machine's id");
        assertEquals("already registered", embedded[0].responses.get(1).getMessage());
        assertTrue(embedded[0].events.stream().anyMatch(AccountEvent::hasLeaseEnded), "the owner saw the lease end");
        assertFalse(embedded[1].trades.isEmpty(), "a trade");
        assertFalse(embedded[1].updates.isEmpty(), "book updates");
    }

    private static Received[] embedded()
    {
        final Received[] received = {new Received(), new Received()};
        final long[] accountIds = new long[2];
        final EmbeddedGateway gateway = new EmbeddedGateway(new EmbeddedGateway.Output()
        {
            @Override
            public void onAccountEvent(final long accountId, final AccountEvent event)
            {
                received[accountId == accountIds[0] ? 0 : 1].event(event);
            }

            @Override
            public void onTrade(final long marketId, final Trade trade)
            {
                received[1].trade(trade);
            }

            @Override
            public void onBookUpdate(final long marketId, final BookUpdate update)
            {
                received[1].updates.add(update);
            }
        });
        assertOk(gateway.apply(gateway.createMarket(MARKET, new Command().reset(CommandType.MARKET, 0)), TIME_MS));
        final EmbeddedRequest owner = gateway.createAccount("owner", Roles.OWNER);
        assertOk(gateway.apply(owner, TIME_MS));
        final EmbeddedRequest renter = gateway.createAccount("renter", Roles.RENTER);
        assertOk(gateway.apply(renter, TIME_MS));
        accountIds[0] = owner.assignedId();
        accountIds[1] = renter.assignedId();
        final Command deposit = new Command().reset(CommandType.DEPOSIT, 0);
        deposit.accountId = renter.assignedId();
        deposit.amount = RENTER_MONEY;
        assertOk(gateway.apply(gateway.command(deposit), TIME_MS));
        // the wire's sessions log in after the setup, asking no resend: what they get starts there
        received[1].events.clear();
        received[1].snapshot = gateway.snapshot(gateway.subscribe(MARKET));
        long requestId = 0;
        for (final LongFunction<Step> next : scenario())
        {
            final Step step = next.apply(leaseOrZero(received[1]));
            final int at = step.byOwner() ? 0 : 1;
            final EmbeddedRequest request = gateway.submit(accountIds[at], step.request().setRequestId(++requestId).build());
            received[at].response(gateway.apply(request, TIME_MS));
        }
        return received;
    }

    private static long leaseOrZero(final Received r)
    {
        return r.events.stream().anyMatch(AccountEvent::hasLeaseStarted) ? r.leaseStarted() : 0;
    }

    private static Received[] overTheWire(final Received[] expected) throws Exception
    {
        final Received[] received = {new Received(), new Received()};
        try (TestExchange exchange = TestExchange.start(c -> c.clock(() -> TIME_MS));
             RawConnection admin = exchange.login(exchange.admin))
        {
            TestExchange.ok(admin, Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol(MARKET)));
            final TestExchange.Key ownerKey = TestExchange.account(admin, "owner", 0, Role.OWNER);
            final TestExchange.Key renterKey = TestExchange.account(admin, "renter", RENTER_MONEY, Role.RENTER);
            try (RawConnection owner = exchange.login(ownerKey); RawConnection renter = exchange.login(renterKey))
            {
                final RawConnection[] connections = {owner, renter};
                received[1].snapshot = renter.responseTo(renter.request(Envelope.newBuilder()
                    .setSubscribe(Subscribe.newBuilder().setMarket(MARKET)))).getBookSnapshot();
                for (final LongFunction<Step> next : scenario())
                {
                    final Step step = next.apply(leaseOrZero(received[1]));
                    final int at = step.byOwner() ? 0 : 1;
                    final long rid = connections[at].request(step.request());
                    readUntil(connections[at], received[at], rid, Long.MAX_VALUE);
                }
                for (int i = 0; i < 2; i++)
                {
                    // what the other account's requests caused, up to the last event the embedded gateway gave it
                    readUntil(connections[i], received[i], -1, expected[i].events.get(expected[i].events.size() - 1).getSeq());
                }
            }
        }
        return received;
    }

    /** Reads frames into {@code into} until the Response to {@code requestId}, or until the event numbered {@code lastSeq}. */
    private static void readUntil(final RawConnection c, final Received into, final long requestId, final long lastSeq)
        throws IOException
    {
        if (!into.events.isEmpty() && into.events.get(into.events.size() - 1).getSeq() >= lastSeq)
        {
            return;
        }
        while (true)
        {
            final Envelope e = c.read();
            if (e == null)
            {
                throw new IOException("the exchange closed the connection");
            }
            switch (e.getBodyCase())
            {
                case EVENT ->
                {
                    into.event(e.getEvent());
                    if (e.getEvent().getSeq() >= lastSeq)
                    {
                        return;
                    }
                }
                case BOOK_UPDATE -> into.updates.add(e.getBookUpdate());
                case TRADE -> into.trade(e.getTrade());
                case RESPONSE ->
                {
                    if (e.getRequestId() == requestId)
                    {
                        into.response(e.getResponse());
                        return;
                    }
                }
                default ->
                {
                }
            }
        }
    }

    private static void assertOk(final Response r)
    {
        assertEquals(Reason.REASON_OK, r.getReason(), r::toString);
    }
}
