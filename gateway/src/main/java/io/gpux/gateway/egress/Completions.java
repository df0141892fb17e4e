package io.gpux.gateway.egress;

import io.gpux.engine.event.RejectReason;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;

/**
 * The commands the core has finished, waiting for their events to be sent: the core thread claims
 * them into an off-heap ring, as primitives (an object each would be garbage made on the exchange's
 * hot path); the egress thread reads them into a pending ring of its own and releases them, in
 * order, once the events up to each one's last event sequence are out.
 *
 * <p>A completion is four longs: correlation, command sequence, last event sequence, and the reject
 * reason's ordinal + 1 (0 = none; {@link #REFUSED} for a command neither journaled nor applied).
 */
final class Completions
{
    /** What the egress does with a completion once its events are out. */
    interface Handler
    {
        void onCompleted(long correlation, long commandSeq, RejectReason reject);

        /** A command was refused; {@code reason} says why. */
        void onRefused(long correlation, String reason);
    }

    private static final int COMPLETION = 1;
    private static final int COMPLETION_BYTES = 32;
    private static final int READ_BATCH = 1024;
    private static final RejectReason[] REJECTS = RejectReason.values();
    /** The code of a refused command (neither journaled nor applied) in a completion's reject field. */
    private static final long REFUSED = -1;

    private final OneToOneRingBuffer ring =
        new OneToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect((1 << 20) + RingBufferDescriptor.TRAILER_LENGTH)));
    /** Why the last refused command was refused (refusals in a row share one reason, e.g. the journal disk is full). */
    private volatile String refusalReason;
    /** Completions read from the ring whose events are not all sent yet, in order: 4 longs each (a power-of-two ring). */
    private long[] pending = new long[4 * 1024];
    private long pendingHead;
    private long pendingTail;
    private final MessageHandler onCompletion = this::onCompletion;
    /** The thread that reads the ring (set when the egress starts). */
    private volatile Thread reader;
    /** Closed: what the core still hands over while it drains on shutdown is dropped. */
    private volatile boolean stopped;

    /** The thread that reads the ring: a claim from it, when the ring is full, makes the room itself. */
    void readBy(final Thread thread)
    {
        this.reader = thread;
    }

    /** From now on a claim is dropped rather than waited for. */
    void stop()
    {
        stopped = true;
    }

    /** From the core thread, the only caller; allocation-free; waits for room if the reader is that far behind. */
    void complete(final long correlation, final long commandSeq, final long lastEventSeq, final RejectReason reject)
    {
        claim(correlation, commandSeq, lastEventSeq, reject == null ? 0 : reject.ordinal() + 1);
    }

    /** From the core thread, the only caller: a command was neither journaled nor applied, for {@code reason}. */
    void refuse(final long correlation, final long lastEventSeq, final String reason)
    {
        refusalReason = reason;
        claim(correlation, 0, lastEventSeq, REFUSED);
    }

    private void claim(final long correlation, final long commandSeq, final long lastEventSeq, final long code)
    {
        int index;
        while ((index = ring.tryClaim(COMPLETION, COMPLETION_BYTES)) < 0)
        {
            if (stopped)
            {
                return;
            }
            if (Thread.currentThread() == reader)
            {
                // one thread runs the core and the egress: take the completions into the pending ring now
                ring.read(onCompletion, READ_BATCH);
            }
            else
            {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        final AtomicBuffer b = ring.buffer();
        b.putLong(index, correlation);
        b.putLong(index + 8, commandSeq);
        b.putLong(index + 16, lastEventSeq);
        b.putLong(index + 24, code);
        ring.commit(index);
    }

    /** On the egress thread: takes a batch of completions from the ring into the pending ring; returns how many. */
    int read()
    {
        return ring.read(onCompletion, READ_BATCH);
    }

    /**
     * On the egress thread: hands {@code handler} the pending completions, in order, whose events up
     * to {@code sentEventSeq} are out; returns how many.
     */
    int release(final long sentEventSeq, final Handler handler)
    {
        int n = 0;
        while (pendingHead < pendingTail)
        {
            final int at = pendingAt(pendingHead);
            if (pending[at + 2] > sentEventSeq)
            {
                break;
            }
            final long reject = pending[at + 3];
            if (reject == REFUSED)
            {
                handler.onRefused(pending[at], refusalReason);
            }
            else
            {
                handler.onCompleted(pending[at], pending[at + 1], reject == 0 ? null : REJECTS[(int)reject - 1]);
            }
            pendingHead++;
            n++;
        }
        return n;
    }

    private void onCompletion(final int type, final MutableDirectBuffer b, final int index, final int length)
    {
        if (pendingTail - pendingHead == pending.length / 4)
        {
            final long[] grown = new long[pending.length * 2];
            final int n = (int)(pendingTail - pendingHead);
            for (int i = 0; i < n; i++)
            {
                System.arraycopy(pending, pendingAt(pendingHead + i), grown, i * 4, 4);
            }
            pending = grown;
            pendingHead = 0;
            pendingTail = n;
        }
        final int at = pendingAt(pendingTail);
        pending[at] = b.getLong(index);
        pending[at + 1] = b.getLong(index + 8);
        pending[at + 2] = b.getLong(index + 16);
        pending[at + 3] = b.getLong(index + 24);
        pendingTail++;
    }

    /** Where the n-th pending completion starts in {@link #pending}. */
    private int pendingAt(final long n)
    {
        return (int)(n & (pending.length / 4 - 1)) * 4;
    }
}
