package io.gpux.gateway.egress;

import io.gpux.core.journal.Journal;
import io.gpux.gateway.directory.Directory;
import io.netty.buffer.ByteBuf;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.agrona.concurrent.SystemNanoClock;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Reads the resends' events from the journal on a thread of its own, so that neither the egress's thread nor, in
 * the shared layout, the event loop that runs the core spends a resend's journal reads (seeks across a long
 * history, the page faults of a journal file not read for a while, decoding and framing). The egress hands it a
 * resending session's cursor with the account's newest event at that moment ({@link #offer}); it reads a round
 * ({@link Resends#BUDGET} journal documents and {@link Resends#SLICE_NS} at most, give or take the step that
 * finds the time gone) into the cursor's {@link ResendCursor#chunk} and hands the cursor back ({@link #drain}),
 * and the egress writes the chunk to the session and decides: live, another round, or the end. Cursors take their
 * rounds in the order handed over, so every resend advances in turn.
 *
 * <p>It also closes the journal readers of ended resends ({@link #retire}): a reader's close can unmap journal files.
 * One thread, started with the egress, parked while no cursor waits (the egress unparks it as it hands
 * one over). It takes a bounded number of cursors at once, so neither side ever waits for room in its queues.
 */
final class ResendReader extends ParkedWorker
{
    private final OneToOneConcurrentArrayQueue<ResendCursor> in;
    private final OneToOneConcurrentArrayQueue<ResendCursor> out;
    /** Journal readers of ended resends, to close on this thread (a close can unmap journal files). */
    private final OneToOneConcurrentArrayQueue<Journal.Reader> retired;
    private final EventFrames frames;
    private final Runnable wakeEgress;
    private final NanoClock clock;
    private final Consumer<String> log;
    private final BooleanSupplier sliceOver = this::sliceOver;
    /** Times each round on the reader's thread for a benchmark's probe; null: not timed. */
    private volatile WorkProbe.Timer timer;
    private long sliceEnd;
    /** Cursors handed over and not yet given back (the egress's thread only): {@link #capacity} at most. */
    private int inFlight;
    private final int capacity;

    /**
     * @param capacity the most cursors handed over at once (more wait with the egress for their turn).
     * @param wakeEgress run on the reader's thread after each round handed back: wakes the egress's thread.
     */
    ResendReader(final int capacity, final Directory directory, final Runnable wakeEgress, final Consumer<String> log)
    {
        this(capacity, directory, wakeEgress, log, SystemNanoClock.INSTANCE);
    }

    ResendReader(final int capacity, final Directory directory, final Runnable wakeEgress, final Consumer<String> log,
        final NanoClock clock)
    {
        super("gpux-resend-reader");
        this.capacity = capacity;
        in = new OneToOneConcurrentArrayQueue<>(capacity);
        out = new OneToOneConcurrentArrayQueue<>(capacity);
        retired = new OneToOneConcurrentArrayQueue<>(capacity);
        this.frames = new EventFrames(directory);
        this.wakeEgress = wakeEgress;
        this.log = log;
        this.clock = clock;
    }

    void workProbe(final WorkProbe probe)
    {
        timer = WorkProbe.Timer.of(probe, WorkProbe.Work.RESEND_SLICE);
    }

    /**
     * Egress thread: hands the cursor over for a round of reading up to the account's newest event, number
     * {@code newestSeq} at engine sequence {@code newestEvent}; false if the reader is closed or has its capacity in
     * hand (the cursor stays the egress's, and waits for its turn).
     */
    boolean offer(final ResendCursor c, final long newestSeq, final long newestEvent)
    {
        start();
        if (!takesWork() || inFlight == capacity)
        {
            return false;
        }
        c.targetSeq = newestSeq;
        c.targetEvent = newestEvent;
        c.busy = true;
        c.reader.handOver();
        in.offer(c);
        inFlight++;
        wake();
        return true;
    }

    /** Egress thread: cursors handed over and not yet given back. */
    int inFlight()
    {
        return inFlight;
    }

    /** Egress thread: closes the journal reader of an ended resend, on the reader's thread if it runs, else here. */
    void retire(final Journal.Reader r)
    {
        r.handOver();
        if (takesWork() && retired.offer(r))
        {
            wake();
            return;
        }
        r.close();
    }

    /** Egress thread: gives back each cursor whose round is done, in the order done (its {@code busy} cleared). */
    int drain(final Consumer<ResendCursor> done)
    {
        int n = 0;
        ResendCursor c;
        while ((c = out.poll()) != null)
        {
            inFlight--;
            c.busy = false;
            done.accept(c);
            n++;
        }
        return n;
    }

    @Override
    void run()
    {
        while (running())
        {
            closeRetired();
            final ResendCursor c = in.poll();
            if (c == null)
            {
                park();
                continue;
            }
            round(c);
            c.reader.handOver();
            // never full: it holds no more than the cursors in flight, capacity at most
            out.offer(c);
            wakeEgress.run();
        }
    }

    private void closeRetired()
    {
        Journal.Reader r;
        while ((r = retired.poll()) != null)
        {
            r.close();
        }
    }

    /** Reads one round of the cursor's events into a fresh chunk. */
    void round(final ResendCursor c)
    {
        final WorkProbe.Timer t = timer;
        if (t != null)
        {
            t.start();
        }
        final ByteBuf chunk = c.session.channel.alloc().directBuffer(4096);
        sliceEnd = clock.nanoTime() + Resends.SLICE_NS;
        try
        {
            c.read(Resends.BUDGET, c.targetSeq, c.targetEvent, chunk, frames, sliceOver);
        }
        catch (final RuntimeException ex)
        {
            log.accept("resend reader: the resend of session " + c.session.id + " failed: " + ex);
            c.failure = "the event journal could not be read: " + ex.getMessage();
        }
        c.chunk = chunk;
        if (t != null)
        {
            t.stop();
        }
    }

    /** Whether the round's time ({@link Resends#SLICE_NS}) is gone; the cursor asks after each step. */
    private boolean sliceOver()
    {
        return clock.nanoTime() - sliceEnd >= 0;
    }

    /** Stops the thread (the egress is closing; it closes every resend it still runs once this has stopped). */
    void close()
    {
        if (stop())
        {
            closeRetired();
            // the cursors still handed over are the egress's again: it closes those it runs, here those it ended
            for (final OneToOneConcurrentArrayQueue<ResendCursor> q : List.of(in, out))
            {
                ResendCursor c;
                while ((c = q.poll()) != null)
                {
                    c.busy = false;
                    if (c.ended)
                    {
                        c.close();
                    }
                }
            }
        }
    }
}
