package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.PreemptNotice;
import io.gpux.proto.v1.Response;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompositeListenerTest
{
    private final List<String> calls = new ArrayList<>();

    private ClientListener recorder(final String name)
    {
        return new ClientListener()
        {
            @Override
            public void onEvent(final AccountEvent event)
            {
                calls.add(name + ".event" + event.getSeq());
            }

            @Override
            public void onFill(final AccountEvent event, final Fill fill)
            {
                calls.add(name + ".fill" + fill.getLeaseId());
            }

            @Override
            public void onPreemptNotice(final long leaseId, final long effectiveAtMs, final NoticeReason reason)
            {
                calls.add(name + ".notice" + leaseId + "@" + effectiveAtMs + " " + reason);
            }

            @Override
            public void onResponse(final long requestId, final Response response)
            {
                calls.add(name + ".response" + requestId);
            }
        };
    }

    @Test
    void eachListenerSeesAWholeEventBeforeTheNext()
    {
        final CompositeListener composite = new CompositeListener().add(recorder("a")).add(recorder("b"));
        composite.onEvent(AccountEvent.newBuilder().setSeq(1).setFill(Fill.newBuilder().setLeaseId(5)).build());
        composite.onEvent(AccountEvent.newBuilder().setSeq(2).setPreemptNotice(PreemptNotice.newBuilder()
            .setLeaseId(5).setEffectiveMs(99).setReason(NoticeReason.OUTBID)).build());
        assertEquals(List.of("a.event1", "a.fill5", "b.event1", "b.fill5",
            "a.event2", "a.notice5@99 OUTBID", "b.event2", "b.notice5@99 OUTBID"), calls);
    }

    @Test
    void nestedCompositesExpandEventsOnce()
    {
        final CompositeListener inner = new CompositeListener().add(recorder("in"));
        final CompositeListener outer = new CompositeListener().add(inner).add(recorder("out"));
        ClientListener.dispatchEvent(outer, AccountEvent.newBuilder().setSeq(3).setFill(Fill.newBuilder().setLeaseId(1)).build());
        assertEquals(List.of("in.event3", "in.fill1", "out.event3", "out.fill1"), calls);
    }

    @Test
    void aThrowingListenerDoesNotStarveTheOthers()
    {
        final List<Throwable> errors = new ArrayList<>();
        final CompositeListener composite = new CompositeListener(errors::add)
            .add(new ClientListener()
            {
                @Override
                public void onResponse(final long requestId, final Response response)
                {
                    throw new IllegalStateException("boom");
                }
            })
            .add(recorder("b"));
        composite.onResponse(7, Response.getDefaultInstance());
        assertEquals(List.of("b.response7"), calls);
        assertEquals(1, errors.size());

        final CompositeListener strict = new CompositeListener().add(new ClientListener()
        {
            @Override
            public void onResponse(final long requestId, final Response response)
            {
                throw new IllegalStateException("boom");
            }
        });
        assertThrows(IllegalStateException.class, () -> strict.onResponse(1, Response.getDefaultInstance()));
    }

    @Test
    void addAndRemove()
    {
        final ClientListener a = recorder("a");
        final CompositeListener composite = new CompositeListener().add(a).add(recorder("b"));
        assertEquals(2, composite.size());
        assertTrue(composite.remove(a));
        assertFalse(composite.remove(a));
        composite.onResponse(1, Response.getDefaultInstance());
        assertEquals(List.of("b.response1"), calls);
        assertThrows(NullPointerException.class, () -> composite.add(null));
    }
}
