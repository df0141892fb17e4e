package io.gpux.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.Offer;
import io.gpux.proto.v1.OfferSort;
import io.gpux.proto.v1.Offers;
import io.gpux.proto.v1.OffersRequest;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Role;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An offer search over a real socket, in both thread layouts: with the core on the event loop, and with
 * the core on its own thread handing the copied offers back to the connection's event loop.
 */
class OffersTest
{
    @ParameterizedTest(name = "shared loop {0}")
    @ValueSource(booleans = {true, false})
    void aSearchIsAnsweredWithTheMachinesThatPassItsFilters(final boolean sharedLoop) throws Exception
    {
        try (TestExchange ex = TestExchange.start(ctx -> ctx.sharedLoop(sharedLoop));
             RawConnection admin = ex.login(ex.admin))
        {
            TestExchange.ok(admin, Envelope.newBuilder().setConfigure(Configure.newBuilder().setHeartbeatTimeoutMs(0)));
            TestExchange.ok(admin, Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol("OFFERS-1")));
            final TestExchange.Key owner = TestExchange.account(admin, "owner", 0, Role.OWNER);
            final TestExchange.Key renter = TestExchange.account(admin, "renter", 0, Role.RENTER);
            try (RawConnection o = ex.login(owner); RawConnection r = ex.login(renter))
            {
                final long eu = machine(o, "eu-1", "eu", 8, 30_000);
                final long us = machine(o, "us-1", "us", 4, 20_000);
                machine(o, "eu-idle", "eu", 8, 0);

                final Offers all = offers(r, OffersRequest.newBuilder().setMarket("OFFERS-1"));
                assertEquals(List.of(us, eu), all.getOffersList().stream().map(Offer::getMachineId).toList(), all::toString);
                assertEquals(2, all.getMatched());
                final Offer cheapest = all.getOffers(0);
                assertEquals(20_000, cheapest.getPrice());
                assertEquals(4, cheapest.getFreeGpus());
                assertEquals("us", cheapest.getRegion());
                assertEquals(3, cheapest.getOwnerMachines());

                final Offers eight = offers(r, OffersRequest.newBuilder().setMinGpus(5).setSort(OfferSort.OFFER_SORT_GPUS));
                assertEquals(List.of(eu), eight.getOffersList().stream().map(Offer::getMachineId).toList(), eight::toString);
                final Offers euOnly = offers(r, OffersRequest.newBuilder().setRegion("eu").setLimit(1));
                assertEquals(eu, euOnly.getOffers(0).getMachineId());

                final Envelope unknown = r.responseTo(r.request(Envelope.newBuilder().setOffersRequest(
                    OffersRequest.newBuilder().setMarket("NOPE"))));
                assertEquals(Reason.UNKNOWN_MARKET, unknown.getResponse().getReason(), unknown::toString);
            }
        }
    }

    /** Registers a machine, brings it online and, for a positive price, offers all its GPUs. */
    private static long machine(final RawConnection owner, final String name, final String region, final int gpus,
        final long price) throws Exception
    {
        final long id = TestExchange.ok(owner, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName(name).setMarket("OFFERS-1").setGpus(gpus).setRegion(region))).getAssignedId();
        TestExchange.ok(owner, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(id)));
        if (price > 0)
        {
            TestExchange.ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(id).setMachineId(id)
                .setGpus(gpus).setPrice(price)));
        }
        return id;
    }

    private static Offers offers(final RawConnection c, final OffersRequest.Builder request) throws Exception
    {
        final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setOffersRequest(request)));
        assertEquals(Envelope.BodyCase.OFFERS, e.getBodyCase(), e::toString);
        return e.getOffers();
    }
}
