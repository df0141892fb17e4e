package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.Response;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Request ids, order-entry places and blocking waiters of one client. */
class RequestCorrelatorTest
{
    @Test
    void requestIdsIncreaseFromOne()
    {
        final RequestCorrelator correlator = new RequestCorrelator(4);
        assertEquals(1, correlator.nextRequestId());
        assertEquals(2, correlator.nextRequestId());
    }

    @Test
    void orderEntryPlacesAreBoundedAndGivenBack()
    {
        final RequestCorrelator correlator = new RequestCorrelator(2);
        assertTrue(correlator.reserveOrderEntry());
        assertTrue(correlator.reserveOrderEntry());
        assertFalse(correlator.reserveOrderEntry(), "a third place beyond the limit of 2");
        assertEquals(2, correlator.unansweredOrderEntry());
        correlator.releaseOrderEntry();
        assertEquals(1, correlator.unansweredOrderEntry());
        assertTrue(correlator.reserveOrderEntry());
        correlator.onClosed(new IOException("closed"));
        assertEquals(0, correlator.unansweredOrderEntry());
    }

    @Test
    void anAnswerCompletesOnlyItsOwnWaiter() throws Exception
    {
        final RequestCorrelator correlator = new RequestCorrelator(4);
        final RequestCorrelator.Waiter first = new RequestCorrelator.Waiter(false);
        final RequestCorrelator.Waiter second = new RequestCorrelator.Waiter(false);
        correlator.addWaiter(1, first);
        correlator.addWaiter(2, second);
        final Response answer = Response.newBuilder().setMessage("ok").build();
        correlator.completeWaiter(2, answer);
        assertSame(answer, second.get());
        assertFalse(first.isDone());
        correlator.completeWaiter(2, Response.getDefaultInstance());
        assertSame(answer, second.get(), "a second answer to the same id finds no waiter");
    }

    @Test
    void aLostConnectionFailsOnlyTheWaitersThatAreNotResent()
    {
        final RequestCorrelator correlator = new RequestCorrelator(4);
        final RequestCorrelator.Waiter query = new RequestCorrelator.Waiter(false);
        final RequestCorrelator.Waiter order = new RequestCorrelator.Waiter(true);
        correlator.addWaiter(1, query);
        correlator.addWaiter(2, order);
        correlator.onConnectionLost(new IOException("connection lost: test"));
        final ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, query::get);
        assertEquals("connection lost: test", failed.getCause().getMessage());
        assertFalse(order.isDone(), "an order-entry command is re-sent and keeps its waiter");
        correlator.onClosed(new IOException("the client is closed"));
        assertTrue(order.isCompletedExceptionally());
    }
}
