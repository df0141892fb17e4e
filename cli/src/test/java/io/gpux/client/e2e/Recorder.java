package io.gpux.client.e2e;

import io.gpux.client.BookView;
import io.gpux.client.ClientListener;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.Side;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A {@link ClientListener} that keeps everything a client hears, for the end-to-end tests to assert
 * on from the test thread: every account event in arrival order, every answer by request id, logins,
 * resends, disconnects, session errors, and one market's book.
 */
final class Recorder implements ClientListener
{
    final String name;
    private final List<AccountEvent> events = new ArrayList<>();
    private final List<LoginAccepted> logins = new ArrayList<>();
    private final List<ResendComplete> resends = new ArrayList<>();
    private final List<SessionError> sessionErrors = new ArrayList<>();
    private final Map<Long, List<Response>> responses = new ConcurrentHashMap<>();
    private final AtomicInteger reconnectingDisconnects = new AtomicInteger();
    private final BookView book;

    Recorder(final String name)
    {
        this(name, null);
    }

    /** Also keeps the book of {@code market} from the snapshots and updates it receives. */
    Recorder(final String name, final String market)
    {
        this.name = name;
        this.book = market == null ? null : new BookView(market);
    }

    // ---- ClientListener (the client's event loop)

    @Override
    public void onLoginAccepted(final LoginAccepted accepted)
    {
        synchronized (this)
        {
            logins.add(accepted);
        }
    }

    @Override
    public void onResendComplete(final ResendComplete complete)
    {
        synchronized (this)
        {
            resends.add(complete);
        }
    }

    @Override
    public void onDisconnected(final String reason, final boolean reconnecting)
    {
        if (reconnecting)
        {
            reconnectingDisconnects.incrementAndGet();
        }
    }

    @Override
    public void onSessionError(final SessionError error)
    {
        synchronized (this)
        {
            sessionErrors.add(error);
        }
    }

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        responses.computeIfAbsent(requestId, k -> Collections.synchronizedList(new ArrayList<>())).add(response);
    }

    @Override
    public void onEvent(final AccountEvent event)
    {
        synchronized (this)
        {
            events.add(event);
        }
    }

    @Override
    public void onBookSnapshot(final BookSnapshot snapshot)
    {
        if (book != null && snapshot.getMarket().equals(book.market()))
        {
            synchronized (this)
            {
                book.onSnapshot(snapshot);
            }
        }
    }

    @Override
    public void onBookUpdate(final BookUpdate update)
    {
        if (book != null && update.getMarket().equals(book.market()))
        {
            synchronized (this)
            {
                book.onUpdate(update);
            }
        }
    }

    // ---- test thread

    synchronized List<AccountEvent> events()
    {
        return new ArrayList<>(events);
    }

    /**
     * The seq of the last event recorded, -1 before any: a client's {@code lastSeq()} moves just before its listeners
     * hear the event, so a test that then reads {@link #events()} waits on this instead.
     */
    synchronized long lastEventSeq()
    {
        return events.isEmpty() ? -1 : events.get(events.size() - 1).getSeq();
    }

    synchronized List<AccountEvent> events(final AccountEvent.KindCase kind)
    {
        return events.stream().filter(e -> e.getKindCase() == kind).toList();
    }

    synchronized List<LoginAccepted> logins()
    {
        return new ArrayList<>(logins);
    }

    synchronized List<ResendComplete> resends()
    {
        return new ArrayList<>(resends);
    }

    synchronized List<SessionError> sessionErrors()
    {
        return new ArrayList<>(sessionErrors);
    }

    /** Every answer received under this request id (exactly one is expected). */
    List<Response> responses(final long requestId)
    {
        final List<Response> list = responses.get(requestId);
        if (list == null)
        {
            return List.of();
        }
        synchronized (list)
        {
            return new ArrayList<>(list);
        }
    }

    int reconnectingDisconnects()
    {
        return reconnectingDisconnects.get();
    }

    /** GPUs the book shows at a price (0: no such level), or -1 before the first snapshot. */
    synchronized long bookGpusAt(final Side side, final long price)
    {
        return book.isValid() ? book.gpusAt(side, price) : -1;
    }

    synchronized String book()
    {
        return String.valueOf(book);
    }

    /** The first event that matches, waiting for it. */
    AccountEvent await(final String what, final Duration timeout, final Predicate<AccountEvent> match)
    {
        final AccountEvent[] found = new AccountEvent[1];
        E2e.await(name + ": " + what, timeout, () ->
        {
            synchronized (this)
            {
                for (final AccountEvent e : events)
                {
                    if (match.test(e))
                    {
                        found[0] = e;
                        return true;
                    }
                }
                return false;
            }
        }, () -> name + "'s events: " + E2e.describe(events()));
        return found[0];
    }

    /** Where an event is in arrival order (-1: not received). */
    synchronized int indexOf(final AccountEvent event)
    {
        return events.indexOf(event);
    }
}
