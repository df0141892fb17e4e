package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.RejectReason;
import io.gpux.core.journal.Journal;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.marketdata.PriceHistory;
import io.gpux.gateway.metrics.GatewayCounters;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Response;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Everything the gateway sends out that comes from the exchange core, on one thread (its own, or, in the
 * shared layout, the gateway's event loop, which also runs the core): it tails the
 * event journal (so an event leaves only once journaled), and writes each private event to the
 * sessions of its accounts with the account's number of it; it answers commands once their events are
 * out; it forwards query results and market data.
 *
 * <p>The engine numbers each account's events as it emits them and keeps, in its state (snapshotted,
 * recovered, in the state hash), each account's last number and the engine sequence of its last event;
 * every event carries, per recipient, the account's number and a back-link to the account's previous
 * event. So the egress counts nothing and reads no history: it starts tailing at the end of the
 * journal, learns an account's last number at login from the engine (read on the core thread with
 * the login's place in the event stream), and afterwards from the events it tails. A resend is a
 * cursor ({@link ResendCursor}): the session's own reader of the journal, which walks back along the
 * account's back-links from its newest event to the first the session lacks, then sends them in order,
 * each found by a seek of the journal by engine sequence (a galloping search over the queue's index
 * from the document last read, else a binary search), so it reads O(missing events) documents, times
 * O(log n) for those far apart, and none of the journal between them. The cursor is read on a thread of
 * its own, the {@link ResendReader}'s, a round at a time ({@link Resends#BUDGET} documents and
 * {@link Resends#SLICE_NS} of time at most, give or take the step that finds it gone), the resends
 * taking their rounds in turn; this thread writes each round to the session ({@link #resend()}) and
 * hands the cursor over for the next, up to the account's newest event at that moment, and not at all
 * while the session's connection is not writable. It goes on through the account's events that came
 * meanwhile until it has sent the newest the live tail has; then the session goes live, on this
 * thread, between two events: no gap, nothing twice. Whatever else the session is sent meanwhile
 * (answers, market data) waits behind the resend, in order. A resend's journal reads therefore never
 * run on this thread (nor, in the shared layout, on the event loop that runs the core), however long the
 * history or many the resends; {@link ResendLimits} bounds how many run at once.
 * An event the journal no longer holds (or one journaled without account numbers) ends the resend
 * with RESEND_UNAVAILABLE.
 *
 * <p>The price history ({@link PriceHistory}) is rebuilt from the journal's trades after a start by a
 * loader on its own reader, a bounded slice per duty cycle ({@link HistoryLoader#BUDGET} records), up to the
 * live tail, which feeds the history from then on; a history read waits for it (and what was asked
 * after it waits behind it, in order).
 *
 * <p>A session whose connection stops draining (its outbound buffer passes the high-water mark) is
 * sent SLOW_CONSUMER and closed; nothing here ever waits for a connection.
 *
 * <p>This class is the agent: its inbox of {@link Message}s from the other threads, its duty cycle and
 * its lifecycle. Each duty has its own class, and {@link #doWork()} calls them in order: {@link EventTail}
 * (the live tail of the event journal, routing each event to its sessions), {@link HistoryLoader} (the
 * price history's loader after a start), {@link Attacher} (logins: LoginAccepted, the resend, the switch
 * to the live stream), {@link Answers} (the commands finished, from {@link Completions}, and the deferred
 * reads, answered once their events are out; a portfolio is encoded on the {@link PortfolioEncoder}'s own
 * thread while what its session is sent next waits behind it), {@link Resends} (the resends in progress, their turns and
 * limits); {@link AccountNumbers} holds each account's last event number and {@link SessionTable} the
 * sessions by id, account and market, and their output buffers.
 */
public final class Egress implements Agent
{
    private static final int TAIL_BATCH = 512;

    /**
     * How many resends may be in progress: per account and in all; and how many bytes of other frames
     * a resending session may have waiting behind its resend before it is cut off as a slow consumer.
     */
    public record ResendLimits(int perAccount, int total, int heldBytes)
    {
        public ResendLimits
        {
            if (perAccount < 1 || total < 1 || heldBytes < 1)
            {
                throw new IllegalArgumentException("resend limits must be positive: " + perAccount + ", " + total + ", " + heldBytes);
            }
        }
    }

    /** Messages into the egress thread. */
    public sealed interface Message
    {
    }

    /**
     * A session logged in: send LoginAccepted, resend after lastSeq (-1: none), then go live; not before
     * the events up to {@code afterEventSeq} have been tailed (messages behind it wait too).
     * {@code accountLastSeq} and {@code accountLastEvent} are the account's last event number and the
     * engine sequence of that event, as the engine had them at {@code afterEventSeq}.
     */
    public record Attach(
        Session session, long lastSeq, int heartbeatIntervalMs, int maxFrameBytes, long afterEventSeq,
        long accountLastSeq, long accountLastEvent) implements Message
    {
        /** The login placed in the event stream: read on the core thread, from the engine. */
        public Attach at(final long eventSeq, final long accountLastSeq, final long accountLastEvent)
        {
            return new Attach(session, lastSeq, heartbeatIntervalMs, maxFrameBytes, eventSeq, accountLastSeq, accountLastEvent);
        }
    }

    public record Detach(Session session) implements Message
    {
    }

    /** A message to act on only once the events up to {@link #lastEventSeq()} have been sent. */
    public sealed interface Deferred extends Message
    {
        long lastEventSeq();
    }

    /**
     * A portfolio read at engine event lastEventSeq: sent once the account's events up to there are
     * out, with the account's event number at that point ({@code accountLastSeq}), so that it and the
     * event stream agree. The portfolio is copied on the core thread and encoded on the
     * {@link PortfolioEncoder}'s, while what the session is sent next waits behind it.
     */
    public record PortfolioAnswer(
        Session session, long requestId, PortfolioView portfolio, long lastEventSeq, long accountLastSeq)
        implements Deferred
    {
    }

    /**
     * A read of the price history, which this thread keeps from the journal's trades: once the events up
     * to lastEventSeq are sent (0: at once, in turn), the envelope that {@code answer} makes goes to the session.
     */
    public record HistoryRead(Session session, long lastEventSeq, Function<PriceHistory, Envelope> answer)
        implements Deferred
    {
    }

    /** An envelope for one session (a query's answer, an error). */
    public record Direct(long sessionId, Envelope envelope) implements Message
    {
    }

    /** An envelope for every session of one account (a workload launch for its agents, a status for its renter). */
    public record ToAccount(long accountId, Envelope envelope) implements Message
    {
    }

    /** A subscription taken: the snapshot to send first. */
    public record Subscribed(Session session, long marketId, Envelope snapshot) implements Message
    {
    }

    public record Unsubscribed(Session session, long marketId) implements Message
    {
    }

    /** A book update of a market, for its subscribers. */
    public record MarketUpdate(long marketId, Envelope update) implements Message
    {
    }

    /** A read of the price history on this thread, in turn with the other messages (the web dashboard's). */
    public record Peek(Consumer<PriceHistory> reader) implements Message
    {
    }

    /** Told every trade of the journal, on the egress thread, after the price history took it. */
    @FunctionalInterface
    public interface TradeTap
    {
        void onTrade(long marketId, long timeMs, long price, int gpus);
    }

    /**
     * What the egress does to answer a completed request that registered something (a session's
     * request of any kind but {@link Session#KIND_COMMAND}), beyond the Response. Plain commands are
     * answered without it, their Response written straight into the frame.
     */
    public interface CompletionHook
    {
        /** Called on the egress thread; may add fields to the response (e.g. a key's secret). */
        void onCompleted(Session session, int slot, RejectReason reject, Response.Builder response);
    }

    private final ManyToOneConcurrentArrayQueue<Message> inbox = new ManyToOneConcurrentArrayQueue<>(1 << 16);
    private final Supplier<Journal.Reader> readerFactory;
    private final Consumer<String> log;
    /** Each account's last event number and that event's engine sequence. */
    private final AccountNumbers accounts = new AccountNumbers();
    /** Candles and last prices from every trade of the journal, loaded from its start after each start of the gateway. */
    private final PriceHistory history = new PriceHistory();
    /** Loads the price history from the journal after a start. */
    private final HistoryLoader historyLoader = new HistoryLoader(this::onTrade);
    /** The sessions attached, and their output buffers. */
    private final SessionTable sessions;
    /** The resends in progress. */
    private final Resends resends;
    /** The live tail of the event journal. */
    private final EventTail tail;
    /** The commands the core has finished, answered once their events are out. */
    private final Completions completions = new Completions();
    /** The answers and reads waiting for their events. */
    private final Answers answers;
    /** Encodes portfolio answers off this thread. */
    private final PortfolioEncoder encoder;
    /** Logins: LoginAccepted, the resend, the switch to the live stream. */
    private final Attacher attacher;
    /** Reads the resends' events on its own thread. */
    private final ResendReader resendReader;
    private TradeTap tradeTap;
    /** Times the egress's part of each duty cycle's resends for a benchmark's probe; null: not timed. */
    private volatile WorkProbe.Timer resendWrite;
    private volatile boolean caughtUp;
    private Runnable wake = () -> { };
    private GatewayCounters counters = GatewayCounters.inMemory();
    /** The thread that runs this agent (set when it starts). */
    private volatile Thread thread;
    private boolean working;
    /** Closed: what the core still hands over while it drains on shutdown is dropped (no session is left). */
    private volatile boolean stopped;

    public Egress(
        final Supplier<Journal.Reader> readerFactory, final Directory directory, final CompletionHook completionHook,
        final ResendLimits resendLimits, final Consumer<String> log)
    {
        this.readerFactory = readerFactory;
        this.log = log;
        this.resends = new Resends(resendLimits);
        this.sessions = new SessionTable(resends, log);
        final EventFrames frames = new EventFrames(directory);
        this.tail = new EventTail(sessions, accounts, historyLoader, this::onTrade, frames, log);
        this.encoder = new PortfolioEncoder(() -> wake.run(), log);
        this.answers = new Answers(sessions, completions, historyLoader, history, completionHook, encoder);
        this.resendReader = new ResendReader(resendLimits.total() + 1, directory, () -> wake.run(), log);
        resends.closeReadersWith(resendReader::retire);
        this.attacher = new Attacher(sessions, accounts, resends, resendReader, readerFactory);
        counters(counters);
    }

    @Override
    public String roleName()
    {
        return "gpux-egress";
    }

    /** Where the egress counts its figures (before it starts; default: counters of its own). */
    public void counters(final GatewayCounters counters)
    {
        this.counters = counters;
        sessions.counters(counters);
        tail.counters(counters);
        answers.counters(counters);
    }

    /** Before the egress starts: how long a connection it closes is given to take its last frame. */
    public void closeGraceMs(final long graceMs)
    {
        sessions.closeGraceMs(graceMs);
    }

    /** Before the egress starts: also tell {@code tap} every trade, on this thread. */
    public void tradeTap(final TradeTap tap)
    {
        this.tradeTap = tap;
    }

    /** From any thread: tell {@code probe} the wall and CPU time of each resend slice, portfolio encode and write from now on (null: none). */
    public void workProbe(final WorkProbe probe)
    {
        resendWrite = WorkProbe.Timer.of(probe, WorkProbe.Work.RESEND_WRITE);
        resendReader.workProbe(probe);
        answers.workProbe(probe);
    }

    /** Called after every message queued and every batch of completions, from the queuing thread: wakes the egress's thread. */
    public void wakeWith(final Runnable wake)
    {
        this.wake = wake;
    }

    /** Queues a message; false if the inbox is full (the caller decides: retry, or answer BUSY). */
    public boolean offer(final Message message)
    {
        if (inbox.offer(message))
        {
            wake.run();
            return true;
        }
        return false;
    }

    /**
     * Queues a message the caller cannot drop, waiting for room (the inbox is drained every duty
     * cycle); on the egress's own thread (when it shares a thread with its callers) it makes the room
     * itself.
     */
    public void put(final Message message)
    {
        while (!inbox.offer(message))
        {
            if (stopped)
            {
                return;
            }
            if (Thread.currentThread() == thread && !working)
            {
                doWork();
            }
            else
            {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        wake.run();
    }

    /**
     * From the core thread, the only caller: a command's events are in the event journal up to
     * {@code lastEventSeq}; once the egress has sent them, it answers the command's request.
     * Allocation-free; waits for room if the egress is that far behind (it drains every duty cycle).
     */
    public void complete(final long correlation, final long commandSeq, final long lastEventSeq, final RejectReason reject)
    {
        completions.complete(correlation, commandSeq, lastEventSeq, reject);
    }

    /**
     * From the core thread, the only caller: a command was neither journaled nor applied; once the
     * events up to {@code lastEventSeq} are sent, its request is answered UNAVAILABLE with the reason.
     */
    public void refuse(final long correlation, final long lastEventSeq, final String reason)
    {
        completions.refuse(correlation, lastEventSeq, reason);
    }

    /** Whether the egress has found the end of the event journal and tails it. */
    public boolean caughtUp()
    {
        return caughtUp;
    }

    /** The engine sequence of the last event routed. */
    public long tailedEventSeq()
    {
        return tail.tailedEventSeq();
    }

    @Override
    public void onStart()
    {
        thread = Thread.currentThread();
        completions.readBy(thread);
        encoder.start();
        resendReader.start();
        final long tailed = tail.startAtEnd(readerFactory.get());
        if (tailed > 0)
        {
            historyLoader.start(readerFactory.get());
        }
        log.accept("egress: tailing the event journal after event " + tailed + " (" +
            tail.documentsRead() + " documents read)");
        caughtUp = true;
    }

    private void onTrade(final Event e)
    {
        history.onTrade(e.marketId, e.timeMs, e.price, e.gpus);
        if (tradeTap != null)
        {
            tradeTap.onTrade(e.marketId, e.timeMs, e.price, e.gpus);
        }
    }

    /** Resends in progress (any thread; for tests and monitoring). */
    public int resendsInProgress()
    {
        return resends.inProgress();
    }

    /** One duty cycle: the live work, then a slice of the resends. */
    @Override
    public int doWork()
    {
        final int work = sendLive() + resend();
        counters.egressResends.setRelease(resends.size());
        return work;
    }

    /**
     * The live part of a duty cycle: a batch of journaled events to their sessions, the queued
     * messages, the completed commands' answers.
     */
    public int sendLive()
    {
        working = true;
        try
        {
            int work = 0;
            work += tail.tail(TAIL_BATCH);
            final long tailed = tail.tailedEventSeq();
            work += historyLoader.load(tailed);
            work += drainInbox(1024);
            work += completions.read();
            work += answers.release(tailed);
            work += answers.encoded();
            sessions.flush();
            return work;
        }
        finally
        {
            working = false;
        }
    }

    /**
     * The resend part of a duty cycle: writes the rounds the {@link ResendReader} read since the last cycle to
     * their sessions, brings a session live once it has its account's newest event, and hands each other resend
     * over for its next round (see {@link Attacher#writeRounds()} and {@link Attacher#handOver()}). The journal
     * reads are the reader's, on its own thread.
     *
     * @return the rounds written and the resends handed over or ended.
     */
    public int resend()
    {
        if (resends.isEmpty() && resendReader.inFlight() == 0)
        {
            return 0;
        }
        working = true;
        try
        {
            final WorkProbe.Timer timer = resendWrite;
            if (timer != null)
            {
                timer.start();
            }
            int work = attacher.writeRounds();
            sessions.flush();
            // after the flush: a resend whose round just filled its connection waits until the peer reads
            work += attacher.handOver();
            if (timer != null)
            {
                timer.stop();
            }
            return work;
        }
        finally
        {
            working = false;
        }
    }

    /** Handles queued messages in order, stopping at an Attach whose events are not all tailed yet. */
    private int drainInbox(final int limit)
    {
        final long tailed = tail.tailedEventSeq();
        int n = 0;
        Message m;
        while (n < limit && (m = inbox.peek()) != null)
        {
            if (m instanceof Attach a && a.afterEventSeq() > tailed)
            {
                break;
            }
            inbox.poll();
            onMessage(m);
            n++;
        }
        return n;
    }

    private void onMessage(final Message m)
    {
        if (m instanceof Deferred d)
        {
            answers.defer(d);
        }
        else if (m instanceof Peek p)
        {
            p.reader().accept(history);
        }
        else if (m instanceof MarketUpdate u)
        {
            sessions.sendToSubscribers(u.marketId(), u.update());
        }
        else if (m instanceof Direct d)
        {
            sessions.sendTo(d.sessionId(), d.envelope());
        }
        else if (m instanceof ToAccount t)
        {
            sessions.sendToAccount(t.accountId(), t.envelope());
        }
        else if (m instanceof Attach a)
        {
            attacher.attach(a);
        }
        else if (m instanceof Detach d)
        {
            sessions.detach(d.session());
        }
        else if (m instanceof Subscribed s)
        {
            if (sessions.subscribe(s.session(), s.marketId()))
            {
                sessions.send(s.session(), s.snapshot());
            }
        }
        else if (m instanceof Unsubscribed u)
        {
            sessions.unsubscribe(u.session(), u.marketId());
        }
    }

    @Override
    public void onClose()
    {
        stopped = true;
        encoder.close();
        resendReader.close();
        completions.stop();
        historyLoader.close();
        resends.endAll();
        sessions.releaseAll();
    }
}
