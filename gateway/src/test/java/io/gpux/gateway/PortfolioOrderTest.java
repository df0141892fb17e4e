package io.gpux.gateway;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A portfolio answer is encoded off the egress's thread while what its session is sent next waits behind it: on a
 * session that pipelines bids and portfolio requests, every answer still comes in its place. Each portfolio holds
 * the bids asked before it and none asked after, its last event number is the acceptance of the bid before it, and
 * it comes after that event and after the bid's answer; the bids' answers and the portfolios each come in the order
 * asked, and the events in order, once each.
 */
class PortfolioOrderTest
{
    private static final int ROUNDS = 300;

    private TestExchange ex;
    private RawConnection admin;

    /** The exchange's settings: the default thread layout here. */
    ExchangeContext settings(final ExchangeContext ctx)
    {
        return ctx;
    }

    @BeforeEach
    void start() throws Exception
    {
        ex = TestExchange.start(c -> settings(c).ratePerSecond(1_000_000).rateBurst(100_000));
        admin = ex.login(ex.admin);
    }

    @AfterEach
    void stop() throws Exception
    {
        admin.close();
        ex.close();
    }

    @Test
    void pipelinedPortfolioAnswersComeInTheirPlaceAmongTheSessionsEventsAndAnswers() throws Exception
    {
        final TestExchange.Key key = TestExchange.account(admin, "piper", 1_000_000_000_000L, Role.RENTER);
        try (RawConnection c = ex.connect(); RawConnection other = ex.login(key))
        {
            final Envelope accepted = c.login(key.id(), key.secret());
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
            final List<Envelope.Builder> requests = new ArrayList<>(2 * ROUNDS);
            for (int i = 1; i <= ROUNDS; i++)
            {
                requests.add(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(i).setMarket("A100-80G").setGpus(1).setPrice(1 + i % 40)));
                requests.add(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()));
            }
            final long first = c.requests(requests);

            final long startSeq = accepted.getLoginAccepted().getLastSeq();
            long lastEvent = startSeq;
            long lastResponse = first - 2;
            long lastPortfolio = first - 1;
            int bidsAnswered = 0;
            int portfolios = 0;
            while (bidsAnswered + portfolios < requests.size())
            {
                final Envelope e = c.readNonHeartbeat();
                assertNotNull(e, "closed after " + bidsAnswered + " bids and " + portfolios + " portfolios answered");
                switch (e.getBodyCase())
                {
                    case EVENT ->
                    {
                        assertEquals(lastEvent + 1, e.getEvent().getSeq(), "events in order, none missing");
                        lastEvent = e.getEvent().getSeq();
                    }
                    case RESPONSE ->
                    {
                        assertEquals(lastResponse + 2, e.getRequestId(), "the bids' answers in the order asked");
                        assertEquals(Reason.REASON_OK, e.getResponse().getReason(), e::toString);
                        lastResponse = e.getRequestId();
                        bidsAnswered++;
                        assertTrue(lastEvent >= startSeq + bidsAnswered, "a bid's answer comes after its acceptance");
                    }
                    case PORTFOLIO ->
                    {
                        assertEquals(lastPortfolio + 2, e.getRequestId(), "the portfolios in the order asked");
                        lastPortfolio = e.getRequestId();
                        portfolios++;
                        final Portfolio p = e.getPortfolio();
                        assertEquals(portfolios, p.getOrdersCount(), "a portfolio holds the bids asked before it, and no later one");
                        assertEquals(startSeq + portfolios, p.getLastSeq(), "its last event: the acceptance of the bid before it");
                        assertTrue(lastEvent >= p.getLastSeq(), "a portfolio comes after the events it holds");
                        assertTrue(bidsAnswered >= portfolios, "and after the answers to the bids before it");
                    }
                    default -> throw new AssertionError("unexpected " + e);
                }
            }
            assertEquals(ROUNDS, portfolios);
            assertEquals(ROUNDS, bidsAnswered);
            assertEquals(startSeq + ROUNDS, lastEvent, "each bid's acceptance was sent, once");

            // the account's other session heard the same events, and its own portfolio agrees
            final Envelope folio = other.responseTo(other.request(
                Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
            assertEquals(lastEvent, folio.getPortfolio().getLastSeq(), "the other session's portfolio holds every bid");
            assertEquals(ROUNDS, folio.getPortfolio().getOrdersCount());
        }
    }
}
