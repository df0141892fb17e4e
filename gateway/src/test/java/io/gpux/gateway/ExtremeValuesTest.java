package io.gpux.gateway;

import io.gpux.common.Money;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MarketsRequest;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.QuoteRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Values at the edge of a long must be refused, never take the exchange down. Found by
 * {@link LiveFuzzTest}, and fixed by the engine's limits on amounts (market-rules.md, section 13):
 * before them, the engine's money arithmetic ({@code Money.cost}: {@code Math.multiplyExact}
 * of gpus x price x 100; {@code Admin.deposit}: {@code Math.addExact} of balance and amount) throws
 * ArithmeticException on the core thread, the pipeline stops ("the pipeline stopped on an error"),
 * and since the command is journaled before it is applied, recovery replays it and the exchange
 * cannot start again. A quote at such a price throws in its query and is never answered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExtremeValuesTest
{
    /**
     * The engine applies commands in order: a deposit sent after the extreme value and applied proves the core
     * thread got past it; then the exchange restarts from its journal.
     */
    private static void survivesAndRestarts(final TestExchange ex) throws Exception
    {
        try (RawConnection admin = ex.login(ex.admin))
        {
            final Response later = TestExchange.response(admin, Envelope.newBuilder().setDeposit(
                Deposit.newBuilder().setAccount("renter").setAmount(1)));
            assertEquals(Reason.REASON_OK, later.getReason(), "a later command is applied: " + later);
        }
        assertFalse(ex.exchange.pipeline().failed(), "the exchange core stopped");
        ex.exchange.close();
        try (Exchange again = Exchange.start(new ExchangeContext().dataDir(ex.dir).port(0).log(line -> { })))
        {
            assertFalse(again.pipeline().failed());
        }
    }

    private static TestExchange.Key renter(final TestExchange ex) throws Exception
    {
        try (RawConnection admin = ex.login(ex.admin))
        {
            return TestExchange.account(admin, "renter", 1_000_000_000_000L, Role.RENTER);
        }
    }

    @Test
    void aBidWhoseHoldOverflowsIsRefused() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c))
        {
            try (RawConnection c = ex.login(renter(ex)))
            {
                final Response r = TestExchange.response(c, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(1).setMarket("A100-80G").setGpus(1).setPrice(Long.MAX_VALUE)));
                assertNotEquals(Reason.REASON_OK, r.getReason());
                assertEquals(Envelope.BodyCase.MARKETS, c.responseTo(c.request(Envelope.newBuilder()
                    .setMarketsRequest(MarketsRequest.getDefaultInstance()))).getBodyCase());
            }
            survivesAndRestarts(ex);
        }
    }

    @Test
    void aDepositThatWouldOverflowTheBalanceIsRefused() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c))
        {
            renter(ex);
            try (RawConnection admin = ex.login(ex.admin))
            {
                final Response r = TestExchange.response(admin, Envelope.newBuilder().setDeposit(
                    Deposit.newBuilder().setAccount("renter").setAmount(Long.MAX_VALUE)));
                assertNotEquals(Reason.REASON_OK, r.getReason());
            }
            survivesAndRestarts(ex);
        }
    }

    @Test
    void aQuoteAtAnAbsurdPriceIsAnswered() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c))
        {
            try (RawConnection c = ex.login(renter(ex)))
            {
                final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setQuoteRequest(QuoteRequest.newBuilder()
                    .setMarket("A100-80G").setGpus(1000).setPrice(Long.MAX_VALUE))));
                assertEquals(Envelope.BodyCase.QUOTE_RESULT, e.getBodyCase(), e::toString);
                assertNotEquals(Reason.REASON_OK, e.getQuoteResult().getReject());
            }
            survivesAndRestarts(ex);
        }
    }
}
